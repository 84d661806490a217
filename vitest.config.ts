import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Code written as a user writes it (the docs' snippets, generated clients) imports the package by name; in
    // tests that is the sources, not a dist/ that may be older (tsconfig.json's paths say the same to tsc).
    alias: [
      { find: /^vellum$/, replacement: source('./src/index.ts') },
      { find: /^vellum\/testing$/, replacement: source('./src/testing/index.ts') },
      { find: /^vellum\/client$/, replacement: source('./src/client/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Property tests and the PostgreSQL suite are CPU-heavy; two workers match the two cores we have.
    maxWorkers: 2,
  },
});
