// Just enough of a Chrome DevTools Protocol client to force a full GC in another Node process
// from the outside: the process is started with `--inspect-port=0` in NODE_OPTIONS (which opens
// nothing), SIGUSR1 opens the inspector, and a minimal WebSocket client sends
// `HeapProfiler.collectGarbage` / `Runtime.getHeapUsage`. The server code is not touched, so
// this is the same for every server.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Opens the inspector of `server` (an HttpServerProcess whose stderr is captured). */
export async function openInspector(server, timeoutMs = 5_000) {
  process.kill(server.pid, 'SIGUSR1');
  const deadline = Date.now() + timeoutMs;
  let match;
  while (!(match = /Debugger listening on ws:\/\/([\d.]+):(\d+)(\/[\w-]+)/.exec(server.stderr))) {
    if (Date.now() > deadline) throw new Error(`inspector did not open: ${server.stderrTail()}`);
    await sleep(20);
  }
  return InspectorClient.connect(match[1], Number(match[2]), match[3]);
}

class InspectorClient {
  static connect(host, port, path) {
    return new Promise((resolve, reject) => {
      const socket = connect(port, host, () => {
        socket.write(
          `GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        );
      });
      let buffer = Buffer.alloc(0);
      const onData = (chunk) => {
        buffer = Buffer.concat([buffer, chunk]);
        const end = buffer.indexOf('\r\n\r\n');
        if (end === -1) return;
        socket.off('data', onData);
        if (!/^HTTP\/1\.1 101/.test(buffer.toString('latin1', 0, end))) {
          socket.destroy();
          reject(new Error('inspector refused the WebSocket upgrade'));
          return;
        }
        resolve(new InspectorClient(socket, buffer.subarray(end + 4)));
      };
      socket.on('data', onData);
      socket.once('error', reject);
    });
  }

  constructor(socket, rest) {
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    this.nextId = 1;
    this.pending = new Map();
    this.fragments = [];
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      for (const { reject } of this.pending.values()) reject(new Error('inspector connection closed'));
      this.pending.clear();
    });
    if (rest.length) this.onData(rest);
  }

  onData(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const b = this.buffer;
      if (b.length < 2) return;
      let length = b[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = Number(b.readBigUInt64BE(2));
        offset = 10;
      }
      if (b.length < offset + length) return;
      const payload = b.subarray(offset, offset + length);
      this.buffer = b.subarray(offset + length);
      const opcode = b[0] & 0x0f;
      if (opcode === 8) return void this.socket.destroy();
      if (opcode !== 0 && opcode !== 1) continue;
      this.fragments.push(payload);
      if ((b[0] & 0x80) === 0) continue;
      const message = JSON.parse(Buffer.concat(this.fragments).toString('utf8'));
      this.fragments = [];
      const pending = this.pending.get(message.id);
      if (!pending) continue;
      this.pending.delete(message.id);
      if (message.error) pending.reject(new Error(message.error.message));
      else pending.resolve(message.result);
    }
  }

  send(method, params = {}) {
    const id = this.nextId++;
    const payload = Buffer.from(JSON.stringify({ id, method, params }));
    const mask = randomBytes(4);
    let header;
    if (payload.length < 126) header = Buffer.from([0x81, 0x80 | payload.length]);
    else {
      header = Buffer.alloc(4);
      header[0] = 0x81;
      header[1] = 0x80 | 126;
      header.writeUInt16BE(payload.length, 2);
    }
    for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.write(Buffer.concat([header, mask, payload]));
    });
  }

  /** Full GC, then the heap's used size in bytes. */
  async collectGarbage() {
    await this.send('HeapProfiler.collectGarbage');
    const { usedSize } = await this.send('Runtime.getHeapUsage');
    return usedSize;
  }

  close() {
    this.socket.end(Buffer.from([0x88, 0x80, 0, 0, 0, 0]));
    this.socket.destroy();
  }
}
