import pg from 'pg';
import { openDatabase } from '../src/db/index.js';
import { createPrivateCluster, type PrivateCluster, type ServerSettings } from '../test/helpers/private-postgres.js';
import { onCleanup } from './cleanup.js';
import { loadDataset } from './dataset.js';

/**
 * A PostgreSQL cluster of the tool's own (removed at cleanup), started, with a database `bench` that
 * holds the bench's data set, `setup` run on it, then analyzed: what the statement tools measure on.
 */
export async function clusterWithDataset(
  settings: ServerSettings = {},
  setup?: string,
): Promise<{ cluster: PrivateCluster; url: string; seconds: number }> {
  const cluster = await createPrivateCluster(settings);
  onCleanup('remove the cluster', () => cluster.remove());
  await cluster.start();
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('CREATE DATABASE bench');
  await admin.end();
  const url = cluster.url.replace(/\/postgres$/, '/bench');
  await (await openDatabase({ databaseUrl: url, poolSize: 2 })).close(); // migrates it
  const { seconds } = await loadDataset(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  if (setup) await client.query(setup);
  await client.query('VACUUM ANALYZE');
  await client.end();
  return { cluster, url, seconds };
}
