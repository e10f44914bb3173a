/**
 * The `keel` command line: parse it (commander, loaded here and only by the bin), find the server,
 * run the command, return the exit code.
 */
import type { Command as CommandType } from 'commander';
import * as run from './commands.js';
import { parseDuration } from './limits.js';
import { safeText } from './safe-text.js';
import { resolveTarget, splitAtDashDash } from './server-target.js';
import type { CommonOptions } from './common-options.js';
import { withServer } from './session.js';
import { EXIT, UsageError } from './usage.js';
import type { DoctorCliOptions } from './doctor/doctor-command.js';

type Kind = 'tools' | 'resources' | 'prompts' | 'call' | 'read' | 'prompt' | 'ping';
type Options = CommonOptions & run.OutputOptions;

const COMMANDS: { kind: Kind; usage: string; summary: string; operands: 'none' | 'one' | 'pairs' }[] = [
  {
    kind: 'tools',
    usage: '<server>',
    summary: "list the server's tools and their arguments",
    operands: 'none',
  },
  {
    kind: 'resources',
    usage: '<server>',
    summary: 'list resources and resource templates',
    operands: 'none',
  },
  { kind: 'prompts', usage: '<server>', summary: 'list prompts and their arguments', operands: 'none' },
  { kind: 'call', usage: '<server> <tool> [key=value...]', summary: 'call a tool', operands: 'pairs' },
  { kind: 'read', usage: '<server> <uri>', summary: 'read a resource', operands: 'one' },
  { kind: 'prompt', usage: '<server> <name> [key=value...]', summary: 'get a prompt', operands: 'pairs' },
  { kind: 'ping', usage: '<server>', summary: 'check that the server answers', operands: 'none' },
];

const SERVER_HELP = `
<server> is an http(s):// URL, or a command after --:
  keel tools -- node server.js
  keel call https://example.com/mcp echo text=hi
key=value arguments are typed from the tool's input schema; key:=<json> sends raw JSON.
--timeout is in seconds (30, 1.5) unless a unit is given: 500ms, 30s, 2m.
Exit codes: 0 ok, 1 tool/server/connection error, 2 usage error, 124 timeout, 130 Ctrl+C.`;

/**
 * Run `keel` with `argv` (without node and the script); resolves with the exit code.
 *
 * @example
 * process.exitCode = await main(['tools', '--', 'node', 'server.js']);
 */
export async function main(argv: readonly string[]): Promise<number> {
  const { before, command } = splitAtDashDash(argv);
  const { Command, CommanderError, InvalidArgumentError, Option } = await import('commander');
  let outcome: Promise<number> | undefined;
  const usageOf = (kind: string | undefined): string => {
    const spec = COMMANDS.find((c) => c.kind === kind);
    return spec
      ? `Usage: keel ${spec.kind} ${spec.usage} [options]`
      : 'Usage: keel <command> <server> [...] [options]';
  };
  const integer = (name: string, min: number, max: number) => (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max)
      throw new InvalidArgumentError(`${name} must be an integer ${min}..${max}`);
    return n;
  };
  const duration = (value: string): number => {
    const ms = parseDuration(value);
    if (ms === undefined)
      throw new InvalidArgumentError('--timeout must be seconds (30, 1.5) or have a unit (500ms, 30s, 2m)');
    return ms;
  };
  const program: CommandType = new Command('keel')
    .description('A command-line client for MCP servers (stdio or Streamable HTTP, both protocol eras).')
    .version('0.1.0')
    .usage('<command> <server> [...] [options]')
    .addHelpText('after', SERVER_HELP)
    .exitOverride()
    .showSuggestionAfterError(true);
  for (const spec of COMMANDS) {
    const sub = program
      .command(spec.kind)
      .description(spec.summary)
      .usage(`${spec.usage} [options]`)
      .argument(spec.operands === 'none' ? '[server]' : '[server-and-arguments...]')
      .option('--json', 'print the raw result JSON')
      .addOption(
        new Option('--era <era>', 'protocol era').choices(['auto', 'legacy', 'modern']).default('auto'),
      )
      .option(
        '-H, --header <header>',
        "HTTP header 'Name: value' (repeatable)",
        (v, all: string[]) => [...all, v],
        [],
      )
      .option(
        '--timeout <duration>',
        'give up after this long, connecting included (seconds, or 500ms, 30s, 2m)',
        duration,
      )
      .option('-q, --quiet', 'no progress bar, log lines or server stderr')
      .addOption(new Option('--sampling <mode>', "answer the server's sampling requests").choices(['prompt']))
      .option(
        '--auth-port <port>',
        'loopback port of the OAuth redirect (default 8976)',
        integer('--auth-port', 1, 65535),
      )
      .option('--no-browser', 'print the OAuth login URL instead of opening a browser')
      .exitOverride();
    if (spec.operands === 'pairs') sub.option('--args <json>', 'all arguments as one JSON object');
    if (spec.kind === 'call')
      sub.option('--task', 'run the call as a task (status shown live; Ctrl+C cancels the task)');
    sub.action((operands: string[] | string | undefined, options: Options) => {
      const list = Array.isArray(operands) ? operands : operands === undefined ? [] : [operands];
      outcome = runCommand(spec.kind, spec.operands, list, command, options);
    });
  }
  program
    .command('doctor')
    .description('check a server for the lifecycle bugs of endings (EOF, DELETE, cancels, bad input)')
    .usage('<url> | -- <command> [options]')
    .argument('[url]')
    .option('--json', 'print the report as JSON')
    .option('--junit <file>', 'also write the report as JUnit XML')
    .option('--only <ids>', 'run only these checks (ids or prefixes like stdio., comma-separated)')
    .option('--skip <ids>', 'skip these checks')
    .option('--read-only', 'call no tool (protocol checks only)')
    .option('--tool <name>', 'a tool that answers promptly')
    .option('--slow-tool <name>', 'a tool that runs for a while')
    .option('--sampling-tool <name>', 'a tool that asks the client to sample')
    .option('--elicit-tool <name>', 'a tool that asks the client for input')
    .option('--args <json>', 'arguments for the tools doctor calls')
    .option('--timeout <duration>', 'bound on each wait (default 10s)', duration)
    .option(
      '-H, --header <header>',
      "HTTP header 'Name: value' (repeatable)",
      (v, all: string[]) => [...all, v],
      [],
    )
    .exitOverride()
    .action(async (url: string | undefined, options: DoctorCliOptions) => {
      const { doctorCommand } = await import('./doctor/doctor-command.js');
      outcome = doctorCommand(url, command, options);
    });
  try {
    await program.parseAsync([...before], { from: 'user' });
    if (outcome === undefined) throw new UsageError('no command');
    return await outcome;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.ok; // --help, --version
      if (error.code === 'commander.help' || error.code === 'commander.executeSubCommandAsync')
        return EXIT.usage;
      process.stderr.write(`${usageOf(before[0])}\n`);
      return EXIT.usage;
    }
    if (error instanceof UsageError) {
      // Its message may quote the server's schema (a type, a required name): escaped.
      process.stderr.write(`keel: ${safeText(error.message)}\n${usageOf(before[0])}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

async function runCommand(
  kind: Kind,
  shape: 'none' | 'one' | 'pairs',
  operands: string[],
  command: string[] | undefined,
  options: Options,
): Promise<number> {
  const { target, rest } = resolveTarget(operands, command);
  if (shape === 'none' && rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (shape !== 'none' && rest.length === 0)
    throw new UsageError(`missing ${kind === 'read' ? 'uri' : 'name'}`);
  if (shape === 'one' && rest.length > 1) throw new UsageError(`unexpected argument "${rest[1]}"`);
  const [first = '', ...pairs] = rest;
  return withServer(target, options, waitingFor(kind, first), (client, ctx) => {
    switch (kind) {
      case 'tools':
        return run.listTools(client, ctx, options);
      case 'resources':
        return run.listResources(client, ctx, options);
      case 'prompts':
        return run.listPrompts(client, ctx, options);
      case 'call':
        return run.callTool(client, ctx, first, pairs, options);
      case 'read':
        return run.readResource(client, ctx, first, options);
      case 'prompt':
        return run.getPrompt(client, ctx, first, pairs, options);
      case 'ping':
        return run.ping(client, ctx, options);
    }
  });
}

/** What the command waits for, in messages: the request it is about. */
function waitingFor(kind: Kind, operand: string): string {
  const method = {
    tools: 'tools/list',
    resources: 'resources/list',
    prompts: 'prompts/list',
    call: 'tools/call',
    read: 'resources/read',
    prompt: 'prompts/get',
    ping: 'ping',
  }[kind];
  return operand === '' ? method : `${method} ${operand}`;
}
