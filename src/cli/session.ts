/**
 * One command against one server: the transport, the client and its terminal handlers, Ctrl+C,
 * the progress bar and log lines; errors turned into a message and an exit code.
 */
import { safeText } from './safe-text.js';
import { McpClient } from '../client/index.js';
import { McpError } from '../core/errors.js';
import type { Progress } from '../core/engine/outbound.js';
import type { Transport } from '../core/transport.js';
import { StreamableHttpClientTransport } from '../transports/http/index.js';
import { StdioClientTransport } from '../transports/stdio/index.js';
import { CtrlC } from './interrupt.js';
import { StatusLine } from './progress-line.js';
import { describeTarget, parseHeaders, type ServerTarget } from './server-target.js';
import { terminalElicitation, terminalSampling, type PromptHost } from './terminal-requests.js';
import { CliFailure, EXIT, UsageError } from './usage.js';
import { requestLimits } from './limits.js';
import { oauthFor } from './oauth.js';

/** The options every command takes. */
export interface CommonOptions {
  json?: boolean;
  era: 'auto' | 'legacy' | 'modern';
  header: string[];
  timeout?: number;
  quiet?: boolean;
  sampling?: string;
  authPort?: number;
  browser: boolean;
}

/** What a command gets besides the client: per-request options and the output. */
export interface CommandContext {
  request: {
    signal: AbortSignal;
    timeoutMs?: number;
    maxTotalTimeoutMs?: number;
    onprogress: (p: Progress) => void;
  };
  describe: string;
  /** Write to stdout (the result) / stderr (above the progress bar). */
  out(text: string): void;
  err(text: string): void;
}

const STDERR_TAIL = 10;

/**
 * Connect to `target`, run `command`, close. Resolves with the exit code (never throws except
 * {@link UsageError}, which the caller prints with the usage line).
 *
 * @example
 * const code = await withServer(target, options, async (client, ctx) => { await client.ping(ctx.request); return 0; });
 */
export async function withServer(
  target: ServerTarget,
  options: CommonOptions,
  command: (client: McpClient, ctx: CommandContext) => Promise<number>,
): Promise<number> {
  const stderr = process.stderr;
  const status = new StatusLine(stderr, !options.quiet);
  const err = (text: string): void => status.print(safeText(text));
  const describe = describeTarget(target);
  const stderrTail: string[] = [];
  const transport: Transport =
    target.kind === 'http'
      ? httpTransport(target.url, options, err)
      : new StdioClientTransport({
          command: target.command,
          args: target.args,
          inheritEnv: true,
          stderr: 'pipe',
          onStderr: lineBuffer((line) => {
            stderrTail.push(line);
            if (stderrTail.length > STDERR_TAIL) stderrTail.shift();
            if (!options.quiet) err(line);
          }),
        });
  const ctrlC = new CtrlC({
    first: () => err('keel: cancelling… (Ctrl+C again to quit now)'),
    second: () => {
      status.clear();
      stderr.write('keel: cancelled\n');
      killChild(transport, 'SIGKILL');
      process.exit(EXIT.interrupted);
    },
  });
  const host: PromptHost = {
    interactive: Boolean(process.stdin.isTTY && stderr.isTTY),
    print: err,
    beforePrompt: () => {
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
    if (!options.quiet)
      err(
        `[${level}]${logger ? ` ${logger}:` : ''} ${typeof data === 'string' ? data : JSON.stringify(data)}`,
      );
  });
  const failure = (prefix: string, error: unknown, withTail = true): number => {
    status.clear();
    const tail =
      withTail && stderrTail.length > 0 ? `\n  last stderr lines:\n    ${stderrTail.join('\n    ')}` : '';
    stderr.write(safeText(`keel: ${prefix}: ${errorText(error)}${tail}`) + '\n');
    return EXIT.failure;
  };
  ctrlC.install();
  try {
    try {
      await client.connect(transport, { signal: ctrlC.signal, timeoutMs: options.timeout });
    } catch (error) {
      if (ctrlC.signal.aborted) return cancelled(status);
      return failure(`cannot connect to ${describe}`, error);
    }
    if (!options.quiet && client.serverCapabilities?.logging) {
      await client.setLoggingLevel('debug', { signal: ctrlC.signal }).catch(() => undefined);
    }
    const ctx: CommandContext = {
      request: {
        signal: ctrlC.signal,
        ...requestLimits(host.interactive, options.timeout),
        onprogress: (p) => status.progress(p),
      },
      describe,
      out: (text) => {
        status.clear();
        const safe = safeText(text);
        process.stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`);
      },
      err: (text) => {
        status.clear();
        const safe = safeText(text);
        stderr.write(safe.endsWith('\n') ? safe : `${safe}\n`);
      },
    };
    try {
      return await command(client, ctx);
    } catch (error) {
      if (ctrlC.signal.aborted) return cancelled(status);
      if (error instanceof UsageError || error instanceof CliFailure) throw error;
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
    status.clear();
    // Ctrl+C stays ours until the server is gone: a second press during a slow close exits at once.
    await client.close().catch(() => undefined);
    ctrlC.dispose();
    process.off('exit', onExit);
  }
}

function cancelled(status: StatusLine): number {
  status.clear();
  process.stderr.write('keel: cancelled\n');
  return EXIT.interrupted;
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause =
    error.cause instanceof Error && !error.message.includes(error.cause.message)
      ? ` (${error.cause.message})`
      : '';
  return `${error.message}${cause}`;
}

/** Whole lines of a chunked text stream. */
function lineBuffer(onLine: (line: string) => void): (text: string) => void {
  let pending = '';
  return (text) => {
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line.replace(/\r$/, ''));
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
