/**
 * Issue 24 point 2: a request's era is decided once, where it enters (src/server/era/
 * request-pipeline.ts on a connection; src/hosts/http/handle-post.ts per HTTP request), and only
 * the era objects (src/server/era/, src/server/modern/) know what differs. This test keeps the rest
 * of the server side from asking again: handlers, registries, the context, the session and the
 * engine must not test a request's `_meta`, a version or a session's era.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Where era questions are the point of the file. */
const ERA_HOMES = ['src/server/era/', 'src/server/modern/'];
/** The HTTP host decides per request which connection (and era) a POST gets; GET/DELETE refuse modern clients. */
const ENTRY_POINTS = new Set(['src/hosts/http/handle-post.ts', 'src/hosts/http/http-handler.ts']);

/** What asking the era looks like in code. */
const QUESTIONS: readonly [RegExp, string][] = [
  [/\bisModern(Meta|Version|Post|Client)\s*\(/, 'a modern-request test'],
  [/\.era\s*[!=]==/, "a comparison of a session's era"],
  [/protocolEra\??\.name\s*[!=]==/, "a comparison of the era's name"],
  [/\bmodern\s*[!=]==\s*undefined\b/, 'a check for a modern request object'],
  [/'2026-07-28'/, 'a revision literal'],
];

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Code only: comments say what the era does, which is fine. */
function withoutComments(text: string): string {
  // Line breaks kept: the offences name their line.
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ''))
    .replace(/(^|[^:])\/\/.*$/gm, '$1');
}

test('outside the era objects, no server-side code asks which era a request is in', () => {
  const offences: string[] = [];
  for (const dir of ['src/server', 'src/hosts', 'src/core/engine']) {
    for (const path of files(join(ROOT, dir))) {
      const file = relative(ROOT, path).split('\\').join('/');
      if (ERA_HOMES.some((home) => file.startsWith(home)) || ENTRY_POINTS.has(file)) continue;
      const lines = withoutComments(readFileSync(path, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        for (const [pattern, what] of QUESTIONS)
          if (pattern.test(line)) offences.push(`${file}:${index + 1}: ${what}: ${line.trim()}`);
      });
    }
  }
  expect(
    offences,
    'decide the era in era/request-pipeline.ts and put what differs in the era objects',
  ).toEqual([]);
});
