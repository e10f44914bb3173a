import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Files under test that import the package by name (bench/servers do, as a user would) get the
// sources, like tsconfig.json's "paths": one copy of every class in a test, never src + dist/pkg.
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, { types: string }>;
};
const alias = Object.entries(pkg.exports).map(([subpath, target]) => ({
  find: new RegExp(`^keel-mcp${subpath === '.' ? '' : subpath.slice(1)}$`),
  replacement: fileURLToPath(
    new URL(target.types.replace(/^\.\/dist\//, './').replace(/\.d\.ts$/, '.ts'), import.meta.url),
  ),
}));

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Lifecycle tests watch process-level events; isolate files in forks so one file's
    // stray rejection cannot be blamed on another.
    pool: 'forks',
  },
});
