// Run in a fresh process: prints how long `import(<specifier>)` takes, in ms.
import { performance } from 'node:perf_hooks';

const t0 = performance.now();
await import(process.argv[2]);
process.stdout.write(JSON.stringify({ ms: performance.now() - t0 }));
