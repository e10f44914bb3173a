// The setups served by another runtime than this Node (`runtime: 'bun' | 'deno'` in setups.mjs):
// the runtime is installed by the runtime matrix's own installer (scripts/runtimes: the pinned npm
// package into `.runtimes/`, nothing fetched from elsewhere) and started with the matrix's own
// command line, so the benchmark runs exactly what `npm run runtimes` smoke-tests. A setup whose
// runtime cannot be installed is left out of the run, with the reason kept for the report.
import { join } from 'node:path';
import { ensureRuntime as installRuntime } from '../../scripts/runtimes/lib/install.mjs';
import { commandFor } from '../../scripts/runtimes/lib/launch.mjs';

/** Which server mode each phase runs: the argument before the port (bench/servers/runtime-args.mjs). */
const PHASE_MODES = { http: 'sessions', stateless: 'stateless', modern: 'sessions' };

/**
 * `servers` with every runtime setup's phase files turned into launch commands
 * (`{ command, args, file }`, the port is appended by HttpServerProcess); setups whose runtime
 * failed to install are dropped and listed in `skipped` as `{ key, label, reason }` (one line, pointing
 * at npm's log). `ensure`
 * replaces the installer in tests.
 *
 * @example
 * const { servers, skipped } = await prepareRuntimeSetups(benchSetups(root).servers, { root });
 */
export async function prepareRuntimeSetups(servers, { root, log = () => {}, ensure = installRuntime }) {
  const cacheDir = join(root, '.runtimes');
  const logDir = join(cacheDir, 'logs');
  const ready = [];
  const skipped = [];
  for (const server of servers) {
    if (!server.runtime) {
      ready.push(server);
      continue;
    }
    let bin;
    try {
      bin = await ensure(cacheDir, server.runtime, { logDir, log });
    } catch (error) {
      const reason = `${firstLine(error)} (npm's output: .runtimes/logs/install-${server.runtime}.log)`;
      log(`${server.key} left out: ${reason}`);
      skipped.push({ key: server.key, label: server.label, reason });
      continue;
    }
    const launches = {};
    for (const [phase, mode] of Object.entries(PHASE_MODES)) {
      const file = server[phase];
      if (!file) continue;
      const { command, args } = commandFor(server.runtime, bin, { root, cacheDir, server: file });
      launches[phase] = { command, args: [...args, mode], file };
    }
    ready.push({ ...server, ...launches });
  }
  return { servers: ready, skipped };
}

/** The installer's message up to npm's output, which is in the install log: one report line. */
function firstLine(error) {
  const message = String(error instanceof Error ? error.message : error).split('\n')[0];
  return message.replace(/; npm said:$/, '');
}
