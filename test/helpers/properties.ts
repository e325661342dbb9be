import fc from 'fast-check';

// The property tests draw their inputs with fast-check: a run is a list of choices, each read by a
// generator as a number in [0, 1). A failing run is shrunk by fast-check to fewer and smaller choices;
// past the last one every draw reads 0, which the generators take as their simplest option (no
// optional part, the smallest count, the first item), so the shrunk document is the simplest that fails.

/** A seeded source of numbers in [0, 1): the same choices give the same input. */
export type Random = () => number;

/** Enough choices for the largest generated document (about 1,200 draws), drawn uniformly. */
const choices = fc.noBias(fc.array(fc.nat(), { maxLength: 1_500, size: 'max' }));

/** How long a failing run is shrunk: a run of the slower properties sends several requests. */
const SHRINK_BUDGET_MS = 60_000;

/** The draws of one run's choices, then zeros. */
export function randomOf(values: readonly number[]): Random {
  let next = 0;
  return () => (next < values.length ? values[next++] / 2 ** 31 : 0);
}

/** The seed of a property test: `variable` from the environment to replay one, else a new one; printed either way. */
export function seedOf(variable: string, file: string): number {
  const seed = Number(process.env[variable] ?? Date.now() % 2 ** 31);
  console.log(`${variable}=${seed} (replay: ${variable}=${seed} npx vitest run ${file})`);
  return seed;
}

/**
 * Runs `check` on `runs` runs of choices drawn from `seed` (the same seed, the same runs in the same
 * order), and shrinks a failing one before it reports the failure with its seed.
 */
export async function forEachRun(seed: number, runs: number, check: (random: Random) => Promise<void>): Promise<void> {
  let failedAt: number | undefined;
  await fc.assert(
    fc.asyncProperty(choices, async (values) => {
      // Shrinking has a budget: past it every candidate passes, and the smallest failure so far is reported.
      if (failedAt !== undefined && performance.now() - failedAt > SHRINK_BUDGET_MS) return;
      try {
        await check(randomOf(values));
      } catch (error) {
        failedAt ??= performance.now();
        throw error;
      }
    }),
    { seed, numRuns: runs },
  );
}

/** The first `runs` runs' draws of `seed`, as forEachRun gives them (for a tool that replays a test's inputs). */
export const runsOf = (seed: number, runs: number): Random[] =>
  fc.sample(choices, { seed, numRuns: runs }).map(randomOf);

/** The draws a generator makes of its choices; at 0 each gives its simplest option. */
export class Draws {
  constructor(protected readonly random: Random) {}

  /** True with probability `p`. */
  protected chance = (p: number) => this.random() >= 1 - p;
  protected integer = (least: number, most: number) => least + Math.floor(this.random() * (most - least + 1));
  protected pick = <T>(items: readonly T[]): T => items[Math.floor(this.random() * items.length)];
  /** One to `most` of `items`, each drawn once (a draw per item taken, so a run's choices stay few). */
  protected some = <T>(items: readonly T[], most: number): T[] => {
    const left = [...items];
    return Array.from(
      { length: this.integer(1, Math.max(1, Math.min(most, items.length))) },
      () => left.splice(Math.floor(this.random() * left.length), 1)[0],
    ).filter((item) => item !== undefined);
  };
}
