/**
 * The audited peer: the peer (PostGraphile 5) over a copy of the bench database in which a trigger
 * does for every whiteboard row written what the gateway's writes do: the change log entry of
 * src/live/log.ts in the write's own transaction, and a notification for subscribers (`pg_notify`),
 * as a PostGraphile deployment with an audit trail and subscriptions would. The user of the entry is
 * the setting `bench.user_id`, which the peer's pgSettings set per request (bench/peer/server.mjs),
 * or its connections at their start (BENCH_AUDITED_USER, config.ts).
 *
 * A copy rather than a trigger on the bench database that asks a setting whether to log: there every
 * write of the gateway and of the bare peer would call the trigger, and their figures would change.
 */
import pg from 'pg';
import type { AuditedUserSource } from './config.js';
import { copyBenchDatabase, type BenchDatabase } from './database.js';
import { startPeer } from './peer-setup.js';

/** In a schema of its own, which PostGraphile (schema public) does not expose. */
const auditSql = `
CREATE SCHEMA bench_audit;
CREATE FUNCTION bench_audit.log_whiteboard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  board whiteboard;
  event text := CASE TG_OP WHEN 'INSERT' THEN 'CREATED' WHEN 'UPDATE' THEN 'UPDATED' ELSE 'DELETED' END;
  entry int;
BEGIN
  IF TG_OP = 'DELETE' THEN board := OLD; ELSE board := NEW; END IF;
  INSERT INTO user_action_log (user_id, credential, organization_id, method, entity_type, entity_id, kind, whiteboard_id)
  VALUES (current_setting('bench.user_id')::int, 'API_KEY', board.organization_id,
    (CASE TG_OP WHEN 'INSERT' THEN 'CREATE' WHEN 'UPDATE' THEN 'UPDATE' ELSE 'DELETE' END)::action_method,
    'Whiteboard', board.id, event, board.id)
  RETURNING id INTO entry;
  PERFORM pg_notify('whiteboard', json_build_object('entry', entry, 'kind', event, 'entityType', 'Whiteboard',
    'entityId', board.id, 'organizationId', board.organization_id, 'whiteboardId', board.id)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER log_whiteboard AFTER INSERT OR UPDATE OR DELETE ON whiteboard
  FOR EACH ROW EXECUTE FUNCTION bench_audit.log_whiteboard();
`;

export interface AuditedDatabase {
  name: string;
  url: string;
  /** Change log entries of whiteboards in it so far: the proof that the trigger ran. */
  entries(): Promise<number>;
}

/** The copy of `source` with the audit trigger; made before anyone connects to `source`. */
export async function createAuditedDatabase(adminUrl: string, source: BenchDatabase): Promise<AuditedDatabase> {
  const copy = await copyBenchDatabase(adminUrl, source, 'audited');
  const query = async <T extends pg.QueryResultRow>(sql: string) => {
    const client = new pg.Client({ connectionString: copy.url });
    await client.connect();
    try {
      return await client.query<T>(sql);
    } finally {
      await client.end();
    }
  };
  await query(auditSql);
  return {
    ...copy,
    entries: async () =>
      (await query<{ n: number }>(`SELECT count(*)::int AS n FROM user_action_log WHERE entity_type = 'Whiteboard'`))
        .rows[0].n,
  };
}

/**
 * The peer over the audited copy; its entries name `userId` (the owner of key 0, whose requests the
 * gateway's are), set by its pgSettings per request or by its connections' startup options.
 */
export function startAuditedPeer(
  env: Record<string, string>,
  database: AuditedDatabase,
  userId: number,
  source: AuditedUserSource,
) {
  if (source === 'request')
    return startPeer({ ...env, DATABASE_URL: database.url, BENCH_PEER_USER_ID: String(userId) }, 'audited peer');
  const url = new URL(database.url);
  url.searchParams.set('options', `-c bench.user_id=${userId}`);
  return startPeer({ ...env, DATABASE_URL: url.toString() }, 'audited peer');
}
