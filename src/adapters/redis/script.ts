/**
 * Lua scripts sent by hash: the event store runs one per SSE event and the session store one per
 * `create`/`touch`, so sending the whole script text each time (EVAL) would cost bandwidth and a
 * server-side hash of the text on the hot path. EVALSHA sends 40 hex characters; the server
 * answers NOSCRIPT when its script cache does not have it (first use, a restart, `SCRIPT FLUSH`,
 * a failover), and then the one EVAL that follows caches it again.
 */
import { rejection } from './bounded.js';

/**
 * The part of a Redis client that runs Lua scripts: node-redis (`@redis/client`, `redis`) clients
 * fit.
 *
 * @example
 * const client: RedisScriptClient = createClient({ url, disableOfflineQueue: true });
 */
export interface RedisScriptClient {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Whether `error` is the server's "no script with that hash" reply. */
function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/** Lowercase hex SHA-1 of `text`'s UTF-8 bytes (what Redis names a script by); WebCrypto, so any runtime. */
export async function sha1Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text));
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/**
 * One Lua script, run by its SHA-1 (computed once per process, on first use).
 *
 * @example
 * const TOUCH = new LuaScript("return redis.call('PEXPIRE', KEYS[1], ARGV[1])");
 * await TOUCH.run(client, { keys: ['k'], arguments: ['1000'] });
 */
export class LuaScript {
  /** Known once hashed; `null` when this runtime cannot hash (then every run is an EVAL). */
  private sha: string | null | undefined;
  private hashing: Promise<void> | undefined;

  constructor(readonly source: string) {}

  /** The script's SHA-1, once known (tests compare it with the server's `SCRIPT LOAD`). */
  async hash(): Promise<string | undefined> {
    await (this.hashing ??= this.computeHash());
    return this.sha ?? undefined;
  }

  /**
   * EVALSHA, or EVAL when the server does not have the script. Errors are the client's own
   * (callers bound and map them). A script that fails after starting is never re-run: only a
   * NOSCRIPT reply, which means it did not run, falls back.
   */
  run(client: RedisScriptClient, options: { keys: string[]; arguments: string[] }): Promise<unknown> {
    const sha = this.sha;
    if (sha === undefined) return this.hash().then(() => this.run(client, options));
    try {
      if (sha === null) return client.eval(this.source, options);
      return client.evalSha(sha, options).catch((error: unknown) => {
        if (!isNoScript(error)) throw error;
        return client.eval(this.source, options);
      });
    } catch (error) {
      return rejection(error); // a closed client throws: callers get one rejection to map
    }
  }

  private async computeHash(): Promise<void> {
    try {
      this.sha = await sha1Hex(this.source);
    } catch {
      this.sha = null; // no WebCrypto here: plain EVAL still works
    }
  }
}
