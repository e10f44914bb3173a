// The processes of the scale-out benches (bench/scale-out.mjs, bench/adoption.mjs): one
// dist/examples/scale-out-server.js on a free port, and the tests' TypeScript helpers (Redis, the
// round-robin proxy) transpiled into bench/.work/ (they import only node:*).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const work = join(root, 'bench', '.work');
export const SERVER = join(root, 'dist', 'examples', 'scale-out-server.js');

/**
 * A TypeScript helper of the tests (test/helpers/<name>.ts), transpiled into bench/.work/ with the
 * helpers it imports (`./ci.js` and the like; they import only node:*).
 */
export async function helper(name) {
  transpile(name, new Set());
  return import(pathToFileURL(join(work, `${name}.js`)).href);
}

function transpile(name, done) {
  if (done.has(name)) return;
  done.add(name);
  mkdirSync(work, { recursive: true });
  const source = readFileSync(join(root, 'test', 'helpers', `${name}.ts`), 'utf8');
  for (const [, sibling] of source.matchAll(/from '\.\/([\w-]+)\.js'/g)) transpile(sibling, done);
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  });
  // `.js`, as the sources' imports name them (ES modules: the package's "type" is "module").
  writeFileSync(join(work, `${name}.js`), outputText);
}

/** One scale-out-server process on a free port; resolves once it prints its URL. */
export function startServer(env) {
  const child = spawn(process.execPath, [SERVER], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
  const gone = new Promise((resolveGone) => child.once('close', resolveGone));
  return new Promise((resolveStart, rejectStart) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rejectStart(new Error(`scale-out server did not start within 15 s: ${stderr}`));
    }, 15_000);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text) => {
      out += text;
      const newline = out.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      const url = out.slice(0, newline).trim();
      resolveStart({
        port: Number(new URL(url).port),
        pid: child.pid,
        /** SIGTERM (a drain when other processes run), or `signal`; resolves once it exited. */
        async stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await gone;
          clearTimeout(killer);
        },
      });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      rejectStart(new Error(`scale-out server exited (${code}): ${stderr}`));
    });
  });
}
