/**
 * {@link TaskStore} on Redis: task records every process of a deployment shares (issue 25).
 */
import type { JsonObject } from '../../core/jsonrpc.js';
import type {
  NewTask,
  TaskCreateResult,
  TaskPatch,
  TaskRecord,
  TaskStore,
} from '../../server/tasks/task-store.js';
import { RedisAccess, atLeast } from './redis-access.js';
import { destroy, type RedisRelaySubscriber } from './relay-client.js';
import { LuaScript, type RedisScriptClient } from './script.js';
import { ANSWER_TASK, CREATE_TASK, DELETE_TASK, RENEW_TASK, UPDATE_TASK } from './task-scripts.js';
import { fromBase64Url, fromUtf8, toBase64Url, utf8 } from '../../server/modern/state-encoding.js';

/**
 * The part of a Redis client the task store uses: node-redis clients fit.
 *
 * @example
 * const client: RedisTaskClient = createClient({ url, disableOfflineQueue: true });
 */
export interface RedisTaskClient extends RedisScriptClient {
  hGetAll(key: string): Promise<Record<string, string>>;
  zRange(key: string, min: number, max: number): Promise<string[]>;
  duplicate(): RedisRelaySubscriber;
}

/**
 * @example
 * new RedisTaskStore({ client, namespace: 'app', maxRecordBytes: 1_048_576 });
 */
export interface RedisTaskStoreOptions {
  /** A connected client with an `'error'` listener, best with `disableOfflineQueue: true`. */
  client: RedisTaskClient;
  /** Every key is `keel:<namespace>:...`. Letters, digits, `.`, `_`, `-`. Default `'default'`. */
  namespace?: string | undefined;
  /** Every command fails with `StoreUnavailableError` after this long. Default 2,000 ms. */
  commandTimeoutMs?: number | undefined;
  /** A record larger than this (bytes of its fields) is refused with a `RangeError`. Default 2 MiB. */
  maxRecordBytes?: number | undefined;
}

const STORE = 'redis task store';
const CREATE = new LuaScript(CREATE_TASK);
const UPDATE = new LuaScript(UPDATE_TASK);
const ANSWER = new LuaScript(ANSWER_TASK);
const DELETE = new LuaScript(DELETE_TASK);
const RENEW = new LuaScript(RENEW_TASK);
const PLAIN = ['statusMessage', 'runner', 'leaseUntil'] as const;
const JSON_FIELDS = ['result', 'error'] as const;

/**
 * Records are hashes `keel:<ns>:task:{<id>}`; an owner's live tasks are a sorted set
 * `keel:<ns>:task-owner:{<owner>}` and all live tasks `keel:<ns>:task-all`, both scored by expiry
 * time, and an owner's running tasks `keel:<ns>:task-owner:{<owner>}:running`, scored by lease
 * end (`maxPerOwner` counts these: finished tasks and tasks whose process died do not); every
 * script prunes what it touches, so no index outlives its members. Changes are published on
 * `keel:<ns>:task-changed`.
 *
 * Time: the Redis server's clock (`TIME` inside each script) for `createdAt`, `lastUpdatedAt`,
 * the lease (`leaseMs` at create, `renew`) and every expiry: one clock for the deployment, the
 * one that also expires the keys, so processes whose clocks drift apart still agree.
 *
 * @example
 * const tasks = new RedisTaskStore({ client, namespace: 'app' });
 * const made = await tasks.create(task, { maxPerOwner: 100, maxTotal: 10_000 });
 */
export class RedisTaskStore implements TaskStore {
  private readonly redis: RedisAccess<RedisTaskClient>;
  private readonly maxBytes: number;
  private readonly listeners = new Set<(id: string) => void>();
  private subscriber: RedisRelaySubscriber | undefined;
  private subscribing: Promise<void> | undefined;
  private closed = false;

  constructor(options: RedisTaskStoreOptions) {
    this.redis = new RedisAccess('RedisTaskStore', STORE, options);
    this.maxBytes = atLeast(options.maxRecordBytes, 2 * 1024 * 1024);
  }

  private key(id: string): string {
    return `${this.redis.prefix}:task:{${id}}`;
  }
  private get ownerPrefix(): string {
    return `${this.redis.prefix}:task-owner:{`;
  }
  private get allKey(): string {
    return `${this.redis.prefix}:task-all`;
  }
  private get channel(): string {
    return `${this.redis.prefix}:task-changed`;
  }

  async create(task: NewTask, limits: { maxPerOwner: number; maxTotal: number }): Promise<TaskCreateResult> {
    const args = ['', String(this.maxBytes), `${this.ownerPrefix}${task.owner}}`];
    args.push(this.allKey, this.channel, String(limits.maxPerOwner), String(limits.maxTotal));
    args.push('id', task.id, 'owner', task.owner, 'method', task.method, 'format', task.format);
    args.push(
      'status',
      task.status,
      'ttlMs',
      String(task.ttlMs),
      'pollIntervalMs',
      String(task.pollIntervalMs),
    );
    for (const name of PLAIN) if (task[name] !== undefined) args.push(name, String(task[name]));
    if (task.leaseMs !== undefined) args.push('leaseMs', String(task.leaseMs));
    for (const name of JSON_FIELDS) if (task[name] !== undefined) args.push(name, JSON.stringify(task[name]));
    for (const [k, v] of Object.entries(task.inputRequests ?? {})) args.push(`ir:${k}`, JSON.stringify(v));
    for (const [k, v] of Object.entries(task.inputResponses ?? {})) args.push(`rs:${k}`, JSON.stringify(v));
    const out = await this.redis.run('create', CREATE, [this.key(task.id)], args);
    if (out === 'owner-limit' || out === 'total-limit') return out;
    if (out === 'exists') throw new RangeError(`RedisTaskStore: task ${task.id} already exists`);
    const record = this.decode(task.id, out);
    if (!record) throw new Error('RedisTaskStore: create returned no record');
    return record;
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const fields = await this.redis.attempt('get', () => this.redis.client.hGetAll(this.key(id)));
    return fields.id === undefined ? undefined : toRecord(fields);
  }

  update(id: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    return this.patch(id, patch, '');
  }

  expireLease(id: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    return this.patch(id, patch, 'lease');
  }

  async renew(id: string, runner: string, leaseMs: number): Promise<TaskRecord | undefined> {
    const args = [runner, String(leaseMs), this.ownerPrefix, this.allKey];
    return this.decode(id, await this.redis.run('renew', RENEW, [this.key(id)], args));
  }

  private async patch(id: string, patch: TaskPatch, guard: '' | 'lease'): Promise<TaskRecord | undefined> {
    const args = [guard, String(this.maxBytes), this.ownerPrefix, this.allKey, this.channel];
    if ('status' in patch && patch.status !== undefined) args.push('s', 'status', patch.status);
    for (const name of PLAIN) {
      if (!(name in patch)) continue;
      const value = patch[name];
      args.push(...(value === undefined ? ['d', name, ''] : ['s', name, String(value)]));
    }
    for (const name of JSON_FIELDS) {
      if (!(name in patch)) continue;
      const value = patch[name];
      args.push(...(value === undefined ? ['d', name, ''] : ['s', name, JSON.stringify(value)]));
    }
    if ('inputRequests' in patch) {
      args.push('c', 'ir:', '');
      for (const [k, v] of Object.entries(patch.inputRequests ?? {}))
        args.push('s', `ir:${k}`, JSON.stringify(v));
    }
    return this.decode(id, await this.redis.run('update', UPDATE, [this.key(id)], args));
  }

  async answer(id: string, responses: Readonly<Record<string, JsonObject>>): Promise<TaskRecord | undefined> {
    const args = ['', String(this.maxBytes), this.channel];
    for (const [k, v] of Object.entries(responses)) args.push(k, JSON.stringify(v));
    return this.decode(id, await this.redis.run('answer', ANSWER, [this.key(id)], args));
  }

  async list(
    owner: string,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    const after = cursor === undefined ? undefined : parseCursor(cursor);
    const index = `${this.ownerPrefix}${owner}}`;
    // The index is bounded by maxPerOwner (create refuses beyond it): reading it whole is bounded.
    const ids = await this.redis.attempt('list', () => this.redis.client.zRange(index, 0, -1));
    const records: TaskRecord[] = [];
    for (const id of ids) {
      const record = await this.get(id);
      if (record?.owner === owner) records.push(record);
    }
    records.sort(newestFirst);
    const start = after === undefined ? 0 : records.findIndex((r) => newestFirst(r, after) > 0);
    const page = start < 0 ? [] : records.slice(start, start + Math.max(1, limit));
    const last = page.at(-1);
    const more = start >= 0 && start + page.length < records.length && last !== undefined;
    return more ? { tasks: page, nextCursor: makeCursor(last) } : { tasks: page };
  }

  async delete(id: string): Promise<boolean> {
    const args = [this.ownerPrefix, this.allKey, this.channel];
    return (await this.redis.run('delete', DELETE, [this.key(id)], args)) === 1;
  }

  watch(listener: (id: string) => void): () => void {
    this.listeners.add(listener);
    if (!this.subscriber && !this.closed) void this.listen();
    return () => void this.listeners.delete(listener);
  }

  /** Resolves once this store's subscriber connection is listening (tests wait on it). */
  async listening(): Promise<void> {
    await this.subscribing;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.subscribing?.catch(() => undefined);
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (!subscriber) return;
    const quit = async () => {
      await subscriber.unsubscribe();
      await (subscriber.close ?? subscriber.quit)?.call(subscriber);
    };
    await this.redis.attempt('close', quit).catch(() => destroy(subscriber));
  }

  private listen(): Promise<void> {
    const subscriber = this.redis.client.duplicate();
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined); // reconnects on its own; a lost message is a missed wake-up
    this.subscribing = (async () => {
      await this.redis.attempt('watch', () => subscriber.connect());
      await this.redis.attempt('watch', () => subscriber.subscribe([this.channel], this.receive));
    })().catch(() => {
      if (this.subscriber === subscriber) this.subscriber = undefined;
      destroy(subscriber);
    });
    return this.subscribing;
  }

  private readonly receive = (id: string): void => {
    for (const listener of this.listeners) {
      try {
        listener(id);
      } catch {
        // One listener's failure does not keep the others from hearing.
      }
    }
  };

  private decode(id: string, out: unknown): TaskRecord | undefined {
    if (out === 'too-large')
      throw new RangeError(`RedisTaskStore: task ${id} is over ${this.maxBytes} bytes`);
    const flat = out as string[];
    if (flat.length === 0) return undefined;
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    return toRecord(fields);
  }
}

/** The record a task hash holds. */
function toRecord(f: Record<string, string>): TaskRecord {
  const requests: Record<string, { method: string; params: JsonObject }> = {};
  const responses: Record<string, JsonObject> = {};
  let open = false;
  let answered = false;
  for (const [k, v] of Object.entries(f)) {
    if (k.startsWith('ir:')) [requests[k.slice(3)], open] = [JSON.parse(v), true];
    else if (k.startsWith('rs:')) [responses[k.slice(3)], answered] = [JSON.parse(v) as JsonObject, true];
  }
  return {
    id: f.id!,
    owner: f.owner!,
    method: f.method!,
    format: f.format as TaskRecord['format'],
    status: f.status as TaskRecord['status'],
    ...(f.statusMessage !== undefined && { statusMessage: f.statusMessage }),
    createdAt: Number(f.createdAt),
    lastUpdatedAt: Number(f.lastUpdatedAt),
    ttlMs: Number(f.ttlMs),
    pollIntervalMs: Number(f.pollIntervalMs),
    ...(f.result !== undefined && { result: JSON.parse(f.result) as JsonObject }),
    ...(f.error !== undefined && { error: JSON.parse(f.error) as TaskRecord['error'] & object }),
    ...(open && { inputRequests: requests }),
    ...(answered && { inputResponses: responses }),
    ...(f.runner !== undefined && { runner: f.runner }),
    ...(f.leaseUntil !== undefined && { leaseUntil: Number(f.leaseUntil) }),
  };
}

/** Newest first; ties broken by id so the order is total (a stable cursor position). */
function newestFirst(a: { createdAt: number; id: string }, b: { createdAt: number; id: string }): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

function makeCursor(r: TaskRecord): string {
  return toBase64Url(utf8(JSON.stringify([r.createdAt, r.id])));
}

function parseCursor(cursor: string): { createdAt: number; id: string } {
  try {
    const bytes = fromBase64Url(cursor);
    if (bytes === undefined) throw new RangeError('not base64url');
    const parsed = JSON.parse(fromUtf8(bytes)) as unknown;
    const [createdAt, id] = Array.isArray(parsed) ? (parsed as unknown[]) : [];
    if (typeof createdAt === 'number' && typeof id === 'string') return { createdAt, id };
  } catch {
    // falls through to the RangeError
  }
  throw new RangeError('RedisTaskStore: malformed cursor');
}
