import { expect } from 'vitest';
import type { Answered } from './faults.js';

// What every fault test asserts of the answers and of the gateways' logs.

/** What a process of the gateway logged as a bug (a 500): nothing, or the test fails with the lines. */
export function expectNoBug(gateways: { server: { lines: { out: string[] } } }[]): void {
  const bugs = gateways.flatMap((gateway) =>
    gateway.server.lines.out.filter((line) => /"msg":"(unexpected error|REST route answered 500)"/.test(line)),
  );
  expect(bugs).toEqual([]);
}

/** Every answer is one the failure allows (200, 201, 503, 504), within `boundMs` and what a busy machine adds. */
export function expectWithinBound(answers: Answered[], boundMs: number): void {
  for (const answer of answers) {
    expect([200, 201, 503, 504], JSON.stringify(answer)).toContain(answer.status);
    expect(answer.ms, JSON.stringify(answer)).toBeLessThan(boundMs + 750);
  }
}
