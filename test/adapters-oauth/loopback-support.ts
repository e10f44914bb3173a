/**
 * Shared by the loopbackRedirect tests: a recording browser hook and raw-socket probes of the
 * listener.
 */
import { connect } from 'node:net';

export const AUTHORIZE = new URL('https://as.example/authorize?client_id=c&state=s1&code_challenge=x');

/** A browser hook that records what it was asked to open. */
export function recorder() {
  const opened: URL[] = [];
  return { opened, openBrowser: (url: URL) => void opened.push(url) };
}

/** Resolves true if a TCP connection to `port` is refused (the listener is gone). */
export function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

export const portOf = (uri: string): number => Number(new URL(uri).port);

/** Poll (at most 200 times, 10 ms apart) until the listener on `uri` refuses connections. */
export async function released(uri: string): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (await refused(portOf(uri))) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

/** Send raw bytes on one connection and collect everything until the server closes it. */
export function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.once('close', () => resolve(text));
    socket.once('error', reject);
  });
}
