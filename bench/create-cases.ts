/**
 * p and q: a REST POST that creates a board, without and with an Idempotency-Key (issue 41: the keyed
 * POST within 10% of the plain one). Each request makes another board of organization 2 (key 1's), at
 * the end of its list: the read cases page the first rows and organization 1's.
 */
import { randomUUID } from 'node:crypto';
import type { Case, CaseContext } from './case.js';
import { type HttpRequest, rest } from './requests.js';

export function createCases({ keys }: CaseContext): Case[] {
  const create = (i: number, headers: Record<string, string> = {}): HttpRequest => {
    const request = rest(keys, 'POST', '/api/whiteboard/v1/', { name: `Bench board ${i}` });
    // Key 1 belongs to the owner of organization 2.
    return { ...request, headers: { ...request.headers, ...keys.headers(1), ...headers } };
  };
  // The load numbers requests from 0 in every sample: a key of the run and a count is new in every one.
  const run = randomUUID();
  let sent = 0;
  const notes = ['one new board of organization 2 per request'];
  return [
    { id: 'p', title: 'create: REST POST', kind: 'REST', constant: false, gateway: (i) => create(i), notes },
    {
      id: 'q',
      title: 'create: REST POST with an Idempotency-Key',
      kind: 'REST',
      constant: false,
      gateway: (i) => create(i, { 'Idempotency-Key': `${run}-${sent++}` }),
      notes: [...notes, 'a new key per request: its claim, then its answer kept; issue 41: within 10% of case p'],
    },
  ];
}
