import { defineConfig } from 'prisma/config';

// Only `prisma generate` reads this file; the server and migrations get their connection from src/config.ts.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
