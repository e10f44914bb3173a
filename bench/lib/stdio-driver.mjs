// The stdio load generator: spawns one server as `node <file>`, speaks newline-delimited
// JSON-RPC to it, answers its sampling requests, and checks every answer.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import {
  INITIALIZED,
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

export class StdioDriver {
  /**
   * Spawn `node <file>` and send `initialize` at once. `spawnToInitializeMs` is the time from
   * just before the spawn to the initialize answer.
   */
  static async start(file, { nodeArgs = [], env = {}, timeoutMs = 15_000 } = {}) {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, file], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const driver = new StdioDriver(child);
    const answer = driver.send(1, initializeRequest(1));
    const message = await withTimeout(
      answer,
      timeoutMs,
      () => `initialize timed out (${driver.stderrTail()})`,
    );
    driver.spawnToInitializeMs = performance.now() - t0;
    checkInitialize(message, 1);
    driver.child.stdin.write(INITIALIZED + '\n');
    return driver;
  }

  constructor(child) {
    this.child = child;
    this.pid = child.pid;
    this.nextId = 2;
    this.pending = new Map();
    this.buffer = '';
    this.stderr = '';
    this.failure = undefined;
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => this.onData(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-2000);
    });
    child.stdin.on('error', (error) => this.fail(error));
    child.once('exit', (code, signal) =>
      this.fail(new Error(`server exited (${code ?? signal}): ${this.stderrTail()}`)),
    );
  }

  stderrTail() {
    return this.stderr.trim().split('\n').slice(-5).join(' | ');
  }

  onData(chunk) {
    let text = this.buffer + chunk;
    let newline;
    while ((newline = text.indexOf('\n')) !== -1) {
      const line = text.slice(0, newline);
      text = text.slice(newline + 1);
      if (line.trim() !== '') this.onLine(line);
    }
    this.buffer = text;
  }

  onLine(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.fail(new Error(`server wrote a non-JSON line: ${line.slice(0, 200)}`));
      return;
    }
    if (typeof message.method === 'string') {
      // A server→client request (sampling) gets an answer; notifications are ignored.
      if (message.id !== undefined) {
        try {
          this.child.stdin.write(samplingAnswer(message) + '\n');
        } catch (error) {
          this.fail(error);
        }
      }
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) {
      this.fail(new Error(`answer to unknown id: ${line.slice(0, 200)}`));
      return;
    }
    this.pending.delete(message.id);
    pending.resolve(message);
  }

  fail(error) {
    if (this.failure) return;
    this.failure = error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  send(id, body) {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(body + '\n');
    });
  }

  /** One checked `echo` call. */
  async echo() {
    const id = this.nextId++;
    const message = await this.send(id, echoRequest(id));
    checkToolResult(message, id, echoText(id));
  }

  /** One checked `wait_sampling` call (the sampling request is answered in `onLine`). */
  async sampling() {
    const id = this.nextId++;
    const message = await this.send(id, samplingToolRequest(id));
    checkToolResult(message, id, sampledText(samplingPrompt(id)));
  }

  /** Close stdin (EOF) and wait for the exit; kill after `graceMs`. */
  async stop(graceMs = 3_000) {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const result = await this.exited;
    clearTimeout(timer);
    return result;
  }
}

export function withTimeout(promise, ms, message) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(typeof message === 'function' ? message() : message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
