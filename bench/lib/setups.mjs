// The setups the benchmark compares, each a server per transport (a file run as `node <file>`).
// A setup without a file for a phase is not run in it. Keel's files are exactly what its package
// scripts start. The order is the interleaving order, and the order of the rows in the report.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUNTIMES } from '../../scripts/runtimes/lib/install.mjs';

/**
 * Keel's bench servers are exactly what the package scripts start: `node <file>`.
 *
 * @example
 * scriptFile(root, pkg, 'bench:stdio'); // <root>/dist/bench/servers/keel-stdio.js
 */
export function scriptFile(root, pkg, name) {
  const script = pkg.scripts?.[name];
  const match = /^node (\S+)$/.exec(script ?? '');
  if (!match)
    throw new Error(
      `package.json script ${name} must be exactly "node <file>", is ${JSON.stringify(script)}`,
    );
  return join(root, match[1]);
}

function versionOf(root, name) {
  return JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** Keel's web handler served natively by Bun (`Bun.serve`) or Deno (`Deno.serve`). */
function nativeSetup(bench, runtime) {
  const name = runtime === 'bun' ? 'Bun' : 'Deno';
  const file = join(bench, 'servers', `keel-http-${runtime}.mjs`);
  return {
    key: runtime === 'bun' ? 'keelBun' : 'keelDeno',
    label: `Keel on ${name} ${RUNTIMES[runtime].version}`,
    what: `the default Keel server (the built \`dist/\`) and its \`createHttpHandler\`, served by \`${name}.serve\` on ${name} ${RUNTIMES[runtime].version}, which builds the web \`Request\`/\`Response\` objects natively (no bridge); ${name} is the runtime matrix's pinned npm package (\`${RUNTIMES[runtime].pkg}\`), installed into \`.runtimes/\` by \`scripts/runtimes\`, and serves through the matrix's own serving code; the load generator stays on Node`,
    runtime,
    http: file,
    stateless: file,
    modern: file,
  };
}

/**
 * `servers`: every setup, with `label` (a row of the report), `what` (one line saying exactly
 * what it runs), optional `stdio` / `http` / `stateless` / `modern` (2026-07-28 requests over HTTP)
 * files, `memory` (run in the idle-session
 * memory phase) and `sampling` (false: HTTP answers are plain JSON, so `wait_sampling` cannot be
 * served on the call's own stream and is not measured), `tasks` (true: its 2026-07-28 server has
 * the task tool `echo_task`, and the modern phase measures the task round trip; not the SDKs nor
 * bare, which have no such tool, nor the baseline build, which may predate tasks), `runtime`
 * (`bun` / `deno`: the files are served by that runtime, see runtime-setups.mjs). `entries`:
 * import-cost probes.
 */
export function benchSetups(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const bench = join(root, 'bench');
  const script = (name) => scriptFile(root, pkg, name);
  const sdk1 = versionOf(root, '@modelcontextprotocol/sdk');
  const sdk2 = `server ${versionOf(root, '@modelcontextprotocol/server')}, node ${versionOf(root, '@modelcontextprotocol/node')}`;
  const servers = [
    {
      key: 'keel',
      label: `Keel ${pkg.version}`,
      what: 'raw JSON Schema tool inputs; `serveStdio` / `serveHttp` (the `node:http` fast path); HTTP answers are JSON unless a call must stream; besides `echo` and `wait_sampling` the server has the task tool `echo_task` (`taskSupport: optional`), as every Keel bench server does, so the plain-call rows are measured with a task tool registered',
      stdio: script('bench:stdio'),
      http: script('bench:http'),
      stateless: script('bench:http-stateless'),
      modern: script('bench:http'),
      memory: true,
      tasks: true,
    },
    {
      key: 'keelZod',
      label: 'Keel, zod tools',
      what: 'the same server with zod 4 tool inputs (converted to JSON Schema once at registration; every call validated by zod)',
      stdio: script('bench:stdio-zod'),
      http: script('bench:http-zod'),
      stateless: script('bench:http-stateless-zod'),
      modern: script('bench:http-zod'),
      tasks: true,
    },
    {
      key: 'keelIntercepted',
      label: 'Keel, 3 no-op interceptors',
      what: 'the default Keel server with three no-op interceptors `(call, next) => next()` registered with `server.use` (issue 26): the cost of the interceptor chain on every request',
      stdio: join(root, 'dist/bench/servers/keel-intercepted-stdio.js'),
      http: join(root, 'dist/bench/servers/keel-intercepted-http.js'),
      modern: join(root, 'dist/bench/servers/keel-intercepted-http.js'),
    },
    {
      key: 'keelOtel',
      label: 'Keel, OpenTelemetry on',
      what: 'the default Keel server with `serverTelemetry()` (`keel-mcp/telemetry`) and the OpenTelemetry SDK registered as in production (`NodeTracerProvider` with its AsyncLocalStorage context manager, `BatchSpanProcessor`, `MeterProvider` with a periodic reader) exporting to in-memory exporters (issue 26): the cost of one server span and one duration point per request, no network',
      stdio: join(root, 'dist/bench/servers/keel-otel-stdio.js'),
      http: join(root, 'dist/bench/servers/keel-otel-http.js'),
      modern: join(root, 'dist/bench/servers/keel-otel-http.js'),
    },
    {
      key: 'keelWeb',
      label: 'Keel via web Request/Response',
      what: "the default Keel server's `createHttpHandler` called with web `Request` objects and answering `Response`s, bridged to `node:http` by Keel's generic fetch bridge (what Hono on Node does; Bun and Deno build these objects natively)",
      http: script('bench:http-web'),
    },
    ...['bun', 'deno'].map((runtime) => nativeSetup(bench, runtime)),
    {
      key: 'sdk1',
      label: `SDK 1.x (${sdk1})`,
      what: '`@modelcontextprotocol/sdk` `McpServer` with zod tool inputs; HTTP answers are SSE streams (its default)',
      stdio: join(bench, 'official/sdk1-stdio.mjs'),
      http: join(bench, 'official/sdk1-http.mjs'),
      stateless: join(bench, 'official/sdk1-http-stateless.mjs'),
      memory: true,
    },
    {
      key: 'sdk1Json',
      label: 'SDK 1.x, JSON answers',
      what: 'the same with `enableJsonResponse: true`: a POST is answered with one JSON body',
      http: join(bench, 'official/sdk1-http-json.mjs'),
      stateless: join(bench, 'official/sdk1-http-stateless-json.mjs'),
      sampling: false,
    },
    {
      key: 'sdk2',
      label: `SDK v2 (${sdk2})`,
      what: '`@modelcontextprotocol/server` `McpServer` with zod 4 tool inputs, `@modelcontextprotocol/node` transport; HTTP answers are SSE streams (its default)',
      stdio: join(bench, 'official/sdk2-stdio.mjs'),
      http: join(bench, 'official/sdk2-http.mjs'),
      stateless: join(bench, 'official/sdk2-http-stateless.mjs'),
      modern: join(bench, 'official/sdk2-http-modern.mjs'),
      memory: true,
    },
    {
      key: 'sdk2Json',
      label: 'SDK v2, JSON answers',
      what: 'the same with `enableJsonResponse: true`: a POST is answered with one JSON body',
      http: join(bench, 'official/sdk2-http-json.mjs'),
      stateless: join(bench, 'official/sdk2-http-stateless-json.mjs'),
      sampling: false,
    },
    {
      key: 'bare',
      label: 'Bare limit',
      what: 'hand-written scripts with no validation (`bench/bare/`): the cost of the transport itself, writing as Keel does (one write per tick on stdio, Content-Length bodies on HTTP)',
      stdio: join(bench, 'bare/stdio.mjs'),
      http: join(bench, 'bare/http-stateful.mjs'),
      stateless: join(bench, 'bare/http-stateless.mjs'),
      modern: join(bench, 'bare/http-modern.mjs'),
      memory: true,
    },
  ];
  const entries = [
    { key: 'keel', label: 'keel-mcp/server', specifier: 'keel-mcp/server' },
    {
      key: 'sdk1',
      label: '@modelcontextprotocol/sdk/server/mcp.js',
      specifier: '@modelcontextprotocol/sdk/server/mcp.js',
    },
    { key: 'sdk2', label: '@modelcontextprotocol/server', specifier: '@modelcontextprotocol/server' },
  ];
  return { pkg, servers, entries };
}
