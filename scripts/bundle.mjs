// Bundles the compiled package (dist/src, from `tsc`) into dist/pkg: one file per entry point of
// package.json "exports", plus the chunks they share (so a class is still one class for every
// entry point: `instanceof` holds across keel-mcp/server, keel-mcp/client and keel-mcp/core).
//
// Why: Node loads an ES module file by file, and a stdio server imported ~120 of them, which
// made spawn → initialize answer 1.9× a bare script (issue 14). Bundled, it loads a handful.
// Dependencies stay external (they are installed beside us), except the two in INLINED; nothing is
// minified, so stack traces and profiles stay readable, and source maps lead back through dist/src
// to the TypeScript.
//
// Usage: node scripts/bundle.mjs   (run by `npm run build`, after tsc)
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(root, 'dist/pkg');

/** The entry points: package.json "exports" → the name of each bundle and the tsc output it starts from. */
function entryPoints(pkg) {
  const input = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const name = subpath === '.' ? 'index' : subpath.slice(2);
    const match = /^\.\/dist\/pkg\/(.+)\.js$/.exec(target.default);
    if (!match || match[1] !== name)
      throw new Error(`exports["${subpath}"].default must be ./dist/pkg/${name}.js`);
    input[name] = join(root, target.types.replace(/\.d\.ts$/, '.js'));
  }
  return input;
}

// Hands rolldown each file with the source map tsc wrote for it, so the bundle's maps point at
// src/**/*.ts, not at the intermediate JavaScript.
const withInputMaps = {
  name: 'keel-input-source-maps',
  load(id) {
    if (!id.startsWith(join(root, 'dist/src')) || !id.endsWith('.js')) return null;
    const code = readFileSync(id, 'utf8');
    const mapFile = `${id}.map`;
    return existsSync(mapFile) ? { code, map: readFileSync(mapFile, 'utf8') } : { code };
  },
};

// Dependencies copied into the bundles rather than imported from node_modules. Node resolves each
// package and loads each of its files at start-up: for these two (10 files) that was ~5 ms of a
// stdio server's ~80 ms spawn → initialize answer (issue 14). Both are small, have no
// dependencies of their own and are pinned exactly in package.json; they stay declared there
// because the `keel` CLI (dist/src) and the type declarations still import them.
const INLINED = ['@cfworker/json-schema', 'url-template'];

const isExternal = (id) =>
  !id.startsWith('.') &&
  !id.startsWith('/') &&
  !id.startsWith('\0') &&
  !INLINED.some((name) => id === name || id.startsWith(`${name}/`));

// The HTTP host, the HTTP transport and the framework adapters get a chunk of their own: a stdio
// server never loads them (~160 KB of code that Node would otherwise parse at every start). The
// HTTP client's error classes go with them: they live in core only so that the client layer can
// read them without importing the transport.
const WEB_ONLY =
  /[\\/]dist[\\/]src[\\/]((hosts|transports)[\\/]http[\\/]|adapters[\\/]|core[\\/]http-errors\.js$)/;

// The client layer (what only a client runs): the root entry shares it with keel-mcp/client.
const CLIENT = /[\\/]dist[\\/]src[\\/]client[\\/]/;

/** The licence of each inlined package, which its terms ask to travel with the copy. */
function thirdPartyNotices() {
  const sections = INLINED.map((name) => {
    const dir = join(root, 'node_modules', name);
    const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const licenceFile = ['LICENSE', 'LICENSE.md', 'LICENCE'].map((f) => join(dir, f)).find(existsSync);
    const author = typeof meta.author === 'string' ? meta.author : meta.author?.name;
    let text;
    if (licenceFile) text = readFileSync(licenceFile, 'utf8').trim();
    else if (meta.license === 'MIT') text = mitLicence(author);
    else throw new Error(`${name}: no licence file and licence "${meta.license}": add its text here`);
    return `## ${name} ${meta.version}\n\n${text}\n`;
  });
  return `# Third-party code in dist/pkg\n\nThese packages are bundled into Keel's entry points (scripts/bundle.mjs).\n\n${sections.join('\n')}`;
}

/** The MIT licence, for a package that declares it in package.json but ships no licence file. */
function mitLicence(holder) {
  return `MIT License (declared in its package.json; the package ships no licence file)

Copyright (c) ${holder}

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES
OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.`;
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const input = entryPoints(pkg);
rmSync(OUT, { recursive: true, force: true });
await build({
  input,
  platform: 'node',
  // Bare specifiers (dependencies, node:*) are the user's install, not ours to copy.
  external: isExternal,
  plugins: [withInputMaps],
  output: {
    dir: OUT,
    format: 'esm',
    sourcemap: true,
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    // Every module two or more entry points use goes into one of three shared chunks (web-only
    // code, the client, and the rest): fewer files for Node to load (each costs ~0.25 ms at start)
    // than a chunk per combination of entry points. The client has its own because the root entry
    // `keel-mcp` holds McpClient beside McpServer: in the common chunk, every stdio server would
    // load the client's code too.
    codeSplitting: {
      groups: [
        // First (a group also takes the modules its own import): core and server stay here.
        {
          name: 'shared',
          test: (id) => !WEB_ONLY.test(id) && !CLIENT.test(id),
          minShareCount: 2,
          priority: 3,
        },
        { name: 'client', test: (id) => CLIENT.test(id), minShareCount: 2, priority: 2 },
        { name: 'http', minShareCount: 2, priority: 1 },
      ],
    },
  },
});
writeFileSync(join(OUT, 'THIRD-PARTY-NOTICES.md'), thirdPartyNotices());
console.log(`bundled ${Object.keys(input).length} entry points into ${relative(root, OUT)}`);
