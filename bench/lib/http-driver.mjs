// The HTTP load generator: raw node:http with a keep-alive Agent, hand-built bodies, the full
// legacy handshake (initialize → initialized, session id and protocol version headers), JSON
// or SSE answers, and sampling requests answered by POSTing the response back.
import { Agent, request } from 'node:http';
import {
  INITIALIZED,
  PROTOCOL_VERSION,
  checkInitialize,
  checkToolResult,
  echoRequest,
  echoText,
  initializeRequest,
  sampledText,
  samplingAnswer,
  samplingPrompt,
  samplingToolRequest,
} from './wire.mjs';

export class HttpTarget {
  constructor(port, maxSockets) {
    this.port = port;
    // `timeout` closes pooled sockets idle for 2 s from this side, well before the servers'
    // 5 s keep-alive timeout, so a request never races the server closing its socket.
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: 2_000 });
  }

  close() {
    this.agent.destroy();
  }

  /**
   * POST `body`; resolves with `{ status, headers, messages }` once the response ended. Server
   * requests found on an SSE answer are answered through `onServerRequest`.
   */
  post(body, headers, onServerRequest) {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          method: 'POST',
          path: '/mcp',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': Buffer.byteLength(body),
            ...headers,
          },
        },
        (res) => {
          const type = res.headers['content-type'] ?? '';
          const messages = [];
          const followUps = [];
          let text = '';
          res.setEncoding('utf8');
          if (type.startsWith('text/event-stream')) {
            let data = '';
            const onChunk = (chunk) => {
              text += chunk;
              let newline;
              while ((newline = text.indexOf('\n')) !== -1) {
                let line = text.slice(0, newline);
                text = text.slice(newline + 1);
                if (line.endsWith('\r')) line = line.slice(0, -1);
                if (line === '') {
                  if (data !== '') {
                    const message = JSON.parse(data);
                    data = '';
                    if (typeof message.method === 'string' && message.id !== undefined) {
                      if (!onServerRequest) throw new Error(`unexpected server request ${message.method}`);
                      const followUp = onServerRequest(message);
                      // Handled at once; its failure still fails this call through Promise.all.
                      followUp.catch(() => {});
                      followUps.push(followUp);
                    } else {
                      messages.push(message);
                    }
                  }
                } else if (line.startsWith('data:')) {
                  const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
                  data = data === '' ? value : `${data}\n${value}`;
                }
              }
            };
            res.on('data', (chunk) => {
              try {
                onChunk(chunk);
              } catch (error) {
                reject(error);
                res.destroy();
              }
            });
          } else {
            res.on('data', (chunk) => (text += chunk));
          }
          res.on('error', reject);
          res.on('end', () => {
            try {
              if (!type.startsWith('text/event-stream') && text !== '') messages.push(JSON.parse(text));
            } catch (error) {
              reject(
                new Error(`bad JSON answer (${res.statusCode}): ${text.slice(0, 200)}`, { cause: error }),
              );
              return;
            }
            Promise.all(followUps).then(
              () => resolve({ status: res.statusCode, headers: res.headers, messages }),
              reject,
            );
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}

/** One client session: handshake, then checked tool calls. */
export class HttpSession {
  constructor(target) {
    this.target = target;
    this.nextId = 1;
    this.headers = {};
    this.answerSampling = (message) => this.postBack(message);
  }

  async open() {
    const id = this.nextId++;
    const answer = await this.target.post(initializeRequest(id), {
      'mcp-protocol-version': PROTOCOL_VERSION,
    });
    if (answer.status !== 200 || answer.messages.length !== 1) {
      throw new Error(`initialize: HTTP ${answer.status} ${JSON.stringify(answer.messages).slice(0, 200)}`);
    }
    const version = checkInitialize(answer.messages[0], id);
    this.headers = { 'mcp-protocol-version': version };
    const sessionId = answer.headers['mcp-session-id'];
    if (typeof sessionId === 'string') this.headers['mcp-session-id'] = this.sessionId = sessionId;
    const ack = await this.target.post(INITIALIZED, this.headers);
    if (ack.status !== 202) throw new Error(`initialized: HTTP ${ack.status}`);
    return this;
  }

  async call(id, body, text) {
    const answer = await this.target.post(body, this.headers, this.answerSampling);
    if (answer.status !== 200) throw new Error(`tools/call: HTTP ${answer.status}`);
    const result = answer.messages.find((message) => message.id === id);
    if (!result) throw new Error(`no answer for id ${id}: ${JSON.stringify(answer.messages).slice(0, 200)}`);
    checkToolResult(result, id, text);
  }

  echo() {
    const id = this.nextId++;
    return this.call(id, echoRequest(id), echoText(id));
  }

  sampling() {
    const id = this.nextId++;
    return this.call(id, samplingToolRequest(id), sampledText(samplingPrompt(id)));
  }

  async postBack(message) {
    const ack = await this.target.post(samplingAnswer(message), this.headers);
    if (ack.status !== 202 && ack.status !== 200) throw new Error(`sampling answer: HTTP ${ack.status}`);
  }

  /** DELETE the session (stateful servers). */
  close() {
    if (!this.sessionId) return Promise.resolve();
    return new Promise((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.target.port,
          method: 'DELETE',
          path: '/mcp',
          agent: this.target.agent,
          headers: this.headers,
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', resolve);
      req.end();
    });
  }
}
