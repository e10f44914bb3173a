// Installs pinned runtimes into .runtimes/ and nothing else (no build, no smoke): the same installer
// as run.mjs, without its imports of the built dist/, so it runs on a fresh clone before the build.
// Usage: node scripts/runtimes/install.mjs [bun deno ...]   (default: every runtime of the matrix)
// .ci/run installs Bun and Deno so before `npm test`, whose bench tests need them (issue 30).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureRuntime, RUNTIMES } from './lib/install.mjs';

const cacheDir = join(fileURLToPath(new URL('../..', import.meta.url)), '.runtimes');
const log = (line) => console.error(`[runtimes] ${line}`);

async function main(names) {
  for (const name of names) if (!RUNTIMES[name]) throw new Error(`unknown runtime "${name}"`);
  for (const name of names) {
    const began = Date.now();
    const bin = await ensureRuntime(cacheDir, name, { logDir: join(cacheDir, 'logs'), log });
    log(`${name} ${RUNTIMES[name].version}: ${bin} (${Date.now() - began} ms)`);
  }
}

const names = process.argv.slice(2);
main(names.length > 0 ? names : Object.keys(RUNTIMES)).catch((error) => {
  console.error(`[runtimes] ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
});
