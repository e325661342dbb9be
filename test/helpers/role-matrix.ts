import { permissions } from '../../src/auth/roles.js';

const roles = ['OWNER', 'ADMIN', 'MEMBER', 'VIEWER'] as const;

/** The role table of docs/authentication.md, rendered from the matrix in src/auth/roles.ts. */
export function roleMatrixMarkdown(): string {
  const rows = Object.entries(permissions).map(
    ([action, { what, roles: allowed, key }]) =>
      `| \`${action}\`: ${what} | ${roles.map((role) => ((allowed as readonly string[]).includes(role) ? 'yes' : '-')).join(' | ')} | ${key} |`,
  );
  return ['| action | OWNER | ADMIN | MEMBER | VIEWER | key permission |', '|---|---|---|---|---|---|', ...rows].join(
    '\n',
  );
}
