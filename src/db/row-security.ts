import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

/**
 * The settings the row-level security policies read (migration row_level_security): the caller's
 * organizations as an integer array (empty: all, a platform admin) and the caller's user id.
 */
export interface ReadScope {
  organizations: string;
  user: string;
}

const scopes = new AsyncLocalStorage<ReadScope>();

/** The scope the current statement runs under, if any (an object of its own per read). */
export const currentScope = (): ReadScope | undefined => scopes.getStore();

/** Runs `work` so that its statements on the pool see only the rows `scope` allows (undefined: every row). */
export function inReadScope<T>(scope: ReadScope | undefined, work: () => T): T {
  return scopes.run(scope as ReadScope, work);
}

const unrestricted = '|';
const keyOf = (scope: ReadScope | undefined) => (scope ? `${scope.organizations}|${scope.user}` : unrestricted);
const setScope = "SELECT set_config('gateway.organizations', $1, false), set_config('gateway.user', $2, false)";

/**
 * A pooled connection that runs each statement under the scope of the read it serves. The settings
 * are the session's and stay while the next statements share the scope, so a read costs one
 * statement more only when its connection last served another caller (a setting local to a
 * transaction would cost a BEGIN and a COMMIT around every read). A rolled-back transaction takes
 * back what was set inside it, so the settings are set again after one.
 */
export class ScopedClient extends pg.Client {
  private applied: string | undefined = unrestricted;

  // biome-ignore lint/suspicious/noExplicitAny: pg's query takes its overloads' arguments, passed through as they come
  override query(...args: any[]): any {
    const scope = scopes.getStore();
    const key = keyOf(scope);
    if (key !== this.applied) {
      this.applied = key;
      // Queued ahead of the statement on this connection: pg runs a connection's queries in order.
      super.query(setScope, [scope?.organizations ?? '', scope?.user ?? '']).catch(() => {
        this.applied = undefined;
      });
    }
    const text = typeof args[0] === 'string' ? args[0] : args[0]?.text;
    if (typeof text === 'string' && /^\s*ROLLBACK/i.test(text)) this.applied = undefined;
    // biome-ignore lint/suspicious/noExplicitAny: see above
    return (super.query as (...passed: any[]) => any)(...args);
  }
}

/** Why row-level security would not hold on this connection's role (it passes every policy), if it would not. */
export async function rowSecurityBypass(engine: {
  query<Row>(sql: string): Promise<Row[]>;
}): Promise<string | undefined> {
  const [role] = await engine.query<{ name: string; bypasses: boolean }>(
    'SELECT rolname AS name, rolsuper OR rolbypassrls AS bypasses FROM pg_roles WHERE rolname = current_user',
  );
  return role?.bypasses
    ? `ROW_LEVEL_SECURITY: role "${role.name}" is a superuser or has BYPASSRLS, which passes every policy; connect as the tables' owner without them`
    : undefined;
}
