// Runs the smoke worker on workerd (started by the runtime runner under Node): bundles worker.mjs
// and the built package into one ES module, writes a workerd config for a free loopback port,
// starts workerd and prints the URL once it answers. Usage: node workerd.mjs <workerd binary> <work dir>
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const [bin, workDir] = process.argv.slice(2);
const READY = { tries: 100, everyMs: 100 };

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

mkdirSync(workDir, { recursive: true });
// Rolldown is the bundler vite (and so vitest) already installs; 'browser' keeps Node builtins out.
const bundle = await rolldown({
  input: fileURLToPath(new URL('worker.mjs', import.meta.url)),
  platform: 'browser',
});
await bundle.write({ file: join(workDir, 'worker.mjs'), format: 'esm', codeSplitting: false });
await bundle.close();

const port = await freePort();
writeFileSync(
  join(workDir, 'config.capnp'),
  `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .smokeWorker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const smokeWorker :Workerd.Worker = (
  modules = [ (name = "worker.mjs", esModule = embed "worker.mjs") ],
  compatibilityDate = "2026-11-01",
  # request.signal aborts when the client disconnects: what ends a modern request on HTTP.
  compatibilityFlags = ["enable_request_signal"],
);
`,
);

const child = spawn(bin, ['serve', join(workDir, 'config.capnp')], {
  stdio: ['ignore', 'inherit', 'inherit'],
});
const stop = () => child.kill('SIGTERM');
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
child.once('exit', (code, signal) => {
  console.error(`workerd exited (${code ?? signal})`);
  process.exit(code ?? 0);
});

const base = `http://127.0.0.1:${port}`;
for (let attempt = 0; ; attempt += 1) {
  try {
    await (await fetch(`${base}/ready`)).text();
    break;
  } catch (error) {
    if (attempt >= READY.tries) throw new Error(`workerd did not answer on ${base}`, { cause: error });
    await new Promise((resolve) => setTimeout(resolve, READY.everyMs));
  }
}
console.log(`KEEL_SMOKE_URL ${base}/mcp`);
