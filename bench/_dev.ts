// throwaway dev load runner (not committed)
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { nestedQuery, boardQuery } from './queries.js';
import { rowsOf, size } from './dataset.js';
const [url, pidText, cases = 'a,b,s,e', secs = '5', conns = '32'] = process.argv.slice(2);
const keys = JSON.parse(readFileSync('/work/devbench/keys.json', 'utf8')) as string[];
const boards = rowsOf(1, size.whiteboards);
const classes = rowsOf(1, size.classes);
const gql = (query: string, variables: object) => ({ method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json', 'x-api-key': keys[0] }, body: JSON.stringify({ query, variables }) });
const make: Record<string, (i: number) => any> = {
  a: () => gql(nestedQuery(3), { org: 1, first: 50 }),
  b: (i) => gql(boardQuery, { rowId: boards[i % boards.length] }),
  s: (i) => gql('query S($id:Int!){ whiteboard(rowId:$id){ rowId name updatedAt } }', { id: boards[i % boards.length] }),
  e: (i) => ({ method: 'GET', path: `/api/library/view/v1/class-conf/${classes[i % classes.length]}/`, headers: { 'x-api-key': keys[0] } }),
  c: () => ({ method: 'GET', path: `/api/whiteboard/v1/`, headers: { 'x-api-key': keys[0] } }),
};
const cpu = (pid: string) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
for (const c of cases.split(',')) {
  let n = 0;
  const requests = [{ setupRequest: (r: any) => ({ ...r, ...make[c](n++) }) }];
  await autocannon({ url, connections: Number(conns), duration: 2, requests } as any);
  const before = cpu(pidText);
  const r = await autocannon({ url, connections: Number(conns), duration: Number(secs), requests } as any);
  const ms = cpu(pidText) - before;
  console.log(`${c}: ${(r.requests.total / r.duration).toFixed(1)} req/s  p50 ${r.latency.p50} p99 ${r.latency.p99}  cpu ${(ms / r.requests.total).toFixed(2)} ms/req  non2xx ${r.non2xx} err ${r.errors}`);
}
