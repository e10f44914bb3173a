/**
 * Issue 24: the bench row "HTTP with sessions, one session, 64 `echo` in flight" measures what it
 * says on every setup that runs it: each server with sessions answers 64 concurrent calls carrying
 * ONE session id, every answer checked (right id, right text); and the report shows the row and
 * its target (≤ 1.15× bare) with a status computed like the other targets.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpSession, HttpTarget } from '../../bench/lib/http-driver.mjs';
import { HttpServerProcess } from '../../bench/lib/http-server-process.mjs';
import { writeReport } from '../../bench/lib/report.mjs';
import { benchSetups } from '../../bench/lib/setups.mjs';
import { useProcessGuard, within } from '../helpers/guard.js';
import { TEST_RUN_INFO } from './run-info.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
// The Node setups with sessions (Bun and Deno need their runtime; runtime-setups.test.ts covers them).
const setups = benchSetups(root).servers.filter((setup) => setup.http !== undefined && !setup.runtime);

describe('bench: one session, 64 calls in flight', () => {
  useProcessGuard();
  const running: { server: HttpServerProcess; target: HttpTarget }[] = [];
  let dir: string | undefined;
  afterEach(async () => {
    for (const { server, target } of running.splice(0)) {
      target.close();
      await within(server.stop(), 10_000, 'bench server stop');
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it.for(setups.map((setup) => [setup.key, setup.http!] as const))(
    '%s answers 64 concurrent calls on one session, each checked',
    async ([, file]) => {
      const server = await within(HttpServerProcess.start(file), 20_000, `start ${file}`);
      const target = new HttpTarget(server.port, 2 * 64 + 4);
      running.push({ server, target });
      const session = await within(new HttpSession(target).open(), 10_000, 'handshake');
      expect(session.sessionId).toEqual(expect.any(String));
      const calls = Array.from({ length: 64 }, () => session.echo());
      await within(Promise.all(calls), 20_000, '64 calls on one session');
      await within(session.close(), 10_000, 'DELETE');
    },
  );

  it('reports the row and its target, ≤ 1.15× bare, with a status', async () => {
    const { servers, entries } = benchSetups(root);
    dir = mkdtempSync(join(tmpdir(), 'keel-bench-one-session-'));
    const out = join(dir, 'report.md');
    await writeReport(out, {
      info: TEST_RUN_INFO,
      servers,
      entries,
      results: { 'http.one64.cpu': { keel: [36, 30], keelZod: [44, 44], bare: [24, 25] } },
      errors: [],
      modules: {},
      profiles: [],
    });
    const markdown = readFileSync(out, 'utf8');
    const name = 'HTTP with sessions, one session, 64 `echo` in flight: server CPU per call';
    const cells = (first: string): string[] | undefined =>
      markdown
        .split('\n')
        .find((line) => line.startsWith(`| ${first} `))
        ?.split('|')
        .slice(1, -1)
        .map((c) => c.trim());
    // 36/24 = 1.5, 30/25 = 1.2: median 1.35× > 1.15×.
    expect(cells(name)).toEqual([name, 'Keel 0.1.0', '≤ 1.15× bare', '1.35× (1.20×–1.50×)', '**missed**']);
    expect(markdown).toContain('### HTTP with sessions — `echo`, one session, 64 calls in flight');
    expect(cells('HTTP one session, 64 in flight')).toBeDefined();
  });
});
