import { camelCase, pascalCase } from './names.js';
import type { Route } from './route.js';

type Named = Pick<Route, 'name' | 'method' | 'path'>;

/** FastAPI's generated operation id, as the legacy's `Body_<id>` schema names show it: `create_upload_file_api_upload_file_v1__post`. */
export const fastApiOperationId = (route: Named) =>
  `${route.name.toLowerCase().replace(/ /g, '_')}${route.path}_${route.method.toLowerCase()}`.replace(/\W/g, '_');

const segments = (path: string) => path.split('/').filter(Boolean);

/** What tells a route from the others of its name: the placeholders its path adds, else its fixed segments. */
function distinction(route: Named, others: Named[]): string {
  const extra = segments(route.path).filter((segment) =>
    others.some((other) => !segments(other.path).includes(segment)),
  );
  const placeholders = extra.filter((segment) => segment.startsWith('{'));
  if (placeholders.length) return `By${pascalCase(placeholders.join(' '))}`;
  return extra.length ? `In${pascalCase(extra.join(' '))}` : '';
}

/**
 * The operationId of each route, in order: the camelCase of its legacy name (`listUserOrganizations`).
 * A name the table serves at several paths adds to each what its path has and the others' lack: the
 * parent of a nested path (`getWhiteboardDataStreamByWhiteboardId`), else its own segments
 * (`deleteWhiteboardInArchive`); a path with nothing extra keeps the plain name.
 */
export function operationIds(routes: Named[]): string[] {
  const ids = routes.map(
    (route) =>
      camelCase(route.name) +
      distinction(
        route,
        routes.filter((other) => other !== route && other.name === route.name),
      ),
  );
  const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
  if (repeated.length) throw new Error(`OpenAPI: operationIds given twice: ${repeated.join(', ')}`);
  return ids;
}
