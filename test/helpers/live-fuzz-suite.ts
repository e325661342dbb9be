import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  checkSseAnswer,
  checkWebSocketAnswer,
  frameScenarios,
  runBatch,
  runFrameScenario,
  runSseScenario,
  runWebSocketScenario,
  sseScenarios,
  tally,
  webSocketScenarios,
  type LiveFuzzServer,
} from './live-fuzz.js';

/** A scenario's answer, or a failure naming it when it has not ended in `seconds`: a hang is a finding too. */
const withinSeconds = <A>(seconds: number, answer: Promise<A>): Promise<A> =>
  Promise.race([
    answer,
    new Promise<A>((_, reject) =>
      setTimeout(() => reject(new Error(`the scenario did not end within ${seconds} s`)), seconds * 1_000).unref(),
    ),
  ]);

/** Scenarios run at once in each run of a property. */
const BATCH = 8;

/**
 * The live doors' fuzz as a suite: `runs` batches of BATCH scenarios per door against one server, then
 * the server must live, answer, hold no subscription and have kept its memory within `memoryMiB` (a
 * server of its own process only: one in the test's process shares its memory with the clients).
 * FUZZ_SEED replays a run (its seed is printed).
 */
export function liveFuzzSuite(
  file: string,
  runs: number,
  memoryMiB: number | undefined,
  start: () => Promise<LiveFuzzServer>,
): void {
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  console.log(
    `live fuzz seed ${seed}, ${runs} × ${BATCH} scenarios per door (replay: FUZZ_SEED=${seed} npx vitest run ${file})`,
  );
  let fuzz: LiveFuzzServer;
  let before: { rss: number; peak: number };
  const outcomes: Record<string, (string | number | undefined)[]> = { webSocket: [], frames: [], sse: [] };
  let messagesSent = 0;
  beforeAll(async () => {
    fuzz = await start();
    before = fuzz.memory();
  }, 60_000);
  afterAll(() => fuzz?.stop());

  const property = <S, A>(
    index: number,
    scenarios: fc.Arbitrary<S>,
    run: (scenario: S) => Promise<A>,
    check: (scenario: S, answer: A) => void,
    outcome: (answer: A) => string | number | undefined,
    into: (string | number | undefined)[],
  ) =>
    fc.assert(
      fc.asyncProperty(fc.array(scenarios, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const answers = await runBatch(batch, (scenario) => withinSeconds(10, run(scenario)), check);
        into.push(...answers.map(outcome));
      }),
      { seed: seed + index, numRuns: runs, endOnFailure: true },
    );

  it('WebSocket: no message, of any type, size or number, before or after sign-in, is a fault of the server', async () => {
    await property(
      0,
      webSocketScenarios(fuzz.key),
      async (scenario) => {
        const answer = await runWebSocketScenario(fuzz.url, scenario);
        messagesSent += answer.sent;
        return answer;
      },
      checkWebSocketAnswer,
      (answer) => answer.refused ?? answer.close?.code,
      outcomes.webSocket,
    );
  }, 600_000);

  it('WebSocket: no frame a client library would never send is a fault of the server', async () => {
    await property(
      1,
      frameScenarios,
      (scenario) => runFrameScenario(fuzz.url, scenario),
      () => {},
      (code) => code,
      outcomes.frames,
    );
    for (const outcome of outcomes.frames) {
      expect([1011, 4500]).not.toContain(outcome);
      expect(String(outcome)).not.toMatch(/^upgrade 5/);
    }
  }, 600_000);

  it('Server-Sent Events: no request, body or early departure is answered 5xx or an unexpected error', async () => {
    await property(
      2,
      sseScenarios(fuzz.key),
      (scenario) => runSseScenario(fuzz.url, scenario),
      checkSseAnswer,
      (answer) => answer.status,
      outcomes.sse,
    );
  }, 600_000);

  it('leaves the server alive and answering, with no subscription held and its memory bounded', async () => {
    expect(fuzz.alive()).toBe(true);
    expect((await fetch(`${fuzz.url}/ready`)).status).toBe(200);
    await expect.poll(() => fuzz.openSubscriptions(), { timeout: 5_000 }).toBe(0);
    const after = fuzz.memory();
    console.log(
      `live fuzz: ${outcomes.webSocket.length} WebSocket scenarios (${messagesSent} messages) closed ${tally(outcomes.webSocket)}; ` +
        `${outcomes.frames.length} of raw frames ${tally(outcomes.frames)}; ` +
        `${outcomes.sse.length} Server-Sent Events requests answered ` +
        `${tally(outcomes.sse)}; server RSS ${Math.round(before.rss)} MiB before, ` +
        `${Math.round(after.rss)} MiB after, peak ${Math.round(after.peak)} MiB (${Math.round(before.peak)} before)`,
    );
    if (memoryMiB !== undefined) {
      expect(after.rss - before.rss).toBeLessThan(memoryMiB);
      expect(after.peak - before.peak).toBeLessThan(memoryMiB);
    }
    // Nothing was logged as a bug or a fault (level 50 and up: error, fatal).
    expect(fuzz.faults()).toEqual([]);
  });
}
