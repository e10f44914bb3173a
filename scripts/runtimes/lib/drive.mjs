// Drives one runtime's smoke server with Keel's own client (from dist) on the runner's Node, and
// returns one result per scenario step. Every wait is bounded: a step that hangs fails.
import { McpClient } from '../../../dist/src/client/index.js';
import { StreamableHttpClientTransport } from '../../../dist/src/hosts/http/index.js';

const CALL_TIMEOUT_MS = 10_000;
const ABORT_POLL_MS = 100;
const ABORT_POLL_TRIES = 50; // at most 5 s for a disconnect to reach the handler

/**
 * The steps every runtime must pass, in order (also the columns of the matrix).
 *
 * @example
 * STEPS[0]; // 'initialize'
 */
export const STEPS = [
  'initialize',
  'list',
  'progress',
  'elicitation',
  'disconnect',
  'session-end',
  'modern',
  'template',
];

function textOf(result) {
  const first = result?.content?.[0];
  return first?.type === 'text' ? first.text : JSON.stringify(result);
}

function check(condition, detail) {
  if (!condition) throw new Error(detail);
  return detail;
}

async function connect(url, era, elicited) {
  const options = {
    info: { name: 'keel-runtime-smoke', version: '1.0.0' },
    era,
    timeoutMs: CALL_TIMEOUT_MS,
    elicitation: {
      form: async () => {
        elicited.count += 1;
        return { action: 'accept', content: { name: 'keel' } };
      },
    },
  };
  return McpClient.connect(new StreamableHttpClientTransport(url), options);
}

// Starts `wait` and resolves once its handler runs (its first progress), so the abort that follows
// is known to hit a running handler. The call's own promise is returned settled-safe.
async function startWait(client, tag, signal) {
  let started;
  const running = new Promise((resolve) => (started = resolve));
  const call = client.callTool(
    'wait',
    { tag },
    { signal, timeoutMs: CALL_TIMEOUT_MS, onprogress: () => started() },
  );
  const outcome = call.then(
    () => 'returned',
    (error) => error,
  );
  const first = await Promise.race([running.then(() => 'running'), outcome]);
  if (first !== 'running') throw new Error(`wait ended before it ran: ${first}`);
  return { outcome }; // wrapped: an async function returning the promise itself would await it
}

async function abortSeen(client, tag, tries) {
  for (let attempt = 0; attempt < tries; attempt += 1) {
    const text = textOf(await client.callTool('was_aborted', { tag }, { timeoutMs: CALL_TIMEOUT_MS }));
    if (text.startsWith('aborted')) return text;
    await new Promise((resolve) => setTimeout(resolve, ABORT_POLL_MS));
  }
  throw new Error(`the server never saw wait "${tag}" aborted`);
}

/**
 * Runs the scenario against `url`; never throws: a failed step is `{ step, ok: false, detail }`
 * and the steps after it still run where they can. `sessions: false` is for a server without legacy
 * sessions (a Worker isolate): the two steps that need one (a legacy elicitation, which answers on
 * a second POST to the same session, and a session's end) are `{ ok: 'n/a' }`; the modern step
 * still runs an elicitation round. `abortPollTries` (default 50, 100 ms apart) bounds how long a
 * disconnect may take to reach the server's handler.
 *
 * @example
 * const results = await driveSmoke('http://127.0.0.1:4000/mcp');
 */
export async function driveSmoke(url, { sessions = true, abortPollTries = ABORT_POLL_TRIES } = {}) {
  const results = [];
  const elicited = { count: 0 };
  let legacy;
  let modern;
  const step = async (name, body) => {
    try {
      results.push({ step: name, ok: true, detail: await body() });
    } catch (error) {
      results.push({
        step: name,
        ok: false,
        detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
    }
  };
  const needLegacy = () => {
    if (!legacy) throw new Error('no legacy client (initialize failed)');
    return legacy;
  };
  const needModern = async () => (modern ??= await connect(url, 'modern', elicited));

  await step('initialize', async () => {
    legacy = await connect(url, 'legacy', elicited);
    check(legacy.era === 'legacy', `era ${legacy.era}`);
    return check(
      legacy.serverInfo?.name?.startsWith('keel-runtime-smoke-'),
      `${legacy.serverInfo?.name} ${legacy.protocolVersion}`,
    );
  });

  await step('list', async () => {
    const names = (await needLegacy().listTools()).tools.map((tool) => tool.name).sort();
    return check(names.join(',') === 'ask,count,echo,wait,was_aborted', `tools ${names.join(',')}`);
  });

  await step('progress', async () => {
    const seen = [];
    const result = await needLegacy().callTool(
      'count',
      {},
      { timeoutMs: CALL_TIMEOUT_MS, onprogress: ({ progress }) => seen.push(progress) },
    );
    check(textOf(result) === 'counted 3', `result ${textOf(result)}`);
    return check(seen.join(',') === '1,2,3', `progress ${seen.join(',')}`);
  });

  const notApplicable = (name) => results.push({ step: name, ok: 'n/a', detail: 'needs a legacy session' });

  if (!sessions) notApplicable('elicitation');
  else
    await step('elicitation', async () => {
      const before = elicited.count;
      const text = textOf(await needLegacy().callTool('ask', {}, { timeoutMs: CALL_TIMEOUT_MS }));
      check(elicited.count === before + 1, `elicitation handler ran ${elicited.count - before} times`);
      return check(text === 'hello keel', `result ${text}`);
    });

  // 2026-07-28 over HTTP: closing a request's response stream is its cancel (the client aborts the
  // fetch; no notifications/cancelled exists in that era), so this is a real client disconnect.
  await step('disconnect', async () => {
    const client = await needModern();
    const controller = new AbortController();
    const { outcome } = await startWait(client, 'disconnect', controller.signal);
    controller.abort();
    const ended = await outcome;
    check(ended instanceof Error, `the aborted call ${ended}`);
    return check(
      (await abortSeen(client, 'disconnect', abortPollTries)) === 'aborted: CancelledByPeerError',
      'server saw CancelledByPeerError',
    );
  });

  // Legacy era: a dropped SSE stream is not a cancel (the client may resume), the end of the session
  // is. `close()` DELETEs the session; the server must abort the handler still running in it.
  if (!sessions) notApplicable('session-end');
  else
    await step('session-end', async () => {
      const client = needLegacy();
      const { outcome } = await startWait(client, 'session-end');
      await client.close();
      legacy = undefined;
      const ended = await outcome;
      check(ended instanceof Error, `the call after close ${ended}`);
      const seen = await abortSeen(await needModern(), 'session-end', abortPollTries);
      return check(seen.startsWith('aborted: '), `server saw ${seen}`);
    });

  await step('modern', async () => {
    const client = await needModern();
    check(
      client.era === 'modern' && client.protocolVersion === '2026-07-28',
      `era ${client.era} ${client.protocolVersion}`,
    );
    const echo = textOf(await client.callTool('echo', { text: 'hi' }, { timeoutMs: CALL_TIMEOUT_MS }));
    check(/^[\w.-]+: hi$/.test(echo), `echo ${echo}`);
    // ctx.elicit becomes an input_required round in this era: a second POST with the answer.
    const before = elicited.count;
    const asked = textOf(await client.callTool('ask', {}, { timeoutMs: CALL_TIMEOUT_MS }));
    check(
      asked === 'hello keel' && elicited.count === before + 1,
      `ask ${asked}, ${elicited.count - before} rounds`,
    );
    return echo;
  });

  // A resource template is registered and matched on this runtime: workerd refuses URI template
  // libraries that compile matchers with `Function(...)` (docs/runtimes.md).
  await step('template', async () => {
    const client = await needModern();
    const { resourceTemplates } = await client.listResourceTemplates({}, { timeoutMs: CALL_TIMEOUT_MS });
    const listed = resourceTemplates.map((template) => template.uriTemplate).join(',');
    check(listed === 'smoke://items/{id}{?lang}', `templates ${listed}`);
    const read = await client.readResource('smoke://items/a%20b?lang=en', { timeoutMs: CALL_TIMEOUT_MS });
    const text = read.contents?.[0]?.text;
    return check(text === 'item a b (en)', `read ${text}`);
  });

  await Promise.allSettled([legacy?.close(), modern?.close()]);
  return results;
}
