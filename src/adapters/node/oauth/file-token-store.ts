/**
 * A {@link TokenStore} kept in one JSON file that only its owner can read.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { TokenStore } from '../../../core/auth.js';
import { LocalError } from '../../../core/errors.js';
import { isJsonObject } from '../../../core/jsonrpc.js';

/** Writes in flight per file, across instances: two stores on one path must not lose updates either. */
const queues = new Map<string, Promise<void>>();

/**
 * A token store in one JSON file (`{ "<key>": "<value>", ... }`), for CLI and desktop clients
 * whose tokens must outlive the process. The file is created with mode 0600 (and its directory,
 * if the store creates it, with 0700): it holds refresh tokens and client secrets. Every change
 * writes a temporary file in the same directory and renames it over the old one, so a reader (or
 * a crash) never sees half a file; changes from one process are applied one at a time, so
 * concurrent `set`s do not lose updates. Several processes sharing one file do not lose the file,
 * but the last writer wins. A file that is not a JSON object of strings is an error, never wiped.
 *
 * @example
 * const store = new FileTokenStore(join(homedir(), '.config', 'my-cli', 'tokens.json'));
 * await store.set('https://auth.example.com', JSON.stringify(tokens));
 */
export class FileTokenStore implements TokenStore {
  private readonly path: string;

  constructor(path: string) {
    this.path = resolve(path);
  }

  async get(key: string): Promise<string | undefined> {
    const entries = await this.read();
    return Object.hasOwn(entries, key) ? entries[key] : undefined;
  }

  async set(key: string, value: string): Promise<void> {
    if (typeof value !== 'string') throw new TypeError('FileTokenStore values must be strings');
    await this.update((entries) => {
      entries[key] = value;
      return true;
    });
  }

  async delete(key: string): Promise<void> {
    await this.update((entries) => Object.hasOwn(entries, key) && delete entries[key]);
  }

  /** Read, change and write back, after every earlier change to this file has finished. */
  private update(change: (entries: Record<string, string>) => boolean): Promise<void> {
    const previous = queues.get(this.path) ?? Promise.resolve();
    const next = previous.then(async () => {
      const entries = await this.read();
      if (change(entries)) await this.write(entries);
    });
    // The queue must go on after a failed write; the caller still sees the failure.
    const tail = next.catch(() => undefined);
    queues.set(this.path, tail);
    void tail.then(() => {
      if (queues.get(this.path) === tail) queues.delete(this.path);
    });
    return next;
  }

  private async read(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return Object.create(null) as Record<string, string>;
      throw error;
    }
    // The parser's own message can quote the file, which holds secrets: it is not passed on.
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw corrupt(this.path, 'it is not valid JSON');
    }
    if (!isJsonObject(parsed)) throw corrupt(this.path, 'it is not a JSON object');
    const entries = Object.create(null) as Record<string, string>;
    for (const [key, value] of Object.entries(parsed)) {
      if (typeof value !== 'string')
        throw corrupt(this.path, `the value of an entry is a ${typeof value}, not a string`);
      entries[key] = value;
    }
    return entries;
  }

  private async write(entries: Record<string, string>): Promise<void> {
    const directory = dirname(this.path);
    const created = await mkdir(directory, { recursive: true, mode: 0o700 });
    // mkdir's mode is filtered by the umask; the directories made here are set explicitly.
    if (created !== undefined) await chmodCreated(created, directory, 0o700);
    const temporary = join(directory, `.${basename(this.path)}.${randomBytes(6).toString('hex')}.tmp`);
    // 'wx': a fresh file (never an existing one, nor a planted symlink), owner-only from birth.
    const handle = await open(temporary, 'wx', 0o600);
    try {
      try {
        await handle.chmod(0o600);
        await handle.writeFile(`${JSON.stringify(entries, null, 2)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, this.path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }
}

function corrupt(path: string, why: string): LocalError {
  return new LocalError(
    `Token store ${path} is unreadable (${why}); it is left as it is: repair or remove it to continue`,
  );
}

/** `chmod` every directory from `first` (the first one mkdir created) down to `last`. */
async function chmodCreated(first: string, last: string, mode: number): Promise<void> {
  for (let directory = last; ; directory = dirname(directory)) {
    await chmod(directory, mode);
    if (directory === first || dirname(directory) === directory) return;
  }
}
