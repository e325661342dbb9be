import { redacted } from '../settings.js';

export { redacted };

// libpq's multi-host connection strings, which node-postgres does not read:
// postgresql://user@h1:5432,h2:5433/db?target_session_attrs=read-write. A pool on such a URL
// connects to the first host, in order, whose session has the attributes asked for (host-selector.ts).

/** libpq's `target_session_attrs`: which server of the list a session may be opened on. */
export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export interface ServerAddress {
  host: string;
  port: number;
}

export interface ConnectionString {
  /** The servers in the order given; one for a plain URL. */
  servers: ServerAddress[];
  target: TargetSessionAttrs;
  /** The URL of one server, as node-postgres reads it (the same user, database and parameters). */
  urlOf(server: ServerAddress): string;
  /** `host:port[,host:port]/database`, for messages (never the password). */
  description: string;
  /** The database's name and the role, for messages and CREATE DATABASE. */
  database: string;
  user: string | undefined;
}

const SHAPE = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/;
const DEFAULT_PORT = 5432;

/** Why a URL that reads wrong does: never the entry itself, which may be a password's start. */
const unencoded = (url: string) =>
  `${redacted(url)} does not name host[:port] entries: a user or password holding / ? # @ or : writes them percent-encoded (%2F %3F %23 %40 %3A)`;

/** `host`, `host:port`, `[v6]` or `[v6]:port`. */
function address(entry: string, url: string): ServerAddress {
  const match = /^(\[[^\]]+\]|[^:[\]]*)(?::(\d*))?$/.exec(entry);
  if (!match) throw new Error(unencoded(url));
  const port = match[2] ? Number(match[2]) : DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`port "${match[2]}" is out of range in ${redacted(url)}`);
  return { host: decodeURIComponent(match[1].replace(/^\[(.*)\]$/, '$1')), port };
}

/** Reads a postgresql:// URL with one host or several; throws with the reason when it is malformed. */
export function parseConnectionString(url: string): ConnectionString {
  const match = SHAPE.exec(url);
  if (!match) throw new Error(`${redacted(url)} is not a postgresql:// URL`);
  const [, scheme, userInfo, hostList, path = '', query = ''] = match;
  const params = new URLSearchParams(query);
  // An `@` there ends a user or password that held an unencoded `/` or `?`, which ended the host early.
  if (path.includes('@') || [...params.keys()].some((key) => key.includes('@'))) throw new Error(unencoded(url));
  const target = (params.get('target_session_attrs') ?? 'any') as TargetSessionAttrs;
  if (!TARGET_SESSION_ATTRS.includes(target))
    throw new Error(`target_session_attrs must be one of ${TARGET_SESSION_ATTRS.join(', ')}, got "${target}"`);
  params.delete('target_session_attrs');
  // A host in the parameters names the one server, whatever the authority says, as in libpq (a socket directory, say).
  const named = params.get('host');
  const servers =
    named === null && hostList
      ? hostList.split(',').map((entry) => address(entry, url))
      : [{ host: named ?? 'localhost', port: Number(params.get('port') ?? DEFAULT_PORT) }];
  const rest = `${path}${params.size ? `?${params}` : ''}`;
  const credentials = userInfo === undefined ? '' : `${userInfo}@`;
  const database = decodeURIComponent(path.slice(1)) || 'postgres';
  const hostOf = ({ host, port }: ServerAddress, encode = encodeURIComponent) =>
    `${host.includes(':') ? `[${host}]` : encode(host)}:${port}`;
  return {
    servers,
    target,
    // With a host in the parameters, node-postgres reads it there: the authority stays as it is.
    urlOf: (server) => `${scheme}${credentials}${named === null && hostList ? hostOf(server) : hostList}${rest}`,
    description: `${servers.map((server) => hostOf(server, String)).join(',')}/${database}`,
    database,
    user: userInfo ? decodeURIComponent(userInfo.split(':')[0]) || undefined : undefined,
  };
}

/** `host:port[,host:port]/database` of a URL, for messages. */
export function describeUrl(url: string): string {
  return parseConnectionString(url).description;
}
