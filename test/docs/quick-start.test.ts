/**
 * The curl walkthrough of docs/contributing.md ("The fixture server, step by step"), replayed
 * with fetch against the same fixture server `npm start` serves (on port 0 instead of 3000): same
 * methods, headers and bodies, in order, with the session id copied from the initialize answer as
 * the reader is told to.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { createFixtureServer } from '../../examples/fixture-server.js';
import { useProcessGuard } from '../helpers/guard.js';
import { ROOT } from './readme-blocks.mjs';

useProcessGuard();

const DOC = 'docs/contributing.md';
const SECTION = '## The fixture server, step by step';
const DOC_URL = 'http://127.0.0.1:3000/mcp';

interface Curl {
  method: string;
  headers: [string, string][];
  body: string | undefined;
  url: string;
}

/** Split a shell command line into words ('single', "double" and bare words; no expansion). */
function words(line: string): string[] {
  const out: string[] = [];
  for (const [, single, double, bare] of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) {
    out.push(single ?? double ?? bare!);
  }
  return out;
}

function parseCurl(line: string): Curl {
  const args = words(line);
  expect(args[0]).toBe('curl');
  const curl: Curl = { method: '', headers: [], body: undefined, url: '' };
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-X') curl.method = args[++i]!;
    else if (arg === '-H') {
      const header = args[++i]!;
      const colon = header.indexOf(':');
      curl.headers.push([header.slice(0, colon), header.slice(colon + 1).trim()]);
    } else if (arg === '-d') curl.body = args[++i];
    else if (arg.startsWith('http')) curl.url = arg;
    else expect(['-s', '-si', '-i'], `unexpected curl option ${arg}`).toContain(arg);
  }
  curl.method ||= curl.body === undefined ? 'GET' : 'POST';
  return curl;
}

/** The curl commands of the walkthrough, in reading order (code blocks and inline code). */
function walkthroughCommands(): { commands: Curl[]; answer: unknown } {
  const doc = readFileSync(join(ROOT, DOC), 'utf8');
  const start = doc.indexOf(`\n${SECTION}\n`);
  expect(start, `${DOC} has a section "${SECTION}"`).toBeGreaterThan(-1);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const commands: Curl[] = [];
  let answer: unknown;
  for (const [, fence, lang, body, inline] of section.matchAll(
    /(```(\w*)\n([\s\S]*?)\n```)|`(curl [^`]+)`/g,
  )) {
    if (inline) commands.push(parseCurl(inline));
    else if (fence && lang === 'json') answer = JSON.parse(body!);
    else if (fence && lang === 'sh') {
      for (const line of body!.replace(/\\\n\s*/g, '').split('\n')) {
        if (line.startsWith('curl ')) commands.push(parseCurl(line));
      }
    }
  }
  return { commands, answer };
}

let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

test('the curl commands of the contributing walkthrough work against the fixture server, as it says', async () => {
  const { commands, answer } = walkthroughCommands();
  expect(commands.map((c) => c.method)).toEqual(['POST', 'POST', 'POST', 'POST', 'DELETE']);
  expect(commands.every((c) => c.url === DOC_URL)).toBe(true);

  serving = await serveHttp(createFixtureServer(), { port: 0, host: '127.0.0.1', path: '/mcp' });
  // One bound for the whole walkthrough, cleared at the end (AbortSignal.timeout would leave an
  // unref'd timer per request pending after the test, which the process guard reports).
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('the walkthrough took over 10 s')), 10_000);
  let session = '';
  const send = (curl: Curl): Promise<Response> =>
    fetch(serving!.url, {
      method: curl.method,
      headers: curl.headers.map(([name, value]): [string, string] => [
        name,
        value.replace('$SESSION', session),
      ]),
      body: curl.body ?? null,
      signal: deadline.signal,
    });

  const [initialize, initialized, call, progress, remove] = commands as [Curl, Curl, Curl, Curl, Curl];
  const init = await send(initialize);
  expect(init.status).toBe(200);
  session = init.headers.get('mcp-session-id') ?? '';
  expect(session).not.toBe('');
  expect(await init.json()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });

  const ack = await send(initialized);
  expect(ack.status).toBe(202);
  await ack.body?.cancel();

  const result = await send(call);
  expect(result.status).toBe(200);
  expect(result.headers.get('content-type')).toContain('application/json');
  expect(await result.json()).toEqual(answer);

  const streamed = await send(progress);
  expect(streamed.status).toBe(200);
  expect(streamed.headers.get('content-type')).toContain('text/event-stream');
  const events = await streamed.text();
  expect(events).toContain(`id: ${session}:`);
  expect(events).toContain('"method":"notifications/progress","params":{"progressToken":"p1","progress":0');
  expect(events).toContain(
    '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Progress tool finished"}]}}',
  );

  const deleted = await send(remove);
  expect(deleted.status).toBe(200);
  await deleted.body?.cancel();
  const after = await send(call);
  expect(after.status).toBe(404);
  await after.body?.cancel();
  clearTimeout(timer);
});
