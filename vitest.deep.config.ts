import { defineConfig } from 'vitest/config';
import { shared } from './vitest.config.js';

/**
 * The deep suite, `npm run test:deep`, in two projects: `properties`, the seeded property tests at
 * full size, on the engine of the run (PGlite, or PostgreSQL with TEST_DATABASE_URL); `servers`,
 * the suites that start clusters of their own (Patroni, a multi-host failover, faults made with
 * SIGSTOP, a held lock, PgBouncer without a server) or wait on a timer (an issuer's key rotation),
 * whatever the engine. `.ci/run` runs both on PGlite, and `properties` again on PostgreSQL.
 */
export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    projects: [
      {
        ...shared,
        test: {
          ...shared.test,
          name: 'properties',
          include: [
            'test/tenancy-properties.test.ts',
            'test/tenancy-subscriptions.test.ts',
            'test/instance-moves-properties.test.ts',
            'test/write-plans.test.ts',
          ],
          env: {
            ...shared.test.env,
            TENANCY_DOCUMENTS: process.env.TENANCY_DOCUMENTS ?? '200',
            TENANCY_SUBSCRIPTIONS: process.env.TENANCY_SUBSCRIPTIONS ?? '100',
            MOVE_DOCUMENTS: process.env.MOVE_DOCUMENTS ?? '200',
            WRITE_DOCUMENTS: process.env.WRITE_DOCUMENTS ?? '200',
          },
        },
      },
      { ...shared, test: { ...shared.test, name: 'servers', include: ['test/deep/**/*.test.ts'] } },
    ],
  },
});
