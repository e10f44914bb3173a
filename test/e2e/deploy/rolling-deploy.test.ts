/**
 * Issue 28, "rolling deploy, measured": three processes on Redis behind the round-robin proxy,
 * 20 Keel clients calling tools without a break (short calls, 3-second calls with progress, calls
 * that elicit); each process is SIGTERM'd (it drains: sessions handed over as their calls end),
 * waited for and started again, in turn. No call fails, no session is lost, no call hangs; the
 * longest pause (what a call took beyond what it needs) is printed and written to the report.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { redisAvailable } from '../../helpers/redis.js';
import { reportFile, report, startDeployment, type Deployment } from './harness.js';
import { useProcessGuard } from '../../helpers/guard.js';

useProcessGuard();

let deployment: Deployment | undefined;
afterAll(async () => {
  await deployment?.close();
});

describe.skipIf(!redisAvailable())('issue 28: a rolling deploy under load', () => {
  it('each process SIGTERM’d and restarted in turn: 0 failed calls, 0 lost sessions, 0 hung calls', async () => {
    deployment = await startDeployment(20);
    try {
      deployment.startLoad();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const stops: number[] = [];
      for (const i of [0, 1, 2]) {
        stops.push((await deployment.replace(i, 'SIGTERM')).stoppedMs);
        // The load flows through the new process before the next one goes.
        await new Promise((resolve) => setTimeout(resolve, 4_000));
      }
      await deployment.stopLoad();
      const summary = {
        scenario: 'rolling deploy (SIGTERM)',
        drainMs: stops,
        ...report(deployment.calls, deployment.resets),
      };
      const file = reportFile('rolling-deploy');
      writeFileSync(file, JSON.stringify(summary, null, 2));
      console.log(file, JSON.stringify(summary));
      expect(summary.failures).toEqual({});
      expect(summary.failed).toBe(0);
      expect(summary.lostSessions).toBe(0);
      expect(summary.hung).toBe(0);
      expect(summary.timedOut).toBe(0);
      // Every kind of call ran, through all of it.
      expect(Math.min(...Object.values(summary.byKind))).toBeGreaterThan(20);
    } finally {
      // Inside the test: the process guard checks for handles left open right after it.
      await deployment.close();
      deployment = undefined;
    }
  }, 120_000);
});
