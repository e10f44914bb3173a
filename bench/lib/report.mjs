// Writes BENCHMARKS.md from the collected measurements.
import { readFileSync, writeFileSync } from 'node:fs';
import { beforeAfterSection } from './report-before-after.mjs';
import { CPU_ROWS, PHASES, SDK_COMPARISONS, TARGETS, cell, fmt, ratios } from './report-spec.mjs';
import { summary } from './stats.mjs';

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

/** Figures of `metric` for `key`, or those of `fallback` when `key` has none. */
function figures(results, metric, key, fallback) {
  const own = results[metric]?.[key];
  if (own?.some((v) => Number.isFinite(v)) || !fallback) return own;
  return results[metric]?.[fallback];
}

/**
 * Rows of a target set on each of `target.setups` against `target.against` (not the bare limit):
 * one row per setup that has figures, each with its own status; the first row names the target.
 */
function againstTargetRows(target, results, byKey) {
  const rows = [];
  const misses = [];
  const base = byKey.get(target.against)?.label ?? target.against;
  for (const key of target.setups) {
    const r = ratios(target.metric, results[target.metric]?.[key], results[target.metric]?.[target.against]);
    if (r.length === 0) continue;
    const s = summary(r);
    const label = byKey.get(key)?.label ?? key;
    // No limit: a figure to report against the base setup, not a target.
    if (target.limit === undefined) {
      rows.push([
        rows.length === 0 ? target.name : '↳ same',
        label,
        `none (÷ ${base})`,
        cell(r, fmt.ratio),
        'reference',
      ]);
      continue;
    }
    const met = s.median <= target.limit;
    rows.push([
      rows.length === 0 ? target.name : '↳ same',
      label,
      `≤ ${target.limit}× ${base}`,
      cell(r, fmt.ratio),
      met ? 'met' : '**missed**',
    ]);
    if (!met)
      misses.push(
        `- ${target.name}, ${label}: ${fmt.ratio(s.median)} of ${base} against ≤ ${target.limit}× (${((s.median / target.limit - 1) * 100).toFixed(0)} % over).`,
      );
  }
  for (const key of target.also ?? []) {
    const r = ratios(target.metric, results[target.metric]?.[key], results[target.metric]?.[target.against]);
    if (r.length === 0) continue;
    rows.push([
      rows.length === 0 ? target.name : '↳ same, reference',
      byKey.get(key)?.label ?? key,
      `(≤ ${target.limit}× ${base})`,
      cell(r, fmt.ratio),
      'reference',
    ]);
  }
  if (rows.length === 0)
    rows.push([
      target.name,
      target.setups.map((key) => byKey.get(key)?.label ?? key).join(', '),
      target.limit === undefined ? `none (÷ ${base})` : `≤ ${target.limit}× ${base}`,
      '—',
      'not measured',
    ]);
  return { rows, misses };
}

/**
 * Rows of a reference entry with `per` (no limit): for each of `target.setups` that has both
 * figures, its `metric` over its own `per` figure, paired per repetition; the first row names the
 * entry. When no setup has both, one row says so.
 */
function perSetupRows(target, results, byKey) {
  const rows = [];
  for (const key of target.setups) {
    const r = ratios(target.metric, results[target.metric]?.[key], results[target.per]?.[key]);
    if (r.length === 0) continue;
    rows.push([
      rows.length === 0 ? target.name : '↳ same, reference',
      byKey.get(key)?.label ?? key,
      'none',
      cell(r, fmt.ratio),
      'reference',
    ]);
  }
  if (rows.length === 0)
    rows.push([
      target.name,
      target.setups.map((key) => byKey.get(key)?.label ?? key).join(', '),
      'none',
      '—',
      'not measured',
    ]);
  return rows;
}

/** One table per measurement: a row per setup that has a figure in it. */
function resultTables(servers, results) {
  const parts = [];
  for (const phase of PHASES) {
    const ran = servers.filter((s) => phase.columns.some(([, metric]) => results[metric]?.[s.key]?.length));
    if (ran.length === 0) continue;
    const header = ['setup'];
    for (const [label, , , ratio] of phase.columns)
      header.push(label, ...(ratio === true ? ['÷ bare'] : ratio ? [ratio.label] : []));
    const rows = ran.map((server) => {
      const row = [server.key === 'keel' ? `**${server.label}**` : server.label];
      for (const [, metric, format, ratio] of phase.columns) {
        const values = results[metric]?.[server.key];
        row.push(cell(values, format));
        if (ratio === true)
          row.push(
            server.key === 'bare' ? '1×' : cell(ratios(metric, values, results[metric]?.bare), fmt.ratio),
          );
        else if (ratio) row.push(cell(ratios(metric, values, results[ratio.over]?.[server.key]), fmt.ratio));
      }
      return row;
    });
    parts.push(`### ${phase.title}\n`);
    if (phase.note) parts.push(`${phase.note}\n`);
    parts.push(table(header, rows));
    parts.push('');
  }
  return parts.join('\n');
}

export async function writeReport(
  path,
  { info, servers, entries, results, errors, modules, profiles, skipped = [] },
) {
  const leftOut = new Map(skipped.map((s) => [s.key, s.reason]));
  const byKey = new Map(servers.map((s) => [s.key, s]));
  const out = [];
  out.push('# Benchmarks\n');
  out.push(
    'Generated by `npm run bench` (build, then `node bench/run.mjs`); do not edit by hand. ' +
      'Keel against the official TypeScript SDK 1.x and v2 and against a bare script per transport ' +
      '(the physical limit), each also in the variants that make the comparison like for like (same ' +
      'schema library, same answer format, web objects instead of the Node fast path, on Node and served ' +
      'natively by Bun and Deno), all in one run, ' +
      `interleaved (every setup once per round) for ${info.reps} repetitions. Each cell is the median ` +
      'over the repetitions with min–max in brackets.\n',
  );
  out.push('## Machine\n');
  out.push(`- CPU: ${info.model}, ${info.cores} cores; ${(info.memTotal / 1024 ** 3).toFixed(1)} GB RAM`);
  out.push(`- Node.js ${info.node}; run on ${info.date}, took ${(info.durationS / 60).toFixed(1)} min`);
  out.push(
    `- 1-minute load average at the start of each phase: ${info.loads.map((l) => `${l.phase} ${l.load.toFixed(2)}`).join(', ')} ` +
      '(the load generator shares the cores with the server; anything else running disturbs the figures, CPU-per-call least)',
  );
  const env = [
    info.scale !== 1 && `BENCH_SCALE=${info.scale}`,
    info.baseline && `BENCH_BASELINE=${info.baseline.ref}`,
  ].filter(Boolean);
  out.push(`- Command: \`npm run bench\`${env.length ? ` (${env.join(', ')})` : ''}\n`);

  out.push('## Setups\n');
  out.push(
    servers
      .map((s) => {
        const runs = [
          s.stdio && 'stdio',
          s.http && 'HTTP with sessions',
          s.stateless && 'HTTP stateless',
          s.modern && 'HTTP 2026-07-28',
        ]
          .filter(Boolean)
          .join(', ');
        // A runtime that could not be installed leaves its rows out; one line says why.
        const measured = leftOut.has(s.key)
          ? `Left out of this run: ${leftOut.get(s.key)}.`
          : `Measured over: ${runs}.`;
        return `- **${s.label}** — ${s.what}. ${measured}`;
      })
      .join('\n'),
  );
  out.push('');

  out.push('## Targets\n');
  out.push(
    `Each target is set on **${byKey.get('keel')?.label ?? 'Keel'}** (raw JSON Schema tools, \`node:http\` fast path) ` +
      'against the bare limit. Ratios are Keel ÷ bare, paired per repetition (same round of the same run), ' +
      'median (min–max). Rows marked "reference" show a Keel variant under the same limit; they have no target of their own. ' +
      "The web Request/Response targets and the zod targets are set instead on a Keel variant against Keel's default setup " +
      '(that setup ÷ Keel, paired the same way), each with its own status. Memory targets are absolute. ' +
      "The task round trip row has no limit: each Keel setup's task round trip over its own plain `echo` call, paired the same way.\n",
  );
  const targetRows = [];
  const misses = [];
  for (const target of TARGETS) {
    if (target.per) {
      targetRows.push(...perSetupRows(target, results, byKey));
      continue;
    }
    if (target.against) {
      const own = againstTargetRows(target, results, byKey);
      targetRows.push(...own.rows);
      misses.push(...own.misses);
      continue;
    }
    const keel = results[target.metric]?.keel;
    if (target.absolute !== undefined) {
      const s = summary(keel ?? []);
      const met = s.n > 0 && s.median <= target.absolute;
      targetRows.push([
        target.name,
        byKey.get('keel')?.label ?? 'keel',
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
      byKey.get('keel')?.label ?? 'keel',
      `≤ ${target.limit}× bare`,
      s.n ? cell(r, fmt.ratio) : '—',
      s.n ? (met ? 'met' : '**missed**') : 'not measured',
    ]);
    for (const key of target.also ?? []) {
      const variant = ratios(target.metric, results[target.metric]?.[key], results[target.metric]?.bare);
      if (variant.length === 0) continue;
      targetRows.push([
        `↳ same, reference`,
        byKey.get(key)?.label ?? key,
        `(≤ ${target.limit}× bare)`,
        cell(variant, fmt.ratio),
        'reference',
      ]);
    }
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
  out.push(table(['target', 'setup measured', 'limit', 'ratio', 'status'], targetRows));
  out.push('');
  if (misses.length) out.push(`Misses:\n\n${misses.join('\n')}\n`);
  out.push(...beforeAfterSection(results, byKey, table));

  out.push('## Results\n');
  out.push(
    'One table per measurement, a row per setup that ran it (see Setups). "÷ bare" is the figure over ' +
      "the bare limit's, paired per repetition.\n",
  );
  out.push(resultTables(servers, results));

  out.push('## Keel against the official SDKs\n');
  out.push(
    'Server CPU per call (and the process figures) of a Keel setup divided by an official SDK setup, ' +
      'paired per repetition; below 1× means Keel uses less. The last two columns compare like with ' +
      'like: zod tool schemas on both sides, and JSON answers on both sides over HTTP (over stdio, and ' +
      'for `wait_sampling`, which must stream, the SDK default setup is the comparison).\n',
  );
  const comparisons = SDK_COMPARISONS.filter(([, a, b]) => byKey.has(a) && byKey.has(b));
  out.push(
    table(
      ['', ...comparisons.map(([label]) => label)],
      CPU_ROWS.map(([label, metric]) => [
        label,
        ...comparisons.map(([, a, b, fallback]) =>
          cell(ratios(metric, results[metric]?.[a], figures(results, metric, b, fallback)), fmt.ratio),
        ),
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
      "- Every server runs the same two tools: `echo {text}` returns a text content equal to `text`; `wait_sampling {prompt}` sends `sampling/createMessage` related to the call and returns the sampled text. The load generator checks every answer (right id, right text; the sampled text is derived from the prompt). Keel's servers also have `echo_task` (`echo` with `execution: { taskSupport: 'optional' }`), so every Keel row is measured on a server with a task tool registered; it is called only in the task round trip window.",
      "- Keel: `McpServer` with raw JSON Schema input schemas (Keel takes JSON Schema as a first-class input; every call's arguments are still validated against it, by `@cfworker/json-schema`; no zod is loaded), `serveStdio` / `serveHttp` with default options (sessions on, the default bounded event store, DNS-rebinding checks), started exactly as the package scripts `bench:stdio`, `bench:http`, `bench:http-stateless` (`node <file>`). Keel's stdio transport hands the messages sent in one tick to the pipe in one write. Over HTTP Keel answers a call with one JSON body, and with an SSE stream when the call sends a request of its own (`wait_sampling`).",
      '- Keel, zod tools: the same tools with zod 4 input schemas (`bench:stdio-zod`, `bench:http-zod`, `bench:http-stateless-zod`): the schema library the official servers use, converted to JSON Schema once at registration, every call validated by zod.',
      "- Keel via web Request/Response (`bench:http-web`): the default Keel server's `createHttpHandler`, called as a plain `(Request) => Promise<Response>` function, on a `node:http` server through Keel's generic fetch bridge (`toNodeListener` with a function it does not recognise as Keel's, i.e. `src/adapters/node/fetch-bridge.ts`): every request becomes a web `Request` with a streamed body and every answer a `Response` copied back. That is the path of web-standard hosts (Bun, Deno, Workers, Hono); on Node the conversion is part of the cost, where Bun and Deno build these objects natively.",
      '- SDK 1.x: `McpServer.registerTool` with zod input schemas (how that SDK takes tool schemas); stdio via `StdioServerTransport`; HTTP with sessions = one McpServer + `StreamableHTTPServerTransport` per session in a map (the SDK example pattern), stateless = fresh server + transport per request. SDK v2: `McpServer.registerTool` with zod 4; stdio via `serveStdio`; HTTP via `NodeStreamableHTTPServerTransport` behind its README Host/Origin guards, per session / per request like 1.x. Sampling uses `relatedRequestId` so the request travels on the call\'s own stream (v2\'s `requestSampling` does not add it by itself). Both answer every POST with an SSE stream by default; the "JSON answers" setups are the same servers with `enableJsonResponse: true` (one JSON body per POST, as Keel answers a plain call), measured over HTTP only (stdio has no such choice) and without `wait_sampling` (a JSON answer has no stream for the sampling request).',
      "- Bare limit (`bench/bare/`): reads, `JSON.parse`s and writes hand-built answers. It writes the way Keel does, so that it stays a floor: over stdio the answers of one tick go out in one write (flushed at the end of the tick or at 64 KiB, like Keel's stdio writer), over HTTP a JSON answer is one `writeHead` with Content-Length + `end(body)` (no chunked framing) and an SSE answer one write per event. The HTTP one keeps a session map, checks the session id and holds the SSE stream for sampling. No validation at all — the cost of the transport itself.",
      '- Clients: stdio — newline-delimited JSON over the child\'s pipes; HTTP — `node:http` with a keep-alive Agent, hand-built bodies, full legacy handshake per client (initialize, `notifications/initialized`, `Mcp-Session-Id` and `MCP-Protocol-Version` headers), JSON or SSE answers, sampling requests answered by POSTing the result back. Concurrency 64 means 64 clients (sessions) with one call in flight each; "one session, 64 calls in flight" means one initialized session with 64 concurrent POSTs carrying its session id (one client running tools in parallel); stdio 64 means 64 requests in flight on one connection.',
      '- Windows are sized by call count with a time cap; a warm-up precedes them. Server CPU per call = growth of utime+stime in `/proc/<pid>/stat` over the window ÷ calls answered. Memory per session = growth of VmRSS (`/proc/<pid>/status`) after 10,000 more initialized idle sessions ÷ 10,000 (100 warm-up sessions first); each reading follows a full GC forced from outside the server (SIGUSR1 opens the inspector — the servers run with `NODE_OPTIONS=--inspect-port=0` in this phase only, which opens nothing by itself — and `HeapProfiler.collectGarbage` is sent), so every server is treated the same and none carries a hook; the heap growth comes from `Runtime.getHeapUsage`. The figure without forced GC also holds the growth of the V8 young generation to its 16 MB maximum under the handshakes: a fixed ~23 MB, ~2.3 KB of the per-session figure at 10,000 sessions, whatever the server keeps per session. Peak RSS = VmHWM of the stdio server after its windows. Spawn time = from `spawn()` to the initialize answer, `initialize` written at once.',
      "- Keel on Bun / Deno (`bench/servers/keel-http-{bun,deno}.mjs`): the same built server and handler as the Node setups, served by `Bun.serve` / `Deno.serve` through the runtime matrix's serving code (`scripts/runtimes/server/serve-{bun,deno}.mjs`; Deno with the matrix's permissions: loopback sockets and reading the repository), in the mode each phase needs (default handler; `sessions: false` for stateless). The runtime binary is spawned directly, so its pid is the server's: server CPU per call is read from its `/proc/<pid>/stat` like the Node servers' (all threads: Bun's and Deno's I/O and GC threads count, as Node's do). The runtimes are the matrix's pinned npm packages, installed into `.runtimes/` by `scripts/runtimes/lib/install.mjs` at the start of the run; if that fails the setup is left out and the Setups list says why.",
      "- `wait_sampling` is measured over stdio and HTTP with sessions only: a stateless legacy server has no session through which the client's POSTed answer could reach the waiting call.",
      "- 2026-07-28 rows (`bench/lib/modern-phase.mjs`): no handshake and no session; every POST carries the protocol version and client capabilities in `params._meta` and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers. `wait_sampling` answers `input_required` asking for one `sampling/createMessage`; the client retries the same call (new id) with the sampled answer under the server's key and the `requestState` it got, and the second answer must be the complete result: one round trip = two POSTs. Keel runs its default `serveHttp` server (`bench:http`; 2026-07-28 requests take the per-request path whatever the session setting) and the same unchanged `wait_sampling` handler (`ctx.createMessage` becomes the round, with a signed `requestState`). SDK v2: `createMcpHandler` (a fresh `McpServer` per request) through `toNodeHandler`, behind the same Host/Origin guards; its `wait_sampling` is written as its documentation shows (`inputRequired(...)`, then `inputResponse(...)` on the retry) and keeps no `requestState`. Bare (`bench/bare/http-modern.mjs`): hand-built answers, no validation, but it signs and checks a `requestState` (HMAC-SHA-256, `node:crypto`), the least a server must do with state the client hands back. Task round trips (Keel's setups only, `tasks: true` in `bench/lib/setups.mjs`): `tools/call echo_task` declaring `io.modelcontextprotocol/tasks` in the request's `_meta` client capabilities must answer a created task (`resultType: \"task\"`, a task id), then `tasks/get` (headers `Mcp-Method: tasks/get`, `Mcp-Name: <task id>`) is sent at once and again while the task is `working` (at most 16 polls, no wait) until it is `completed` with the call's text; the polls are counted.",
      '- Noise: client and server share the 2 cores. Sequential stdio figures swing between repetitions with how the scheduler places the two processes (a wake-up on the same core is cheaper); the per-repetition ratios are steadier than the absolute figures. Other work on the machine shows in the load averages above.',
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
  // Sections other benches own (between `<!-- name:start -->` / `<!-- name:end -->` markers,
  // e.g. bench/scale-out.mjs) survive a rewrite: they come from runs this one did not make.
  out.push(...keptSections(path));
  writeFileSync(path, await formatted(out.join('\n'), path));
}

function keptSections(path) {
  let previous;
  try {
    previous = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return [...previous.matchAll(/<!-- ([\w-]+):start -->[\s\S]*?<!-- \1:end -->/g)].map((m) => `${m[0]}\n`);
}
