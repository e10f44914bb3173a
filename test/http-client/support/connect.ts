import { Client, type ClientOptions } from 'keel-mcp/client';
import { StreamableHttpClientTransport, type StreamableHttpClientOptions } from 'keel-mcp/http';
import { within } from '../../helpers/guard.js';

/** A low-level Client connected (handshake done) over a fresh Streamable HTTP client transport. */
export async function connectClient(
  url: string,
  options?: StreamableHttpClientOptions,
  clientOptions?: ClientOptions,
): Promise<{ client: Client; transport: StreamableHttpClientTransport }> {
  const transport = new StreamableHttpClientTransport(url, options);
  const client = new Client({ name: 'keel-test', version: '1.0.0' }, clientOptions);
  await within(client.connect(transport), 5_000, 'connect');
  return { client, transport };
}

/** Settle a promise into a value or the error it rejected with (bounded). */
export function outcome(promise: Promise<unknown>, ms = 5_000): Promise<unknown> {
  return within(
    promise.then(
      (value: unknown) => value,
      (error: unknown) => error,
    ),
    ms,
    'request',
  );
}
