// Writes BENCHMARKS.md from the collected measurements.
import { writeFileSync } from 'node:fs';
import { summary } from './stats.mjs';

const SAMPLED = new Set(['spawn.ms', 'import.ms']);

const fmt = {
  rate: (v) => Math.round(v).toLocaleString('en-US'),
  ms: (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)),
  us: (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1)),
  kb: (v) => (v / 1024).toFixed(2),
  mb: (v) => (v / 1024 / 1024).toFixed(1),
  ratio: (v) => `${v.toFixed(2)}×`,
};

/** `median (min–max)` of a list, or `—`. */
function cell(values, format) {
  const s = summary(values ?? []);
  if (s.n === 0) return '—';
  if (s.n === 1 || format(s.min) === format(s.max)) return format(s.median);
  return `${format(s.median)} (${format(s.min)}–${format(s.max)})`;
}

/** Ratios a ÷ b: per repetition when both are per-repetition values, else of the medians. */
function ratios(metric, a, b) {
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

const ROWS = [
  ['stdio — sequential `echo` (1 in flight)'],
  ['calls/s', 'stdio.seq.rate', fmt.rate],
  ['p50 latency, ms', 'stdio.seq.p50', fmt.ms],
  ['p99 latency, ms', 'stdio.seq.p99', fmt.ms],
  ['server CPU per call, µs', 'stdio.seq.cpu', fmt.us],
  ['stdio — 64 `echo` calls in flight'],
  ['calls/s', 'stdio.c64.rate', fmt.rate],
  ['p99 latency, ms', 'stdio.c64.p99', fmt.ms],
  ['server CPU per call, µs', 'stdio.c64.cpu', fmt.us],
  ['stdio — 64 `wait_sampling` calls in flight (each answers a sampling request)'],
  ['calls/s', 'stdio.samp64.rate', fmt.rate],
  ['p99 latency, ms', 'stdio.samp64.p99', fmt.ms],
  ['server CPU per call, µs', 'stdio.samp64.cpu', fmt.us],
  ['stdio — process'],
  ['spawn → initialize answer, ms', 'spawn.ms', fmt.ms],
  ['peak RSS (VmHWM) after the stdio windows, MB', 'stdio.hwm', fmt.mb],
  ['HTTP with sessions — `echo`, concurrency 1'],
  ['req/s', 'http.c1.rate', fmt.rate],
  ['p50 latency, ms', 'http.c1.p50', fmt.ms],
  ['p99 latency, ms', 'http.c1.p99', fmt.ms],
  ['server CPU per call, µs', 'http.c1.cpu', fmt.us],
  ['HTTP with sessions — `echo`, concurrency 64 (64 sessions)'],
  ['req/s', 'http.c64.rate', fmt.rate],
  ['p50 latency, ms', 'http.c64.p50', fmt.ms],
  ['p99 latency, ms', 'http.c64.p99', fmt.ms],
  ['server CPU per call, µs', 'http.c64.cpu', fmt.us],
  ['HTTP with sessions — `wait_sampling`, concurrency 64 (SSE answer + POSTed sampling result)'],
  ['calls/s', 'http.samp64.rate', fmt.rate],
  ['p50 latency, ms', 'http.samp64.p50', fmt.ms],
  ['p99 latency, ms', 'http.samp64.p99', fmt.ms],
  ['server CPU per call (both POSTs), µs', 'http.samp64.cpu', fmt.us],
  ['HTTP stateless — `echo`, concurrency 1'],
  ['req/s', 'stateless.c1.rate', fmt.rate],
  ['p50 latency, ms', 'stateless.c1.p50', fmt.ms],
  ['p99 latency, ms', 'stateless.c1.p99', fmt.ms],
  ['server CPU per call, µs', 'stateless.c1.cpu', fmt.us],
  ['HTTP stateless — `echo`, concurrency 64'],
  ['req/s', 'stateless.c64.rate', fmt.rate],
  ['p50 latency, ms', 'stateless.c64.p50', fmt.ms],
  ['p99 latency, ms', 'stateless.c64.p99', fmt.ms],
  ['server CPU per call, µs', 'stateless.c64.cpu', fmt.us],
  ['HTTP with sessions — memory'],
  ['RSS per idle initialized session (2,000 sessions, after full GC), KB', 'sessions.bytes', fmt.kb],
  ['V8 heap per idle session (after full GC), KB', 'sessions.heap', fmt.kb],
  [
    'RSS per idle session without forced GC (garbage of the handshakes included), KB',
    'sessions.rawBytes',
    fmt.kb,
  ],
];

const CPU_ROWS = [
  ['stdio sequential', 'stdio.seq.cpu'],
  ['stdio 64 in flight', 'stdio.c64.cpu'],
  ['stdio 64 wait_sampling', 'stdio.samp64.cpu'],
  ['HTTP sessions c=1', 'http.c1.cpu'],
  ['HTTP sessions c=64', 'http.c64.cpu'],
  ['HTTP sessions wait_sampling c=64', 'http.samp64.cpu'],
  ['HTTP stateless c=1', 'stateless.c1.cpu'],
  ['HTTP stateless c=64', 'stateless.c64.cpu'],
  ['spawn → initialize', 'spawn.ms'],
  ['peak RSS stdio', 'stdio.hwm'],
];

const TARGETS = [
  { name: 'stdio, 64 in flight: server CPU per call', metric: 'stdio.c64.cpu', limit: 1.6, profile: 'stdio' },
  {
    name: 'HTTP with sessions, c=64: server CPU per call',
    metric: 'http.c64.cpu',
    limit: 2.0,
    profile: 'HTTP, sessions',
  },
  {
    name: 'HTTP stateless, c=64: server CPU per call',
    metric: 'stateless.c64.cpu',
    limit: 2.5,
    profile: 'HTTP, stateless',
  },
  { name: 'memory per idle HTTP session', metric: 'sessions.bytes', absolute: 8 * 1024, profile: undefined },
  {
    name: 'spawn → initialize answer',
    metric: 'spawn.ms',
    limit: 1.5,
    note: (results, modules) => {
      const keel = modules.keel;
      const ms = summary(results['import.ms']?.keel ?? []).median;
      return keel && Number.isFinite(ms)
        ? `Importing \`keel-mcp/server\` alone takes ${fmt.ms(ms)} ms (${keel.files} files; packages: ${keel.packages.join(', ') || 'none'}); the bare script imports nothing, and every SDK server (Keel's too) also loads zod for its tool schemas.`
        : '';
    },
  },
  {
    name: 'peak RSS of the stdio server',
    metric: 'stdio.hwm',
    limit: 1.3,
    note: (results) => {
      const k = summary(results['stdio.hwm']?.keel ?? []).median;
      const b = summary(results['stdio.hwm']?.bare ?? []).median;
      return Number.isFinite(k) && Number.isFinite(b) ? `${fmt.mb(k - b)} MB above the bare script.` : '';
    },
  },
];

function table(header, rows) {
  const lines = [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
  ];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

function profileText(profiles) {
  const parts = [];
  for (const { name, load, summary: s } of profiles) {
    parts.push(
      `### ${name}\n\nLoad: ${load}. ${s.totalMs.toFixed(0)} ms of non-idle samples` +
        `${s.windowed ? ' inside the measured windows (start-up and warm-up excluded)' : ' (whole run)'}.\n`,
    );
    parts.push(
      table(
        ['area', 'self time', 'share'],
        s.areas.slice(0, 10).map((a) => [a.area, `${a.ms.toFixed(0)} ms`, `${(a.share * 100).toFixed(1)} %`]),
      ),
    );
    parts.push('');
    parts.push(
      table(
        ['function', 'where', 'self time', 'share'],
        s.top.map((f) => [
          `\`${f.name}\``,
          f.where ? `\`${f.where}\`` : '',
          `${f.ms.toFixed(0)} ms`,
          `${(f.share * 100).toFixed(1)} %`,
        ]),
      ),
    );
    parts.push('');
    parts.push(
      'Time under the innermost Keel function on the stack (its own code plus the Node.js/V8 work it called):\n',
    );
    parts.push(
      table(
        ['innermost Keel frame', 'time', 'share'],
        s.callers
          .slice(0, 10)
          .map((c) => [`\`${c.key}\``, `${c.ms.toFixed(0)} ms`, `${(c.share * 100).toFixed(1)} %`]),
      ),
    );
    parts.push('');
  }
  return parts.join('\n');
}

function topKeel(profile, n = 4) {
  if (!profile) return '';
  const keel = profile.summary.top.filter((f) => f.area.startsWith('Keel')).slice(0, n);
  const areas = profile.summary.areas
    .slice(0, 4)
    .map((a) => `${a.area} ${(a.share * 100).toFixed(0)} %`)
    .join(', ');
  const fns = keel.map((f) => `\`${f.name}\` (${f.where}, ${(f.share * 100).toFixed(1)} %)`).join(', ');
  const callers = profile.summary.callers
    .filter((c) => !c.key.startsWith('('))
    .slice(0, 3)
    .map((c) => `\`${c.key}\` ${(c.share * 100).toFixed(0)} %`)
    .join(', ');
  return (
    `profile (${profile.name}): ${areas}; top Keel functions by self time: ${fns || 'none in the top 15'}; ` +
    `most time under: ${callers}`
  );
}

/** Formats with the repository's prettier settings when prettier is installed (dev dependency). */
async function formatted(markdown, path) {
  try {
    const prettier = await import('prettier');
    const options = (await prettier.resolveConfig(path)) ?? {};
    return await prettier.format(markdown, { ...options, parser: 'markdown' });
  } catch {
    return markdown;
  }
}

export async function writeReport(path, { info, servers, entries, results, errors, modules, profiles }) {
  const keys = servers.map((s) => s.key);
  const out = [];
  out.push('# Benchmarks\n');
  out.push(
    'Generated by `npm run bench` (build, then `node bench/run.mjs`); do not edit by hand. ' +
      'Keel against the official TypeScript SDK 1.x and v2 and against a bare script per transport ' +
      '(the physical limit), all in one run, interleaved (Keel, SDK 1.x, SDK v2, bare, Keel, …) ' +
      `for ${info.reps} repetitions. Each cell is the median over the repetitions with min–max in brackets.\n`,
  );
  out.push('## Machine\n');
  out.push(`- CPU: ${info.model}, ${info.cores} cores; ${(info.memTotal / 1024 ** 3).toFixed(1)} GB RAM`);
  out.push(`- Node.js ${info.node}; run on ${info.date}, took ${(info.durationS / 60).toFixed(1)} min`);
  out.push(
    `- 1-minute load average at the start of each phase: ${info.loads.map((l) => `${l.phase} ${l.load.toFixed(2)}`).join(', ')} ` +
      '(the load generator shares the cores with the server; anything else running disturbs the figures, CPU-per-call least)',
  );
  out.push(`- Command: \`npm run bench\`${info.scale !== 1 ? ` (BENCH_SCALE=${info.scale})` : ''}\n`);

  out.push('## Targets\n');
  out.push(
    'Ratios are Keel ÷ bare limit, paired per repetition (same round of the same run), median (min–max).\n',
  );
  const targetRows = [];
  const misses = [];
  for (const target of TARGETS) {
    const keel = results[target.metric]?.keel;
    if (target.absolute !== undefined) {
      const s = summary(keel ?? []);
      const met = s.n > 0 && s.median <= target.absolute;
      targetRows.push([
        target.name,
        `≤ ${fmt.kb(target.absolute)} KB`,
        `${cell(keel, fmt.kb)} KB`,
        s.n ? (met ? 'met' : '**missed**') : 'not measured',
      ]);
      if (s.n && !met)
        misses.push(
          `- ${target.name}: ${fmt.kb(s.median)} KB, ${((s.median / target.absolute - 1) * 100).toFixed(0)} % over the target.`,
        );
      continue;
    }
    const r = ratios(target.metric, keel, results[target.metric]?.bare);
    const s = summary(r);
    const met = s.n > 0 && s.median <= target.limit;
    targetRows.push([
      target.name,
      `≤ ${target.limit}× bare`,
      s.n ? cell(r, fmt.ratio) : '—',
      s.n ? (met ? 'met' : '**missed**') : 'not measured',
    ]);
    if (s.n && !met) {
      const profile = profiles.find((p) => p.name === target.profile);
      const note = target.note?.(results, modules);
      misses.push(
        `- ${target.name}: ${fmt.ratio(s.median)} against ≤ ${target.limit}× (${((s.median / target.limit - 1) * 100).toFixed(0)} % over).` +
          (profile ? ` ${topKeel(profile)}.` : '') +
          (note ? ` ${note}` : ''),
      );
    }
  }
  out.push(table(['target', 'limit', 'Keel', 'status'], targetRows));
  out.push('');
  if (misses.length) out.push(`Misses:\n\n${misses.join('\n')}\n`);

  out.push('## Results\n');
  const rows = [];
  for (const [label, metric, format] of ROWS) {
    if (!metric) {
      rows.push([`**${label}**`, ...keys.map(() => '')]);
      continue;
    }
    rows.push([label, ...keys.map((k) => cell(results[metric]?.[k], format))]);
  }
  out.push(table(['', ...servers.map((s) => s.label)], rows));
  out.push('');

  out.push('## Ratios\n');
  out.push(
    'Server CPU per call (and the process figures) divided by the bare limit, paired per repetition:\n',
  );
  out.push(
    table(
      ['', ...servers.filter((s) => s.key !== 'bare').map((s) => `${s.label} ÷ bare`)],
      CPU_ROWS.map(([label, metric]) => [
        label,
        ...servers
          .filter((s) => s.key !== 'bare')
          .map((s) => cell(ratios(metric, results[metric]?.[s.key], results[metric]?.bare), fmt.ratio)),
      ]),
    ),
  );
  out.push('\nKeel divided by the official SDKs (below 1× means Keel uses less):\n');
  out.push(
    table(
      ['', 'Keel ÷ SDK 1.x', 'Keel ÷ SDK v2'],
      CPU_ROWS.map(([label, metric]) => [
        label,
        cell(ratios(metric, results[metric]?.keel, results[metric]?.sdk1), fmt.ratio),
        cell(ratios(metric, results[metric]?.keel, results[metric]?.sdk2), fmt.ratio),
      ]),
    ),
  );
  out.push('');

  out.push('## Import cost of the server entry point\n');
  out.push(
    'Import time: `await import(entry)` in a fresh process, 3 processes per repetition. Module graph: every ' +
      'file the import loads (ESM loader and CommonJS cache), bytes on disk and gzip of their concatenation.\n',
  );
  out.push(
    table(
      ['entry', 'import, ms', 'files', 'size', 'gzip', 'packages loaded'],
      entries.map((e) => {
        const m = modules[e.key];
        return [
          `\`${e.label}\``,
          cell(results['import.ms']?.[e.key], fmt.ms),
          m ? String(m.files) : '—',
          m ? `${(m.bytes / 1024).toFixed(0)} KB` : '—',
          m ? `${(m.gzip / 1024).toFixed(0)} KB` : '—',
          m ? m.packages.join(', ') || '—' : '—',
        ];
      }),
    ),
  );
  out.push('');

  if (profiles.length) {
    out.push("## Where Keel's time goes\n");
    out.push(
      "A separate pass runs Keel's servers once with `--cpu-prof` under the loads below; self time per " +
        'function from the `.cpuprofile` (mapped to the TypeScript sources), shares of all non-idle samples.\n',
    );
    out.push(profileText(profiles));
  }

  out.push('## Method\n');
  out.push(
    [
      '- Every server runs the same two tools: `echo {text}` returns a text content equal to `text`; `wait_sampling {prompt}` sends `sampling/createMessage` related to the call and returns the sampled text. The load generator checks every answer (right id, right text; the sampled text is derived from the prompt).',
      '- Keel: `McpServer` with zod input schemas, `serveStdio` / `serveHttp` with default options (sessions on, the default bounded event store, DNS-rebinding checks), started exactly as the package scripts `bench:stdio`, `bench:http`, `bench:http-stateless` (`node <file>`).',
      "- SDK 1.x: `McpServer.registerTool` with zod; stdio via `StdioServerTransport`; HTTP with sessions = one McpServer + `StreamableHTTPServerTransport` per session in a map (the SDK example pattern), stateless = fresh server + transport per request. SDK v2: `McpServer.registerTool` with zod 4; stdio via `serveStdio`; HTTP via `NodeStreamableHTTPServerTransport` behind its README Host/Origin guards, per session / per request like 1.x. Sampling uses `relatedRequestId` so the request travels on the call's own stream (v2's `requestSampling` does not add it by itself).",
      '- Bare limit (`bench/bare/`): reads, `JSON.parse`s and writes hand-built answers (one write per answer); the HTTP one keeps a session map, checks the session id and holds the SSE stream for sampling. No validation at all — the cost of the transport itself.',
      "- Clients: stdio — newline-delimited JSON over the child's pipes; HTTP — `node:http` with a keep-alive Agent, hand-built bodies, full legacy handshake per client (initialize, `notifications/initialized`, `Mcp-Session-Id` and `MCP-Protocol-Version` headers), JSON or SSE answers, sampling requests answered by POSTing the result back. Concurrency 64 means 64 clients (sessions) with one call in flight each; stdio 64 means 64 requests in flight on one connection.",
      '- Windows are sized by call count with a time cap; a warm-up precedes them. Server CPU per call = growth of utime+stime in `/proc/<pid>/stat` over the window ÷ calls answered. Memory per session = growth of VmRSS (`/proc/<pid>/status`) after 2,000 more initialized idle sessions ÷ 2,000 (100 warm-up sessions first); each reading follows a full GC forced from outside the server (SIGUSR1 opens the inspector — the servers run with `NODE_OPTIONS=--inspect-port=0` in this phase only, which opens nothing by itself — and `HeapProfiler.collectGarbage` is sent), so every server is treated the same and none carries a hook; the heap growth comes from `Runtime.getHeapUsage`. Peak RSS = VmHWM of the stdio server after its windows. Spawn time = from `spawn()` to the initialize answer, `initialize` written at once.',
      '- No figure here is asserted in a test.',
    ].join('\n'),
  );
  out.push('');
  if (errors.length) {
    out.push('## Failures\n');
    out.push(
      table(
        ['phase', 'server', 'rep', 'error'],
        errors.map((e) => [e.phase, e.server, String(e.rep), e.message.replace(/\|/g, '\\|').slice(0, 300)]),
      ),
    );
    out.push('');
  }
  writeFileSync(path, await formatted(out.join('\n'), path));
}
