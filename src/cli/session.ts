/**
 * One command against one server: the transport, the client and its terminal handlers, Ctrl+C,
 * the progress bar and log lines; errors turned into a message and an exit code.
 */
import { McpClient } from '../client/index.js';
import { McpError, RequestTimeoutError } from '../core/errors.js';
import type { Progress } from '../core/engine/outbound.js';
import type { Transport } from '../core/transport.js';
import { StreamableHttpClientTransport } from '../transports/http/client/index.js';
import { StdioClientTransport } from '../transports/stdio/stdio-client-transport.js';
import { failureText } from './failure-text.js';
import { CtrlC } from './interrupt.js';
import { StatusLine } from './progress-line.js';
import { describeTarget, parseHeaders, type ServerTarget } from './server-target.js';
import { terminalElicitation, terminalSampling, type PromptHost } from './terminal-requests.js';
import { CliFailure, EXIT, UsageError } from './usage.js';
import { Deadline, formatDuration, requestLimits } from './limits.js';
import { oauthFor } from './oauth.js';
import { safeJson, safeLine, safeText } from './safe-text.js';
import { WaitNotice } from './wait-notice.js';
import type { CommonOptions } from './common-options.js';

/** What a command gets besides the client: per-request options and the output. */
export interface CommandContext {
  request: {
    signal: AbortSignal;
    timeoutMs?: number;
    maxTotalTimeoutMs?: number;
    onprogress: (p: Progress) => void;
  };
  describe: string;
  /** A task's status on stderr (one updating line on a terminal, plain lines otherwise). */
  taskStatus(text: string): void;
  /** stdout's width when it is a terminal (listings are cut to it), else undefined. */
  columns: number | undefined;
  /** Write to stdout (the result) / stderr (above the progress bar), control characters escaped. */
  out(text: string): void;
  err(text: string): void;
  /** `--json`: the value as indented JSON on stdout (C1 controls as `\u` escapes: still JSON). */
  json(value: unknown): void;
}

/** Server stderr lines kept: the tail shown on failure, and what to compare its message with. */
const STDERR_KEEP = 50;
const STDERR_TAIL = 10;

/**
 * Connect to `target`, run `command`, close. Resolves with the exit code (never throws except
 * {@link UsageError}, which the caller prints with the usage line). `what` names the command's
 * request in messages (`tools/call echo`).
 *
 * @example
 * const code = await withServer(target, options, 'ping', async (client, ctx) => { await client.ping(ctx.request); return 0; });
 */
export async function withServer(
  target: ServerTarget,
  options: CommonOptions,
  what: string,
  command: (client: McpClient, ctx: CommandContext) => Promise<number>,
): Promise<number> {
  const stderr = process.stderr;
  const status = new StatusLine(stderr, !options.quiet);
  const err = (text: string): void => status.print(safeText(text));
  const describe = describeTarget(target);
  const stderrLines: string[] = [];
  const serverStderr = lineBuffer((line) => {
    stderrLines.push(line);
    if (stderrLines.length > STDERR_KEEP) stderrLines.shift();
    if (!options.quiet) err(line);
  });
  const transport: Transport =
    target.kind === 'http'
      ? httpTransport(target.url, options, err)
      : new StdioClientTransport({
          command: target.command,
          args: target.args,
          inheritEnv: true,
          stderr: 'pipe',
          onStderr: serverStderr.push,
        });
  // "keel: cancelled" once, whichever comes first: the cancelled command, or a second Ctrl+C.
  let saidCancelled = false;
  const sayCancelled = (): void => {
    status.clear();
    if (!saidCancelled) stderr.write('keel: cancelled\n');
    saidCancelled = true;
  };
  const ctrlC = new CtrlC({
    first: () => {
      notice.stop();
      err('keel: cancelling… (Ctrl+C again to quit now)');
    },
    second: () => {
      sayCancelled();
      killChild(transport, 'SIGKILL');
      process.exit(EXIT.interrupted);
    },
  });
  const deadline = new Deadline(options.timeout);
  const signal =
    options.timeout === undefined ? ctrlC.signal : AbortSignal.any([ctrlC.signal, deadline.signal]);
  const notice = new WaitNotice(err, describe, {
    enabled: Boolean(stderr.isTTY) && !options.quiet,
    timeoutGiven: options.timeout !== undefined,
  });
  let phase = 'connecting';
  const waitFor = (next: string): void => {
    phase = next;
    notice.waitFor(next);
  };
  const host: PromptHost = {
    interactive: Boolean(process.stdin.isTTY && stderr.isTTY),
    print: err,
    beforePrompt: () => {
      notice.heard();
      status.clear();
      ctrlC.suspend();
    },
    afterPrompt: () => ctrlC.resume(),
  };
  const onExit = (): void => killChild(transport, 'SIGKILL');
  process.on('exit', onExit);
  const client = new McpClient(
    { name: 'keel-cli', version: '0.1.0' },
    {
      era: options.era,
      elicitation: terminalElicitation(host),
      sampling: terminalSampling(host, options.sampling === 'prompt'),
    },
  );
  client.on('log', ({ level, logger, data }) => {
    notice.heard();
    if (!options.quiet)
      err(
        `[${safeLine(String(level))}]${logger ? ` ${safeLine(String(logger))}:` : ''} ${typeof data === 'string' ? data : JSON.stringify(data)}`,
      );
  });
  // A server that prints to its stdout breaks other clients: say so once (the client reports the
  // first such line per connection), even with --quiet, since it is the server author's bug.
  client.on('protocolError', (error) => {
    status.clear();
    err(`keel: warning: ${error.message}`);
  });
  const failure = (prefix: string, error: unknown, withStderr = true): number => {
    status.clear();
    serverStderr.flush();
    const seen = withStderr
      ? { shown: options.quiet ? [] : stderrLines, tail: stderrLines.slice(-STDERR_TAIL) }
      : { shown: [], tail: [] };
    stderr.write(`${safeText(failureText(prefix, error, seen))}\n`);
    return EXIT.failure;
  };
  // The command's --timeout, or a request's own (the client's defaults without a terminal).
  const timedOut = (error: unknown): number | undefined => {
    const limit = deadline.expired ? deadline.ms : timeoutOf(error);
    if (limit === undefined) return undefined;
    status.clear();
    const hint = deadline.expired ? '' : ' (--timeout sets the limit)';
    stderr.write(
      `keel: timed out after ${formatDuration(limit)} waiting for ${safeText(describe)} to answer (${safeText(phase)})${hint}\n`,
    );
    return EXIT.timeout;
  };
  ctrlC.install();
  try {
    try {
      waitFor('connecting');
      await client.connect(transport, {
        signal,
        ...(options.timeout === undefined ? {} : { timeoutMs: Infinity }),
      });
    } catch (error) {
      if (ctrlC.signal.aborted) return cancelled(sayCancelled);
      return timedOut(error) ?? failure(`cannot connect to ${describe}`, error);
    }
    waitFor(what);
    if (!options.quiet && client.serverCapabilities?.logging) {
      await client.setLoggingLevel('debug', { signal }).catch(() => undefined);
    }
    const ctx: CommandContext = {
      request: {
        signal,
        ...requestLimits(host.interactive, options.timeout),
        onprogress: (p) => {
          notice.heard();
          status.progress(p);
        },
      },
      describe,
      taskStatus: (text) => {
        notice.heard();
        if (!options.quiet) status.task(text);
      },
      columns: process.stdout.isTTY ? process.stdout.columns : undefined,
      out: (text) => {
        notice.stop();
        status.clear();
        const safe = safeText(text);
        process.stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`);
      },
      err: (text) => {
        notice.stop();
        status.clear();
        const safe = safeText(text);
        stderr.write(safe.endsWith('\n') ? safe : `${safe}\n`);
      },
      json: (value) => {
        notice.stop();
        status.clear();
        process.stdout.write(`${safeJson(JSON.stringify(value, null, 2))}\n`);
      },
    };
    try {
      return await command(client, ctx);
    } catch (error) {
      if (ctrlC.signal.aborted) return cancelled(sayCancelled);
      if (error instanceof UsageError || error instanceof CliFailure) throw error;
      const timeout = timedOut(error);
      if (timeout !== undefined) return timeout;
      if (error instanceof McpError)
        return failure(`${describe} answered an error (${error.code})`, error, false);
      return failure(describe, error);
    }
  } catch (error) {
    if (error instanceof CliFailure) {
      status.clear();
      stderr.write(`keel: ${safeText(error.message)}\n`);
      return error.exitCode;
    }
    throw error;
  } finally {
    notice.stop();
    deadline.dispose();
    status.clear();
    // Ctrl+C stays ours until the server is gone: a second press during a slow close exits at once.
    await client.close().catch(() => undefined);
    ctrlC.dispose();
    process.off('exit', onExit);
  }
}

function cancelled(say: () => void): number {
  say();
  return EXIT.interrupted;
}

/** The limit of a request that timed out (the error itself, or the reason in its cause chain). */
function timeoutOf(error: unknown): number | undefined {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 6; depth++, current = current.cause) {
    if (current instanceof RequestTimeoutError) return current.timeoutMs;
  }
  return undefined;
}

/** Whole lines of a chunked text stream; `flush` hands over a last line without its newline. */
function lineBuffer(onLine: (line: string) => void): { push: (text: string) => void; flush: () => void } {
  let pending = '';
  return {
    push: (text) => {
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(line.replace(/\r$/, ''));
    },
    flush: () => {
      if (pending === '') return;
      const line = pending;
      pending = '';
      onLine(line.replace(/\r$/, ''));
    },
  };
}

/** The stdio server never outlives `keel`, however it exits. */
function killChild(transport: Transport, signal: NodeJS.Signals): void {
  const pid = transport instanceof StdioClientTransport ? transport.pid : undefined;
  if (pid === undefined) return;
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

function httpTransport(url: URL, options: CommonOptions, print: (line: string) => void): Transport {
  const headers = parseHeaders(options.header);
  return new StreamableHttpClientTransport(url, {
    headers,
    auth: oauthFor(url, { ...options, headers }, print),
  });
}
