/** Settings of `npm run bench`, from the environment; BENCHMARKS.md lists them. */
export interface BenchConfig {
  /** Admin connection to the PostgreSQL server the bench database is created on. @default postgresql://postgres@127.0.0.1:5432/test */
  adminUrl: string;
  /** Seconds of measured load per case and server. @default 10 */
  duration: number;
  /** Seconds of unmeasured load before each measurement. @default 3 */
  warmup: number;
  /** Concurrent HTTP connections of the load generator. @default 32 */
  connections: number;
  /** Connections in the pools of the gateway and of the floor server. @default 10 (the gateway's default) */
  poolSize: number;
  /** Sequential requests per case that count statements and check bodies. @default 20 */
  samples: number;
  /** Only these case ids (comma separated), e.g. `a,b`. @default every case */
  cases: string[] | undefined;
  /** Start the gateway under `node --cpu-prof`, profiles written to this directory. @default off */
  profileDir: string | undefined;
  /** Where the results table goes (between its markers; the rest of the file is kept). @default BENCHMARKS.md */
  output: string | undefined;
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

export function loadBenchConfig(): BenchConfig {
  const output = process.env.BENCH_OUTPUT ?? 'BENCHMARKS.md';
  return {
    adminUrl: process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/test',
    duration: positive('BENCH_DURATION', 10),
    warmup: positive('BENCH_WARMUP', 3),
    connections: Math.round(positive('BENCH_CONNECTIONS', 32)),
    poolSize: Math.round(positive('DATABASE_POOL_SIZE', 10)),
    samples: Math.round(positive('BENCH_SAMPLES', 20)),
    cases: process.env.BENCH_CASES ? process.env.BENCH_CASES.split(',').map((id) => id.trim()) : undefined,
    profileDir: process.env.BENCH_PROFILE_DIR || undefined,
    // BENCH_OUTPUT=- prints only, so a quick trial run does not overwrite the recorded figures.
    output: output === '-' ? undefined : output,
  };
}
