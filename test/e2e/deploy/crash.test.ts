/**
 * Issue 28, "crash, measured": the rolling deploy's load, but each process is SIGKILLed (no
 * shutdown code runs) and started again. Only calls that were running when a process died may
 * fail, each with a clear error (`McpError` -32000 "the server process holding this session
 * stopped", or `ConnectionClosedError` when the client's own connection went to the dead process)
 * within the relay's liveness bound; every session goes on (adopted by another process); nothing
 * hangs.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ConnectionClosedError, ErrorCode, McpError } from 'keel-mcp/core';
import { redisAvailable } from '../../helpers/redis.js';
import { reportFile, report, startDeployment, type Deployment } from './harness.js';
import { useProcessGuard } from '../../helpers/guard.js';

/**
 * A failed call fails within this long of the kill: the relay's check interval (1 s) plus its
 * liveness window (5 s, after which the session is adopted and a resumed stream answered), plus
 * 4 s for the client's reconnection and a busy machine.
 */
const FAIL_BOUND_MS = 10_000;

useProcessGuard();

let deployment: Deployment | undefined;
afterAll(async () => {
  await deployment?.close();
});

describe.skipIf(!redisAvailable())('issue 28: processes crashing under load', () => {
  it('each process SIGKILLed in turn: only calls running on it fail, each clearly and in bounded time; every session goes on', async () => {
    deployment = await startDeployment(20);
    try {
      deployment.startLoad();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      // A kill's window: from the signal until the process was gone (calls that began in it ran there too).
      const kills: { at: number; gone: number }[] = [];
      for (const i of [0, 1, 2]) {
        const at = Date.now();
        const { stoppedMs } = await deployment.replace(i, 'SIGKILL');
        kills.push({ at, gone: at + stoppedMs });
        await new Promise((resolve) => setTimeout(resolve, 8_000));
      }
      // Past the last failure bound, so what follows shows the sessions going on.
      await new Promise((resolve) => setTimeout(resolve, FAIL_BOUND_MS));
      await deployment.stopLoad();
      const summary = { scenario: 'crash (SIGKILL)', ...report(deployment.calls, deployment.resets) };
      const file = reportFile('crash');
      writeFileSync(file, JSON.stringify(summary, null, 2));
      console.log(file, JSON.stringify(summary));

      expect(summary.lostSessions).toBe(0);
      expect(summary.hung).toBe(0);
      const failed = deployment.calls.filter((call) => call.error !== undefined);
      for (const call of failed) {
        // It was running when a process was killed, and failed within the bound after that kill.
        const kill = kills.find(({ at, gone }) => call.start <= gone && call.end! >= at);
        const since = kills.map(
          ({ at, gone }) => `${call.start - at} ms after kill (${gone - at} ms to exit)`,
        );
        expect(
          kill,
          `a ${call.kind} call that was not running at any kill failed: ${String(call.error)}; it started ${since.join(', ')}, ended ${call.end! - call.start} ms later (start ${call.start}, client ${call.client})`,
        ).toBeDefined();
        expect(call.end! - kill!.at).toBeLessThan(FAIL_BOUND_MS);
        const clear =
          (call.error instanceof McpError && call.error.code === ErrorCode.ConnectionClosed) ||
          call.error instanceof ConnectionClosedError;
        expect(clear, String(call.error)).toBe(true);
      }
      // Calls went on after the last kill, in the same sessions.
      const last = kills.at(-1)!.at;
      expect(
        deployment.calls.filter((call) => call.start > last + FAIL_BOUND_MS && call.error === undefined)
          .length,
      ).toBeGreaterThan(20);
    } finally {
      // Inside the test: the process guard checks for handles left open right after it.
      await deployment.close();
      deployment = undefined;
    }
  }, 120_000);
});
