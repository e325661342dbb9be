import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Pothos loads graphql as CommonJS; one copy for everyone, or instanceof checks fail across "realms".
  resolve: { alias: { graphql: createRequire(import.meta.url).resolve('graphql') } },
  test: {
    include: ['test/**/*.test.ts'],
    // `dist/` for the suites that start `npm start`'s server as a process.
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // One line per request would bury the test output; warnings and errors still show (and the servers the tests spawn inherit it).
    env: { LOG_LEVEL: 'warn' },
  },
});
