/**
 * A one-shot JSON POST for the bench tests: a fresh connection per request (no keep-alive socket
 * outlives the test), the answer's status, headers and body text.
 */
import { request, type IncomingHttpHeaders } from 'node:http';

/** What came back. */
export interface Posted {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * @example
 * const { status, text } = await postJson(3000, '{"jsonrpc":"2.0","id":1,"method":"ping"}');
 */
export function postJson(port: number, body: string, headers: Record<string, string> = {}): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/mcp',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          connection: 'close',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const INITIALIZE =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench-test","version":"1.0.0"}}}';
