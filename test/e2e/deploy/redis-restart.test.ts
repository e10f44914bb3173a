/**
 * Issue 28, "Redis restart": the rolling deploy's load while Redis restarts empty (no
 * persistence). Sessions continue once it is back (their owners make their records again); what
 * clients see meanwhile is counted and written to the report (docs/scale-out.md, "When Redis is
 * down"): calls in flight over the relay, or whose stored events were lost, fail with a clear error.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ConnectionClosedError, ErrorCode, McpError } from 'keel-mcp/core';
import { redisAvailable } from '../../helpers/redis.js';
import { reportFile, report, startDeployment, type Deployment } from './harness.js';
import { useProcessGuard } from '../../helpers/guard.js';

useProcessGuard();

let deployment: Deployment | undefined;
afterAll(async () => {
  await deployment?.close();
});

describe.skipIf(!redisAvailable())('issue 28: Redis restarting under load', () => {
  it('Redis restarted empty mid-load: no session is lost; calls in flight over the relay fail clearly; then all goes on', async () => {
    deployment = await startDeployment(20);
    try {
      deployment.startLoad();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const restartAt = Date.now();
      await deployment.redis.restart();
      const backAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      await deployment.stopLoad();
      const summary = {
        scenario: 'Redis restart (empty)',
        outageMs: backAt - restartAt,
        ...report(deployment.calls, deployment.resets),
      };
      const file = reportFile('redis-restart');
      writeFileSync(file, JSON.stringify(summary, null, 2));
      console.log(file, JSON.stringify(summary));

      expect(summary.lostSessions).toBe(0);
      expect(summary.hung).toBe(0);
      // What may fail: calls that were crossing the relay when its connection dropped (-32000), or
      // whose stream was cut then and whose stored events went with the restart (the resume gets
      // 400: ConnectionClosedError "the response to this request was lost"); nothing that started
      // after Redis was back (plus the 5 s the processes take to notice).
      for (const call of deployment.calls.filter((c) => c.error !== undefined)) {
        const clear =
          (call.error instanceof McpError && call.error.code === ErrorCode.ConnectionClosed) ||
          call.error instanceof ConnectionClosedError;
        expect(clear, String(call.error)).toBe(true);
        expect(call.start).toBeLessThan(backAt + 5_000);
      }
      const after = deployment.calls.filter((call) => call.start > backAt + 5_000);
      expect(after.length).toBeGreaterThan(20);
      expect(after.filter((call) => call.error !== undefined)).toEqual([]);
    } finally {
      // Inside the test: the process guard checks for handles left open right after it.
      await deployment.close();
      deployment = undefined;
    }
  }, 120_000);
});
