// Smoke test with a client nobody here wrote: the official TypeScript SDK client (a devDependency)
// calls `test_simple_text` over stdio and over Streamable HTTP and checks the answer.
//
// Usage: node sdk-client-smoke.mjs [--stdio '["node","dist/examples/fixture-stdio.js"]'] [--http URL]
// Prints one line per transport; exits 0 only if every requested transport worked.
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const STEP_TIMEOUT_MS = 15_000;

function bounded(promise, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} took longer than ${STEP_TIMEOUT_MS} ms`)),
      STEP_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

async function callSimpleText(label, transport) {
  const client = new Client({ name: 'keel-conformance-smoke', version: '0.0.0' });
  try {
    await bounded(client.connect(transport), `${label}: connect`);
    const result = await bounded(
      client.callTool({ name: 'test_simple_text' }, undefined, { timeout: STEP_TIMEOUT_MS }),
      `${label}: tools/call`,
    );
    const first = result.content?.[0];
    if (result.isError || first?.type !== 'text' || !first.text) {
      throw new Error(`unexpected result ${JSON.stringify(result)}`);
    }
    if (transport instanceof StreamableHTTPClientTransport) {
      // Ends the session with DELETE, as a well-behaved client does (a server may answer 405).
      await bounded(transport.terminateSession(), `${label}: DELETE session`);
    }
    console.log(`ok   sdk-client ${label}: ${JSON.stringify(first.text)}`);
    return true;
  } catch (error) {
    console.log(`FAIL sdk-client ${label}: ${error?.message ?? error}`);
    return false;
  } finally {
    await bounded(client.close(), `${label}: close`).catch((error) => {
      console.log(`FAIL sdk-client ${label}: close: ${error.message}`);
    });
  }
}

const { values } = parseArgs({ options: { stdio: { type: 'string' }, http: { type: 'string' } } });
let ok = true;
if (values.stdio) {
  const [command, ...args] = JSON.parse(values.stdio);
  const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
  ok = (await callSimpleText('stdio', transport)) && ok;
}
if (values.http) {
  ok = (await callSimpleText('http', new StreamableHTTPClientTransport(new URL(values.http)))) && ok;
}
process.exitCode = ok ? 0 : 1;
