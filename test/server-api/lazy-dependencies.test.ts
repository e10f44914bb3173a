/**
 * Startup cost: `jose` (~30 ms to import) is loaded on first use only, so a stdio server, an
 * unprotected HTTP endpoint or a client that never signs an assertion does not pay for it. A
 * static `import { … } from 'jose'` anywhere in src/ would bring it back into every import of the
 * server and client entry points; `import type` and `await import('jose')` are fine.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from '../docs/readme-blocks.mjs';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('no module in src/ imports jose statically (types and dynamic imports only)', () => {
  const offenders = sources(join(ROOT, 'src')).filter((file) =>
    /^\s*import\s+(?!type\b)[^;]*?from\s+['"]jose['"]/m.test(readFileSync(file, 'utf8')),
  );
  expect(offenders.map((file) => relative(ROOT, file))).toEqual([]);
});

test('the check itself sees a static import (so the test above can fail)', () => {
  const pattern = /^\s*import\s+(?!type\b)[^;]*?from\s+['"]jose['"]/m;
  expect(pattern.test("import { jwtVerify } from 'jose';")).toBe(true);
  expect(pattern.test("import type { JWTPayload } from 'jose';")).toBe(false);
  expect(pattern.test("const jose = await import('jose');")).toBe(false);
});
