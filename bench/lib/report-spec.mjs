// What BENCHMARKS.md shows: number formats, the rows of the results table, the CPU ratios and
// the targets, plus the two helpers that turn measurements into cells and ratios.
import { summary } from './stats.mjs';

export const SAMPLED = new Set(['spawn.ms', 'import.ms']);

export const fmt = {
  rate: (v) => Math.round(v).toLocaleString('en-US'),
  ms: (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)),
  us: (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1)),
  kb: (v) => (v / 1024).toFixed(2),
  mb: (v) => (v / 1024 / 1024).toFixed(1),
  ratio: (v) => `${v.toFixed(2)}×`,
  count: (v) => v.toFixed(2),
};

/** `median (min–max)` of a list, or `—`. */
export function cell(values, format) {
  const s = summary(values ?? []);
  if (s.n === 0) return '—';
  if (s.n === 1 || format(s.min) === format(s.max)) return format(s.median);
  return `${format(s.median)} (${format(s.min)}–${format(s.max)})`;
}

/** Ratios a ÷ b: per repetition when both are per-repetition values, else of the medians. */
export function ratios(metric, a, b) {
  if (!a || !b) return [];
  if (SAMPLED.has(metric)) {
    const ma = summary(a).median;
    const mb = summary(b).median;
    return [ma / mb];
  }
  const out = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (Number.isFinite(a[i]) && Number.isFinite(b[i]) && b[i] > 0) out.push(a[i] / b[i]);
  }
  return out;
}

/**
 * The results, one table per measurement: a row per setup that ran it, a column per figure.
 * `[label, metric, format, ratio]`: with `ratio` true the figure is followed by a "÷ bare"
 * column (the setup's figure over the bare limit's, paired per repetition); with `ratio` =
 * `{ over, label }` by a column `label`: the figure over the same setup's `over` figure, paired
 * per repetition (`—` where the setup has either figure missing).
 */
export const PHASES = [
  {
    title: 'stdio — sequential `echo` (1 in flight)',
    columns: [
      ['calls/s', 'stdio.seq.rate', fmt.rate],
      ['p50, ms', 'stdio.seq.p50', fmt.ms],
      ['p99, ms', 'stdio.seq.p99', fmt.ms],
      ['server CPU per call, µs', 'stdio.seq.cpu', fmt.us, true],
    ],
  },
  {
    title: 'stdio — 64 `echo` calls in flight',
    columns: [
      ['calls/s', 'stdio.c64.rate', fmt.rate],
      ['p99, ms', 'stdio.c64.p99', fmt.ms],
      ['server CPU per call, µs', 'stdio.c64.cpu', fmt.us, true],
    ],
  },
  {
    title: 'stdio — 64 `wait_sampling` calls in flight (each answers a sampling request)',
    columns: [
      ['calls/s', 'stdio.samp64.rate', fmt.rate],
      ['p99, ms', 'stdio.samp64.p99', fmt.ms],
      ['server CPU per call, µs', 'stdio.samp64.cpu', fmt.us, true],
    ],
  },
  {
    title: 'stdio — process',
    columns: [
      ['spawn → initialize answer, ms', 'spawn.ms', fmt.ms, true],
      ['peak RSS (VmHWM) after the stdio windows, MB', 'stdio.hwm', fmt.mb, true],
    ],
  },
  {
    title: 'HTTP with sessions — `echo`, concurrency 1',
    columns: [
      ['req/s', 'http.c1.rate', fmt.rate],
      ['p50, ms', 'http.c1.p50', fmt.ms],
      ['p99, ms', 'http.c1.p99', fmt.ms],
      ['server CPU per call, µs', 'http.c1.cpu', fmt.us, true],
    ],
  },
  {
    title: 'HTTP with sessions — `echo`, concurrency 64 (64 sessions)',
    columns: [
      ['req/s', 'http.c64.rate', fmt.rate],
      ['p50, ms', 'http.c64.p50', fmt.ms],
      ['p99, ms', 'http.c64.p99', fmt.ms],
      ['server CPU per call, µs', 'http.c64.cpu', fmt.us, true],
    ],
  },
  {
    title: 'HTTP with sessions — `echo`, one session, 64 calls in flight',
    note: 'One client running tools in parallel, as agents do: one initialized session, 64 concurrent `tools/call` POSTs carrying its session id, 64 kept in flight for the window.',
    columns: [
      ['req/s', 'http.one64.rate', fmt.rate],
      ['p50, ms', 'http.one64.p50', fmt.ms],
      ['p99, ms', 'http.one64.p99', fmt.ms],
      ['server CPU per call, µs', 'http.one64.cpu', fmt.us, true],
    ],
  },
  {
    title: 'HTTP with sessions — `wait_sampling`, concurrency 64 (SSE answer + POSTed sampling result)',
    note: 'Not measured for the JSON-answer setups: with `enableJsonResponse` the call is answered with one JSON body, so the sampling request has no stream of the call to travel on.',
    columns: [
      ['calls/s', 'http.samp64.rate', fmt.rate],
      ['p50, ms', 'http.samp64.p50', fmt.ms],
      ['p99, ms', 'http.samp64.p99', fmt.ms],
      ['server CPU per call (both POSTs), µs', 'http.samp64.cpu', fmt.us, true],
    ],
  },
  {
    title: 'HTTP stateless — `echo`, concurrency 1',
    columns: [
      ['req/s', 'stateless.c1.rate', fmt.rate],
      ['p50, ms', 'stateless.c1.p50', fmt.ms],
      ['p99, ms', 'stateless.c1.p99', fmt.ms],
      ['server CPU per call, µs', 'stateless.c1.cpu', fmt.us, true],
    ],
  },
  {
    title: 'HTTP stateless — `echo`, concurrency 64',
    columns: [
      ['req/s', 'stateless.c64.rate', fmt.rate],
      ['p50, ms', 'stateless.c64.p50', fmt.ms],
      ['p99, ms', 'stateless.c64.p99', fmt.ms],
      ['server CPU per call, µs', 'stateless.c64.cpu', fmt.us, true],
    ],
  },
  {
    title: 'HTTP, 2026-07-28 (no session, no handshake) — `echo`, concurrency 64',
    columns: [
      ['req/s', 'modern.c64.rate', fmt.rate],
      ['p50, ms', 'modern.c64.p50', fmt.ms],
      ['p99, ms', 'modern.c64.p99', fmt.ms],
      ['server CPU per call, µs', 'modern.c64.cpu', fmt.us, true],
    ],
  },
  {
    title:
      'HTTP, 2026-07-28 — `wait_sampling` `input_required` round trips, concurrency 64 (call → input_required → retry with the sampled answer → result)',
    columns: [
      ['round trips/s', 'modern.mrtr64.rate', fmt.rate],
      ['p50, ms', 'modern.mrtr64.p50', fmt.ms],
      ['p99, ms', 'modern.mrtr64.p99', fmt.ms],
      ['server CPU per round trip (both POSTs), µs', 'modern.mrtr64.cpu', fmt.us, true],
    ],
  },
  {
    title:
      'HTTP, 2026-07-28 — task round trip (`echo_task`: create + `tasks/get` with the result), concurrency 64',
    note:
      "Issue 25's cost of a task. Measured for the setups that serve tasks (Keel's, whose servers have the task tool `echo_task`; the official SDKs and the bare script have none, and a baseline build may predate tasks), so there is no ÷ bare. " +
      'One round trip is two requests plus a store record: `tools/call echo_task` declaring the tasks extension, answered with a created task (`resultType: "task"`: the record is written to the task store, the tool runs and its result is stored), then `tasks/get` (`Mcp-Name`: the task id), answered with the completed task and its result read back from the store. ' +
      '"÷ plain `echo` call" is the server CPU per round trip over the same setup\'s CPU per plain `echo` call at concurrency 64 (the 2026-07-28 `echo` table), paired per repetition. ' +
      'A task still `working` is polled again at once (at most 16 polls, no wait); `echo_task` ends within its call, so 1.00 poll per round trip means every first `tasks/get` found the result. ' +
      "The bench servers keep task records 2 s and raise the per-owner and total bounds (`BENCH_TASK_OPTIONS`, bench/servers/keel-tools.ts): the client is one anonymous owner, which the defaults (100 records kept 1 h) would refuse after 100 tasks. The store then holds about 2 s of round trips (thousands of records, as a busy server holds up to `maxTotal`), and this figure grows with that number: Keel's in-memory store reads every record it holds when it creates one (expiry sweep, per-owner count).",
    columns: [
      ['round trips/s', 'modern.task64.rate', fmt.rate],
      ['p50, ms', 'modern.task64.p50', fmt.ms],
      ['p99, ms', 'modern.task64.p99', fmt.ms],
      [
        'server CPU per round trip (both POSTs), µs',
        'modern.task64.cpu',
        fmt.us,
        { over: 'modern.c64.cpu', label: '÷ plain `echo` call' },
      ],
      ['polls per round trip', 'modern.task64.polls', fmt.count],
    ],
  },
  {
    title: 'HTTP with sessions — memory',
    columns: [
      ['RSS per idle initialized session (10,000 sessions, after full GC), KB', 'sessions.bytes', fmt.kb],
      ['V8 heap per idle session (after full GC), KB', 'sessions.heap', fmt.kb],
      [
        'RSS per idle session without forced GC (handshake garbage and young-generation growth included), KB',
        'sessions.rawBytes',
        fmt.kb,
      ],
    ],
  },
];

/**
 * Keel against the official SDKs, server CPU per call: `[label, Keel setup, SDK setup, fallback]`.
 * Where the SDK setup has no figure for a row (the JSON-answer setups exist over HTTP only, and
 * cannot serve `wait_sampling`), the fallback setup's figure is used: over stdio the two are the
 * same server, and a call that must stream is answered with SSE by both SDKs' defaults and Keel.
 */
export const SDK_COMPARISONS = [
  ['Keel ÷ SDK 1.x', 'keel', 'sdk1'],
  ['Keel ÷ SDK v2', 'keel', 'sdk2'],
  ['Keel, zod tools ÷ SDK 1.x, JSON answers', 'keelZod', 'sdk1Json', 'sdk1'],
  ['Keel, zod tools ÷ SDK v2, JSON answers', 'keelZod', 'sdk2Json', 'sdk2'],
];

export const CPU_ROWS = [
  ['stdio sequential', 'stdio.seq.cpu'],
  ['stdio 64 in flight', 'stdio.c64.cpu'],
  ['stdio 64 wait_sampling', 'stdio.samp64.cpu'],
  ['HTTP sessions c=1', 'http.c1.cpu'],
  ['HTTP sessions c=64', 'http.c64.cpu'],
  ['HTTP one session, 64 in flight', 'http.one64.cpu'],
  ['HTTP sessions wait_sampling c=64', 'http.samp64.cpu'],
  ['HTTP stateless c=1', 'stateless.c1.cpu'],
  ['HTTP stateless c=64', 'stateless.c64.cpu'],
  ['HTTP 2026-07-28 c=64', 'modern.c64.cpu'],
  ['HTTP 2026-07-28 input_required round trip c=64', 'modern.mrtr64.cpu'],
  ['HTTP 2026-07-28 task round trip c=64', 'modern.task64.cpu'],
  ['spawn → initialize', 'spawn.ms'],
  ['peak RSS stdio', 'stdio.hwm'],
];

/**
 * The targets, each on Keel's default setup (raw JSON Schema tools, `node:http` fast path) against
 * the bare limit. `also`: the Keel variants shown under the same limit for reference (no status).
 * A target with `against` is set instead on each of its `setups` against that setup (paired per
 * repetition), each with its own status (without `limit`: a reference figure, no status). An entry with `per` has no limit: a reference row per
 * setup of `setups` with the setup's `metric` over its own `per` figure, paired per repetition.
 */
export const TARGETS = [
  // Issue 14's targets. The limits are ratios to the bare scripts of the same repetition, which
  // batch their writes as Keel does: a true floor.
  {
    name: 'stdio, 64 `echo` in flight: server CPU per call',
    metric: 'stdio.c64.cpu',
    limit: 1.25,
    profile: 'stdio',
    also: ['keelZod'],
  },
  {
    name: 'stdio, 64 `wait_sampling` in flight: server CPU per call',
    metric: 'stdio.samp64.cpu',
    limit: 1.3,
    profile: 'stdio',
    also: ['keelZod'],
  },
  {
    name: 'HTTP with sessions, `echo` c=64: server CPU per call',
    metric: 'http.c64.cpu',
    limit: 1.25,
    profile: 'HTTP, sessions',
    also: ['keelZod', 'keelWeb', 'keelBun', 'keelDeno'],
  },
  {
    // Issue 24: one client with many tools running at once must cost no more per call than many
    // clients with one each; the project's limit for every client shape is 1.15× the floor.
    name: 'HTTP with sessions, one session, 64 `echo` in flight: server CPU per call',
    metric: 'http.one64.cpu',
    limit: 1.15,
    profile: 'HTTP, one session',
    also: ['keelZod', 'keelWeb', 'keelBun', 'keelDeno'],
  },
  {
    // A web-standard host (Bun, Deno, Workers build `Request`/`Response` natively) may cost at
    // most twice Keel's own `node:http` path. Node's bridged setup is shown for reference: there
    // the cost is mostly Node's own `Request`/`Response` objects, which nobody needs on Node.
    name: 'web Request/Response path, HTTP with sessions `echo` c=64: server CPU per call',
    metric: 'http.c64.cpu',
    limit: 2.0,
    against: 'keel',
    setups: ['keelBun', 'keelDeno'],
    also: ['keelWeb'],
  },
  {
    name: 'HTTP stateless (legacy), `echo` c=64: server CPU per call',
    metric: 'stateless.c64.cpu',
    limit: 1.4,
    profile: 'HTTP, stateless',
    also: ['keelZod', 'keelBun', 'keelDeno'],
  },
  {
    name: 'HTTP 2026-07-28 (stateless), `echo` c=64: server CPU per call',
    metric: 'modern.c64.cpu',
    limit: 1.4,
    profile: 'HTTP, 2026-07-28',
    also: ['keelZod', 'keelBun', 'keelDeno'],
  },
  {
    // Issue 25: what a tool call costs as a task, against the plain call it wraps. No limit: a
    // round trip is two requests plus a store record (see the task table's note).
    name: 'HTTP 2026-07-28 task round trip (`echo_task`: create + `tasks/get`) ÷ a plain `echo` call, c=64: server CPU',
    metric: 'modern.task64.cpu',
    per: 'modern.c64.cpu',
    setups: ['keel', 'keelZod'],
  },
  {
    // The same tools with zod input schemas instead of raw JSON Schema: the schema library must
    // not be what a server pays for.
    name: 'a zod tool vs the same raw JSON Schema tool, stdio 64 `echo` in flight: server CPU per call',
    metric: 'stdio.c64.cpu',
    limit: 1.1,
    against: 'keel',
    setups: ['keelZod'],
  },
  {
    name: 'a zod tool vs the same raw JSON Schema tool, HTTP with sessions `echo` c=64: server CPU per call',
    metric: 'http.c64.cpu',
    limit: 1.1,
    against: 'keel',
    setups: ['keelZod'],
  },
  {
    // Issue 26: three interceptors that only call `next()` must cost a call at most 5% more.
    name: '3 no-op interceptors vs none, stdio 64 `echo` in flight: server CPU per call',
    metric: 'stdio.c64.cpu',
    limit: 1.05,
    against: 'keel',
    setups: ['keelIntercepted'],
  },
  {
    name: '3 no-op interceptors vs none, HTTP with sessions `echo` c=64: server CPU per call',
    metric: 'http.c64.cpu',
    limit: 1.05,
    against: 'keel',
    setups: ['keelIntercepted'],
  },
  {
    name: '3 no-op interceptors vs none, HTTP 2026-07-28 `echo` c=64: server CPU per call',
    metric: 'modern.c64.cpu',
    limit: 1.05,
    against: 'keel',
    setups: ['keelIntercepted'],
  },
  {
    // Issue 26: OpenTelemetry on (SDK, in-memory exporters) against the same server without it.
    // No limit: the figure is reported, with where the cost goes (docs/telemetry.md).
    name: 'OpenTelemetry on (SDK, in-memory exporters) vs off, stdio 64 `echo` in flight: server CPU per call',
    metric: 'stdio.c64.cpu',
    against: 'keel',
    setups: ['keelOtel'],
  },
  {
    name: 'OpenTelemetry on (SDK, in-memory exporters) vs off, HTTP with sessions `echo` c=64: server CPU per call',
    metric: 'http.c64.cpu',
    against: 'keel',
    setups: ['keelOtel'],
  },
  {
    name: 'OpenTelemetry on (SDK, in-memory exporters) vs off, HTTP 2026-07-28 `echo` c=64: server CPU per call',
    metric: 'modern.c64.cpu',
    against: 'keel',
    setups: ['keelOtel'],
  },
  {
    name: 'memory per idle HTTP session (RSS, no forced GC, handshake garbage included)',
    metric: 'sessions.rawBytes',
    absolute: 6 * 1024,
    profile: undefined,
  },
  {
    name: 'memory per idle HTTP session (RSS, after full GC)',
    metric: 'sessions.bytes',
    absolute: 8 * 1024,
    profile: undefined,
  },
  {
    name: 'spawn → initialize answer (stdio)',
    metric: 'spawn.ms',
    limit: 1.25,
    also: ['keelZod'],
    note: (results, modules) => {
      const keel = modules.keel;
      const ms = summary(results['import.ms']?.keel ?? []).median;
      const zod = summary(results['spawn.ms']?.keelZod ?? []).median;
      const plain = summary(results['spawn.ms']?.keel ?? []).median;
      const zodNote =
        Number.isFinite(zod) && Number.isFinite(plain)
          ? ` With zod tools Keel's spawn takes ${fmt.ms(zod)} ms (${fmt.ms(zod - plain)} ms more).`
          : '';
      return keel && Number.isFinite(ms)
        ? `Importing \`keel-mcp/server\` alone takes ${fmt.ms(ms)} ms (${keel.files} files; packages: ${keel.packages.join(', ') || 'none'}); the bare script imports nothing; the official SDK servers also load zod for their tool schemas (Keel's default uses raw JSON Schema).${zodNote}`
        : '';
    },
  },
  {
    name: 'peak RSS of the stdio server',
    metric: 'stdio.hwm',
    limit: 1.3,
    also: ['keelZod'],
    note: (results) => {
      const k = summary(results['stdio.hwm']?.keel ?? []).median;
      const b = summary(results['stdio.hwm']?.bare ?? []).median;
      return Number.isFinite(k) && Number.isFinite(b) ? `${fmt.mb(k - b)} MB above the bare script.` : '';
    },
  },
];
