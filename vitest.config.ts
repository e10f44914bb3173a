import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Lifecycle tests watch process-level events; isolate files in forks so one file's
    // stray rejection cannot be blamed on another.
    pool: 'forks',
  },
});
