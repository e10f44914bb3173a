/**
 * The 2026-07-28 bench rows measure what they say: every setup with a `modern` server answers the
 * load generator's modern `echo` and its `input_required` round trip (call → input_required
 * asking for one sampling → retry with the answer → complete result), checked per answer; a
 * server that answered something else would fail the window. The bare floor refuses a tampered
 * requestState (it does the signing work Keel does), and the checks reject wrong answers. The
 * setups that serve tasks (issue 25) answer the task round trip: `echo_task` declaring the tasks
 * extension is a task, and `tasks/get` returns it completed with the call's text.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HttpTarget } from '../../bench/lib/http-driver.mjs';
import { HttpServerProcess, type ServerLaunch } from '../../bench/lib/http-server-process.mjs';
import { MAX_POLLS, ModernClient } from '../../bench/lib/modern-driver.mjs';
import { prepareRuntimeSetups } from '../../bench/lib/runtime-setups.mjs';
import { benchSetups } from '../../bench/lib/setups.mjs';
import {
  checkInputRequired,
  checkModernResult,
  checkTaskCreated,
  checkTaskPoll,
  modernEcho,
  modernHeaders,
  modernSampling,
  modernTaskCall,
  modernTaskGet,
  taskGetHeaders,
} from '../../bench/lib/wire-modern.mjs';
import { useProcessGuard, within } from '../helpers/guard.js';
import { ensureInstalled, runtimeAvailable } from './installed-runtimes.js';

const root = new URL('../..', import.meta.url).pathname;
const modernSetups = benchSetups(root).servers.filter((setup) => setup.modern !== undefined);
// Bun and Deno setups as the bench runs them, when their runtime is installed (else left out).
const prepared = await prepareRuntimeSetups(modernSetups, { root, ensure: ensureInstalled });
const launches = new Map(prepared.servers.map((setup) => [setup.key, setup.modern!]));
const reasonFor = (key: string): string =>
  prepared.skipped.find((skipped) => skipped.key === key)?.reason ?? 'no reason given';

describe('bench: 2026-07-28 rows', () => {
  useProcessGuard();
  const running: { server: HttpServerProcess; target: HttpTarget }[] = [];
  afterEach(async () => {
    for (const { server, target } of running.splice(0)) {
      target.close();
      await within(server.stop(), 10_000, 'bench server stop');
    }
  });

  async function start(file: string | ServerLaunch): Promise<ModernClient> {
    const name = typeof file === 'string' ? file : file.file;
    const server = await within(HttpServerProcess.start(file), 20_000, `start ${name}`);
    const target = new HttpTarget(server.port, 4);
    running.push({ server, target });
    return new ModernClient(target);
  }

  it('runs Keel (default and zod), the official SDK v2 and the bare floor', () => {
    expect(modernSetups.map((setup) => setup.key)).toEqual([
      'keel',
      'keelZod',
      'keelIntercepted',
      'keelOtel',
      'keelBun',
      'keelDeno',
      'sdk2',
      'bare',
    ]);
  });

  // `it.for` hands the test context over, to skip a setup whose runtime is not installed (off CI:
  // in CI it fails instead, see installed-runtimes.ts).
  it.for(modernSetups.map((setup) => setup.key))(
    '%s answers modern echo and the input_required round trip',
    async (key, context) => {
      const launch = launches.get(key);
      if (!launch) {
        const runtime = modernSetups.find((setup) => setup.key === key)!.runtime!;
        if (!runtimeAvailable(runtime))
          return context.skip(`${key}: ${runtime} is not installed in .runtimes/`);
        throw new Error(`${key}: ${runtime} is installed but its setup was left out: ${reasonFor(key)}`);
      }
      const client = await start(launch);
      for (let i = 0; i < 3; i++) await within(client.echo());
      for (let i = 0; i < 3; i++) await within(client.roundTrip());
      expect(client.nextId).toBe(1 + 3 + 3 * 2);
    },
  );

  it.each(['keel', 'bare'])('%s refuses a retry whose requestState was tampered with', async (key) => {
    const client = await start(modernSetups.find((setup) => setup.key === key)!.modern!);
    const headers = modernHeaders('wait_sampling');
    const asked = checkInputRequired(
      await within(client.send(modernSampling(1, 'p', undefined), headers, 1)),
      1,
      'p',
    );
    expect(asked.requestState).toEqual(expect.any(String));
    const state = asked.requestState!;
    const tampered = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
    const retry = modernSampling(2, 'p', { key: asked.key, text: 'x', requestState: tampered });
    await expect(within(client.send(retry, headers, 2))).rejects.toThrow(/HTTP 400 .*-32602/);
  });

  it('measures the task round trip on the setups that serve tasks: Keel and Keel with zod', () => {
    expect(modernSetups.filter((setup) => setup.tasks === true).map((setup) => setup.key)).toEqual([
      'keel',
      'keelZod',
    ]);
  });

  it.each(['keel', 'keelZod'])(
    'issue 25: %s answers the task round trip (echo_task is a task, tasks/get returns its result)',
    async (key) => {
      const client = await start(modernSetups.find((setup) => setup.key === key)!.modern!);
      for (let i = 0; i < 3; i++) await within(client.taskRoundTrip());
      // Every round trip polled at least once and at most MAX_POLLS times; ids: 3 calls + the polls.
      expect(client.polls).toBeGreaterThanOrEqual(3);
      expect(client.polls).toBeLessThanOrEqual(3 * MAX_POLLS);
      expect(client.nextId).toBe(1 + 3 + client.polls);
      // The same tool without the extension declared is a plain call (taskSupport: optional).
      const plain = modernEcho(100, 'x').replace('"name":"echo"', '"name":"echo_task"');
      checkModernResult(await within(client.send(plain, modernHeaders('echo_task'), 100)), 100, 'x');
    },
  );

  it('issue 25: one anonymous client runs 120 task round trips in a row (finished tasks leave maxPerOwner)', async () => {
    // maxPerOwner (100) bounds running tasks: finished ones, kept until their TTL, do not count.
    const client = await start(modernSetups.find((setup) => setup.key === 'keel')!.modern!);
    for (let i = 0; i < 120; i++) await within(client.taskRoundTrip());
    expect(client.polls).toBeGreaterThanOrEqual(120);
  });

  it('issue 25: a tasks/get whose Mcp-Name is not the task id is refused, and the round trip fails on it', async () => {
    const client = await start(modernSetups.find((setup) => setup.key === 'keel')!.modern!);
    const taskId = checkTaskCreated(
      await within(client.send(modernTaskCall(1, 't'), modernHeaders('echo_task'), 1)),
      1,
    );
    await expect(
      within(client.send(modernTaskGet(2, taskId), taskGetHeaders('another-task'), 2)),
    ).rejects.toThrow(/tasks\/get: HTTP 400 .*-32020/);
    const done = await within(client.send(modernTaskGet(3, taskId), taskGetHeaders(taskId), 3));
    expect(checkTaskPoll(done, 3, taskId, 't')).toBe(true);
  });

  it('the task checks reject an answer that is not the expected one', () => {
    const created = { id: 1, result: { resultType: 'task', taskId: 'T', status: 'working' } };
    expect(checkTaskCreated(created, 1)).toBe('T');
    expect(() => checkTaskCreated({ ...created, id: 2 }, 1)).toThrow(/expected a created task/);
    expect(() =>
      checkTaskCreated({ id: 1, result: { ...created.result, resultType: 'complete' } }, 1),
    ).toThrow(/expected a created task/);
    expect(() => checkTaskCreated({ id: 1, result: { ...created.result, status: 'failed' } }, 1)).toThrow(
      /expected a created task/,
    );
    const task = (status: string, text?: string) => ({
      id: 5,
      result: {
        resultType: 'complete',
        taskId: 'T',
        status,
        ...(text === undefined ? {} : { result: { content: [{ type: 'text', text }] } }),
      },
    });
    expect(checkTaskPoll(task('working'), 5, 'T', 't')).toBe(false);
    expect(checkTaskPoll(task('completed', 't'), 5, 'T', 't')).toBe(true);
    expect(() => checkTaskPoll(task('completed', 'other'), 5, 'T', 't')).toThrow(/completed with "t"/);
    expect(() => checkTaskPoll(task('completed'), 5, 'T', 't')).toThrow(/completed with "t"/);
    expect(() => checkTaskPoll(task('failed'), 5, 'T', 't')).toThrow(/completed with "t"/);
    expect(() => checkTaskPoll(task('completed', 't'), 5, 'U', 't')).toThrow(/expected task U/);
    expect(() => checkTaskPoll(task('completed', 't'), 6, 'T', 't')).toThrow(/expected task T for id 6/);
  });

  it('the checks reject an answer that is not the expected one', () => {
    const complete = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 't' }] } };
    expect(() => checkModernResult(complete, 1, 't')).toThrow(/not "complete"/);
    expect(() =>
      checkModernResult({ ...complete, result: { ...complete.result, resultType: 'complete' } }, 1, 't'),
    ).not.toThrow();
    expect(() => checkInputRequired({ ...complete, result: { resultType: 'complete' } }, 1, 'p')).toThrow(
      /expected input_required/,
    );
    const ask = (text: string) => ({
      id: 1,
      result: {
        resultType: 'input_required',
        inputRequests: {
          k: {
            method: 'sampling/createMessage',
            params: { messages: [{ content: { type: 'text', text } }] },
          },
        },
      },
    });
    expect(checkInputRequired(ask('p'), 1, 'p')).toEqual({ key: 'k', requestState: undefined });
    expect(() => checkInputRequired(ask('other'), 1, 'p')).toThrow(/expected input_required/);
  });
});
