// The 2026-07-28 ("modern") phase: one HTTP server process, no sessions and no handshake.
// `echo` at concurrency 64, then 64 `input_required` round trips in flight (call →
// input_required asking for a sampling → retry with the answer → result), then — for a setup
// that serves tasks (`tasks: true` in setups.mjs) — 64 task round trips in flight (`echo_task`
// answered with a task → `tasks/get` until completed, checked). Bounded like every window (calls
// and time).
import { HttpTarget } from './http-driver.mjs';
import { HttpServerProcess } from './http-server-process.mjs';
import { ModernClient } from './modern-driver.mjs';
import { WINDOWS, flatten, withServerState } from './phases.mjs';
import { runWindow, warmUp } from './window.mjs';

export async function modernPhase(file, { tasks = false } = {}) {
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
    const result = { ...flatten('modern.c64', c64), ...flatten('modern.mrtr64', rounds) };
    if (tasks) {
      // Warmed only now: the task records it leaves (kept 2 s) must not sit in the server's heap
      // while the plain rows above are measured.
      await warmUp({ ...WINDOWS.warm, concurrency: 64, call: () => client.taskRoundTrip() });
      const polls = client.polls;
      const taskRounds = await runWindow({
        ...WINDOWS.httpSampling,
        concurrency: 64,
        pid,
        call: () => client.taskRoundTrip(),
      });
      Object.assign(result, flatten('modern.task64', taskRounds), {
        'modern.task64.polls': (client.polls - polls) / taskRounds.calls,
      });
    }
    return result;
  } catch (error) {
    throw withServerState(error, server);
  } finally {
    target.close();
    await server.stop();
  }
}
