/**
 * The REST v1 route table: every legacy operation is one row of data, never code of its own.
 *
 * A Route is one legacy operation at one path. It names the GraphQL operation it runs and where the
 * request's values go; everything else (types, validation, OpenAPI, the answer's shape) is derived
 * from the GraphQL schema at start-up.
 *
 *   group, name  legacy tag and operation name, exactly as in legacy-v1-interface.md. A name the
 *                legacy lists twice under one group is one operation at two paths: two rows. A group
 *                of `ownGroups` is the gateway's own API, served the same way, no part of that contract.
 *   method, path `/api/<area>/v1/...` with a trailing slash; `{snake_case}` placeholders.
 *   kind         how the request is read and the answer shaped; the same verb means the same everywhere:
 *                  list    limit (default 100, at most 100) and offset go to $first and $offset (offset
 *                          only when the operation declares it); the root field is a connection: the
 *                          answer is its `nodes` array, `totalCount` goes in X-Total-Count.
 *                  filter  a list that also takes one query parameter per field and operator of the
 *                          root field's `filter` argument (`name`, `name__contains`, `author_id__in=1,2`) into
 *                          $filter, and `ordering=-created_at,name` into $orderBy.
 *                  info    the filter parameters into $filter; answers `{total_count, fields}`, the
 *                          fields read from the filter's input type.
 *                  object  the root field's value; null answers 404.
 *                  payload the one field selected inside the root field (a mutation payload's
 *                          `whiteboard { ... }`), or the row read back by `answer`; null answers 404.
 *                  empty   204 without a body (deletes).
 *   operation    a GraphQL document with one named operation. Aliases give the legacy snake_case keys
 *                (`author_id: authorId`). It is parsed and validated once, at start-up; one that does
 *                not validate stops the start with the route's name.
 *   pathParams   placeholder -> variable path, e.g. `{ whiteboard_id: 'input.rowId' }`; null for a
 *                parent's id in a nested path, which is checked as an integer and not passed on (the
 *                row is addressed by its own id; the GraphQL lookups take no parent); see `rowCheck`.
 *   queryParams  query parameter -> variable path, besides those the kind implies.
 *   body         the input variable the request body fills: the JSON object's snake_case keys are its
 *                camelCase fields (those not filled from the path; never a global `ID`). An input
 *                with an `Upload` field makes the body a multipart form.
 *   status       the success status. @default 200; 201 for creates (see verbs.ts), 204 for `empty`
 *   public       answers without an API key; its operation must select only public fields
 *                (registration, whose invite token is the credential). @default false
 *
 * Types, required-ness, defaults and enum values of every parameter are the GraphQL types of the
 * variables they fill. verbs.ts builds the common rows from a few values, so a group's file under
 * routes/ reads as a table; write a Route literal for anything else.
 */

export const groups = [
  'action-log',
  'user-organization-control',
  'user-info',
  'user-invite',
  'user-organization',
  'organization-info',
  'organization-user',
  'library-control-class-conf-attribute',
  'library-control-class-conf',
  'library-control',
  'library-view-class-conf',
  'whiteboard-archive',
  'whiteboard-data-stream',
  'whiteboard-data-stream-connection',
  'whiteboard-object-attribute',
  'whiteboard-object-connection',
  'whiteboard-object-instance',
  'whiteboard-object-relation',
  'whiteboard-object',
  'whiteboard-highlight',
  'whiteboard',
  'object-repository',
  'library-control-class-texture',
  'whiteboard-data-stream-slide',
  // Not a group of the inventory: the upload path its schema names imply.
  'upload',
  'webhook',
] as const;

export type Group = (typeof groups)[number];

/** The groups of the gateway's own API under /api/.../v1/, beside the legacy interface: none of its operations. */
export const ownGroups: readonly Group[] = ['webhook'];

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type Kind = 'list' | 'filter' | 'info' | 'object' | 'payload' | 'empty';

export interface Route {
  group: Group;
  name: string;
  method: Method;
  path: string;
  kind: Kind;
  operation: string;
  pathParams?: Record<string, string | null>;
  /**
   * What the row named by placeholder `row` must be: a query (`$id`: the row id) answering
   * `row { value }`, and what `value` must equal - the id in placeholder `param` (a nested path's
   * parent) or a fixed value (an archived board). Otherwise 404, before the operation runs.
   */
  rowCheck?: { row: string; operation: string; equals: { param: string } | { value: boolean } };
  /**
   * For a `payload` route: a query (`$id`: the row id, which the payload selects as `rowId`) whose
   * root field's value is the answer, read once the operation has written the row, as `object`
   * shapes it. The row's legacy form is then one planned statement, not the resolvers' reads of
   * its relations inside the mutation.
   */
  answer?: string;
  queryParams?: Record<string, string>;
  body?: string;
  status?: 200 | 201 | 204;
  public?: boolean;
}

/** Page size of list routes when `limit` is not given. */
export const defaultLimit = 100;
/** Largest `limit`: a GraphQL connection's page cap, since a route runs exactly one operation. */
export const maxLimit = 100;
