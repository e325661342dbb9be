import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

/** The settings every suite shares: `npm test` (this file) and `npm run test:deep` (vitest.deep.config.ts). */
export const shared = {
  // Pothos loads graphql as CommonJS; one copy for everyone, or instanceof checks fail across "realms".
  resolve: { alias: { graphql: createRequire(import.meta.url).resolve('graphql') } },
  test: {
    // `dist/` for the suites that start `npm start`'s server as a process.
    globalSetup: ['test/global-setup.ts'],
    // Each file's scratch directories are removed when it ends.
    setupFiles: ['test/setup-scratch.ts'],
    pool: 'forks' as const,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // One line per request would bury the test output; warnings and errors still show (and the servers the tests spawn inherit it).
    env: { LOG_LEVEL: 'warn' },
  },
};

/**
 * The fast suite, `npm test`: every area, on one engine (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL), the tenancy property test at 25 documents per caller. The deep runs (failover
 * clusters, timed faults, a key rotation, the property tests at full size) are `npm run test:deep`.
 */
export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    include: ['test/**/*.test.ts'],
    exclude: ['test/deep/**'],
    // Vitest takes one worker on two cores; the files wait on processes and servers as much as on the CPU.
    maxWorkers: 2,
    // A worker's files share its process and modules: a process per file spent a third of the suite's CPU importing the gateway again.
    isolate: false,
    env: { ...shared.test.env, TENANCY_DOCUMENTS: process.env.TENANCY_DOCUMENTS ?? '25' },
  },
});
