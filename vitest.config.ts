import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Property tests and the PostgreSQL suite are CPU-heavy; two workers match the two cores we have.
    maxWorkers: 2,
  },
});
