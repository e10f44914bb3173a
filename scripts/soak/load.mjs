// The soak test's load (issue 28; docs/soak.md): Keel clients over Streamable HTTP, both eras,
// `workers` loops each picking one operation at a time for `durationMs`. Every call goes through
// the tally (scripts/soak/verdict.mjs), which knows what each kind must give.
import { McpClient } from '../../dist/pkg/client.js';
import { StreamableHttpClientTransport } from '../../dist/pkg/http.js';
import { CallTally } from './verdict.mjs';

/** A call that has not settled after this long is hung (the longest one lasts about 2 s). */
const CALL_BOUND_MS = 30_000;
/** Persistent clients per era; each worker uses one of them for its plain calls. */
const PERSISTENT = 2;

/** What each operation is, and how often it is picked (weights). */
const OPERATIONS = [
  ['short', 30],
  ['progress', 12],
  ['elicit', 12],
  ['cancel', 12],
  ['disconnect', 10],
  ['churn', 24],
];
const TOTAL_WEIGHT = OPERATIONS.reduce((sum, [, weight]) => sum + weight, 0);

function pick(random) {
  let r = random * TOTAL_WEIGHT;
  for (const [name, weight] of OPERATIONS) {
    if ((r -= weight) < 0) return name;
  }
  return OPERATIONS[0][0];
}

function connect(url, era) {
  return McpClient.connect(new StreamableHttpClientTransport(url, { reconnect: { initialDelayMs: 200 } }), {
    info: { name: `soak-${era}`, version: '1.0.0' },
    era,
    elicitation: { form: async () => ({ action: 'accept', content: { word: 'soak' } }) },
    timeoutMs: 10_000,
  });
}

const textOf = (result) => result?.content?.[0]?.text;
const expectText = (text) => (outcome) =>
  outcome.error
    ? `failed: ${outcome.error?.name}: ${String(outcome.error?.message).slice(0, 160)}`
    : textOf(outcome.value) === text
      ? 'ok'
      : `answered ${JSON.stringify(textOf(outcome.value))}, expected ${JSON.stringify(text)}`;
const expectError = (outcome) =>
  outcome.error ? 'expectedError' : 'answered although cancelled or disconnected';

/** Run the load; resolves with the tally once every worker stopped and every client closed. */
export async function runLoad({ url, workers, durationMs, log }) {
  const tally = new CallTally(CALL_BOUND_MS);
  const persistent = { legacy: [], modern: [] };
  for (const era of ['legacy', 'modern'])
    for (let i = 0; i < PERSISTENT; i++) persistent[era].push(await connect(url, era));
  const until = Date.now() + durationMs;
  let n = 0;
  let progressEvents = 0;

  const operation = async (name, era) => {
    const client = persistent[era][n % PERSISTENT];
    const id = ++n;
    const signal = AbortSignal.timeout(CALL_BOUND_MS * 2);
    switch (name) {
      case 'short':
        return tally.track(
          `${era} short`,
          client.callTool('short', { n: id }, { signal }),
          expectText(`short ${id}`),
        );
      case 'progress':
        return tally.track(
          `${era} progress`,
          client.callTool('progress', { steps: 3, ms: 200 }, { signal, onprogress: () => progressEvents++ }),
          expectText('progress 3'),
        );
      case 'elicit':
        return tally.track(
          `${era} elicit`,
          client.callTool('elicit', {}, { signal }),
          expectText('got soak'),
        );
      case 'cancel': {
        const controller = new AbortController();
        const call = client.callTool('slow', { ms: 2_000 }, { signal: controller.signal });
        setTimeout(() => controller.abort(new Error('soak: cancelled')), 50 + (id % 250));
        return tally.track(`${era} cancel`, call, expectError);
      }
      case 'disconnect': {
        // A fresh client that goes away mid-call: the server must let go of everything it held.
        const fresh = await connect(url, era);
        const call = fresh.callTool('slow', { ms: 2_000 }, { signal });
        const tracked = tally.track(`${era} disconnect`, call, expectError);
        await new Promise((done) => setTimeout(done, 50 + (id % 200)));
        await fresh.close();
        return tracked;
      }
      case 'churn': {
        const fresh = await connect(url, era);
        for (let k = 0; k < 2; k++) {
          const callId = ++n;
          await tally.track(
            `${era} churn`,
            fresh.callTool('short', { n: callId }, { signal }),
            expectText(`short ${callId}`),
          );
        }
        return fresh.close();
      }
    }
  };

  const worker = async (index) => {
    let turn = index;
    while (Date.now() < until) {
      const era = turn++ % 2 === 0 ? 'legacy' : 'modern';
      try {
        await operation(pick(Math.random()), era);
      } catch (error) {
        // Connecting a fresh client failed: counted, the loop goes on.
        tally.track(
          `${era} connect`,
          Promise.reject(error),
          (outcome) => `failed: ${outcome.error?.message}`,
        );
      }
    }
  };
  const ticker = setInterval(() => {
    const t = tally.totals();
    log(
      `${t.started} calls so far (${t.ok} ok, ${t.expectedError} expected errors, ${t.wrong + t.hung + t.duplicated} bad), ${progressEvents} progress notifications`,
    );
  }, 60_000);
  try {
    await Promise.all(Array.from({ length: workers }, (_, i) => worker(i)));
  } finally {
    clearInterval(ticker);
    await Promise.all([...persistent.legacy, ...persistent.modern].map((client) => client.close()));
  }
  return tally.finish();
}
