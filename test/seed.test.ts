import { afterAll, beforeAll, expect, it } from 'vitest';
import { countRows, demo } from '../src/db/seed/index.js';
import { openTestDatabase } from './helpers/database.js';

let handle: Awaited<ReturnType<typeof openTestDatabase>>;
beforeAll(async () => {
  handle = await openTestDatabase();
});
afterAll(() => handle?.drop());

it('loads the demo data set into every table, as described', async () => {
  const counts = await countRows(handle.database.prisma);
  expect(counts).toEqual(demo.counts);
  const empty = Object.entries(counts)
    .filter(([, rows]) => rows === 0)
    .map(([model]) => model);
  expect(empty).toEqual([]);
});

it('gives the first organization one member of every role, and archives some boards', async () => {
  const prisma = handle.database.prisma;
  const acme = await prisma.organization.findFirstOrThrow({
    where: { name: demo.organizations.acme.name },
    include: { members: true },
  });
  expect(new Set(acme.members.map((member) => member.role))).toEqual(new Set(['OWNER', 'ADMIN', 'MEMBER', 'VIEWER']));
  expect(await prisma.whiteboard.count({ where: { inTheArchive: true } })).toBeGreaterThan(0);
  expect(await prisma.whiteboard.count({ where: { inTheArchive: false } })).toBeGreaterThan(0);
});
