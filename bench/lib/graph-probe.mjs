// Run in a fresh process: imports <specifier> and prints the files it loaded (ESM loader and
// CommonJS cache), their total size on disk and the gzip size of their concatenation — what a
// deployment of that entry point has to ship and parse.
import { readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';

const { port1, port2 } = new MessageChannel();
const files = new Set();
port1.on('message', (url) => files.add(fileURLToPath(url)));
register('./graph-hooks.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });
await import(process.argv[2]);
await new Promise((resolve) => setTimeout(resolve, 100));
port1.close();
for (const file of Object.keys(createRequire(import.meta.url).cache)) files.add(file);
files.delete(fileURLToPath(import.meta.url));
const contents = [...files].map((file) => readFileSync(file));
const bytes = contents.reduce((sum, buffer) => sum + buffer.length, 0);
const packages = new Set();
for (const file of files) {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(
    file.split('node_modules/').length > 2 ? file.slice(file.lastIndexOf('node_modules/')) : file,
  );
  if (match) packages.add(match[1]);
}
process.stdout.write(
  JSON.stringify({
    files: files.size,
    bytes,
    gzip: gzipSync(Buffer.concat(contents)).length,
    packages: [...packages].sort(),
  }),
);
