/**
 * FileTokenStore: owner-only permissions, atomic replacement, serialized writes, and a corrupt
 * file reported (never wiped, never quoted: it holds secrets).
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { FileTokenStore } from 'keel-mcp/node';
import { LocalError } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'keel-token-store-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;
const posix = process.platform !== 'win32';

test('get of a missing file or key is undefined, and nothing is created by reading', async () => {
  const store = new FileTokenStore(join(root, 'absent', 'tokens.json'));
  expect(await store.get('k')).toBeUndefined();
  expect(await readdir(root)).toEqual([]);
});

test('set, get and delete round-trip; the file is one JSON object of strings', async () => {
  const path = join(root, 'tokens.json');
  const store = new FileTokenStore(path);
  await store.set('https://as.example/', '{"access_token":"a"}');
  await store.set('other', 'x');
  expect(await store.get('https://as.example/')).toBe('{"access_token":"a"}');
  expect(await new FileTokenStore(path).get('other')).toBe('x');
  await store.delete('other');
  expect(await store.get('other')).toBeUndefined();
  expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ 'https://as.example/': '{"access_token":"a"}' });
});

test('keys that name Object.prototype members are plain keys', async () => {
  const store = new FileTokenStore(join(root, 'tokens.json'));
  expect(await store.get('toString')).toBeUndefined();
  await store.set('__proto__', 'p');
  await store.set('constructor', 'c');
  expect(await new FileTokenStore(join(root, 'tokens.json')).get('__proto__')).toBe('p');
  expect(await store.get('constructor')).toBe('c');
});

test('deleting the last key leaves a valid, empty file', async () => {
  const path = join(root, 'tokens.json');
  const store = new FileTokenStore(path);
  await store.set('only', 'v');
  await store.delete('only');
  expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({});
  expect(await store.get('only')).toBeUndefined();
  await store.delete('never-there');
  expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({});
});

test.runIf(posix)('the file is created 0600 and the directories the store creates 0700', async () => {
  const previous = process.umask(0o000); // the most permissive umask: the modes must not depend on it
  try {
    const path = join(root, 'a', 'b', 'tokens.json');
    await new FileTokenStore(path).set('k', 'v');
    expect((await modeOf(path)).toString(8)).toBe('600');
    expect((await modeOf(join(root, 'a', 'b'))).toString(8)).toBe('700');
    expect((await modeOf(join(root, 'a'))).toString(8)).toBe('700');
  } finally {
    process.umask(previous);
  }
});

test.runIf(posix)(
  'an existing file with loose permissions is replaced by an owner-only one on write',
  async () => {
    const path = join(root, 'tokens.json');
    await writeFile(path, '{}', { mode: 0o644 });
    await new FileTokenStore(path).set('k', 'v');
    expect((await modeOf(path)).toString(8)).toBe('600');
    // An existing directory is the user's: its mode is left alone.
    expect((await modeOf(root)).toString(8)).toBe('700');
  },
);

test('concurrent sets, from one store and from two stores on the same path, lose no update', async () => {
  const path = join(root, 'tokens.json');
  const first = new FileTokenStore(path);
  const second = new FileTokenStore(path);
  const writes = Array.from({ length: 40 }, (_, i) => (i % 2 ? first : second).set(`key-${i}`, `value-${i}`));
  await Promise.all(writes);
  const entries = JSON.parse(await readFile(path, 'utf8')) as Record<string, string>;
  expect(Object.keys(entries)).toHaveLength(40);
  for (let i = 0; i < 40; i++) expect(entries[`key-${i}`]).toBe(`value-${i}`);
  // No temporary file is left behind.
  expect(await readdir(root)).toEqual(['tokens.json']);
});

test('a reader never sees a partial file while large values are being written', async () => {
  const path = join(root, 'tokens.json');
  const store = new FileTokenStore(path);
  await store.set('seed', 'x');
  const big = 'y'.repeat(512 * 1024); // several write() calls per file
  let writing = true;
  const writer = (async () => {
    for (let i = 0; i < 12; i++) await store.set(`big-${i % 3}`, `${i}:${big}`);
  })().finally(() => {
    writing = false;
  });
  let reads = 0;
  // Bounded: at most 2,000 reads, and it stops as soon as the writer is done.
  while (writing && reads < 2_000) {
    const text = await readFile(path, 'utf8');
    expect(() => JSON.parse(text) as unknown, `read ${reads} parses`).not.toThrow();
    reads++;
  }
  await writer;
  expect(reads).toBeGreaterThan(0);
  expect(await readdir(root)).toEqual(['tokens.json']);
});

test('a corrupt file is an error that names the file and quotes nothing; it is not wiped', async () => {
  const path = join(root, 'tokens.json');
  const secret = 'rt-SECRET-0123456789';
  const bodies = [`{"a": "${secret}"`, `["${secret}"]`, `{"a": 1, "b": "${secret}"}`, ''];
  for (const body of bodies) {
    await writeFile(path, body, { mode: 0o600 });
    const store = new FileTokenStore(path);
    for (const attempt of [() => store.get('a'), () => store.set('a', 'new'), () => store.delete('a')]) {
      const error: unknown = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(LocalError);
      const shown = `${String(error)} ${JSON.stringify(error)} ${String((error as Error).cause)}`;
      expect(shown).toContain(path);
      expect(shown).not.toContain(secret);
    }
    expect(await readFile(path, 'utf8')).toBe(body);
  }
});

test('after a failed write the queue goes on', async () => {
  const path = join(root, 'tokens.json');
  await writeFile(path, 'not json', { mode: 0o600 });
  const store = new FileTokenStore(path);
  const failing = store.set('a', '1');
  const after = failing.catch(() => writeFile(path, '{}', { mode: 0o600 })).then(() => store.set('b', '2'));
  await expect(failing).rejects.toBeInstanceOf(LocalError);
  await after;
  expect(await store.get('b')).toBe('2');
});
