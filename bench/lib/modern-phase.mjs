// The 2026-07-28 ("modern") phase: one HTTP server process, no sessions and no handshake.
// `echo` at concurrency 64, then 64 `input_required` round trips in flight (call →
// input_required asking for a sampling → retry with the answer → result). Bounded like every
// window (calls and time).
import { HttpTarget } from './http-driver.mjs';
import { HttpServerProcess } from './http-server-process.mjs';
import { ModernClient } from './modern-driver.mjs';
import { WINDOWS, flatten, withServerState } from './phases.mjs';
import { runWindow, warmUp } from './window.mjs';

export async function modernPhase(file) {
  const server = await HttpServerProcess.start(file);
  const target = new HttpTarget(server.port, 2 * 64 + 4);
  try {
    const pid = server.pid;
    const client = new ModernClient(target);
    await warmUp({ ...WINDOWS.warm, concurrency: 64, call: () => client.echo() });
    await warmUp({ ...WINDOWS.warm, concurrency: 64, call: () => client.roundTrip() });
    const c64 = await runWindow({
      ...WINDOWS.httpConcurrent,
      concurrency: 64,
      pid,
      call: () => client.echo(),
    });
    const rounds = await runWindow({
      ...WINDOWS.httpSampling,
      concurrency: 64,
      pid,
      call: () => client.roundTrip(),
    });
    return { ...flatten('modern.c64', c64), ...flatten('modern.mrtr64', rounds) };
  } catch (error) {
    throw withServerState(error, server);
  } finally {
    target.close();
    await server.stop();
  }
}
