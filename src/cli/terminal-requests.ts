/**
 * The server's requests answered in the terminal: elicitation (form and URL mode) and sampling.
 * The prompt library is loaded only when a prompt is shown.
 */
import { McpError } from '../core/errors.js';
import type { CreateMessageResult } from '../core/types/sampling.js';
import type { ElicitResult } from '../core/types/elicitation.js';
import type { ElicitationOptions } from '../client/elicitation.js';
import type { SamplingHandler } from '../client/sampling.js';
import { checkText, formFields, textValue, type FormField } from './form-fields.js';

/** What the handlers need from the running command. */
export interface PromptHost {
  /** Prompts may be shown (stdin and stderr are terminals). */
  interactive: boolean;
  /** Print a line on stderr (above any progress bar). */
  print(line: string): void;
  /** Around a prompt: clear the progress bar and hand stdin to the prompt, then take it back. */
  beforePrompt(): void;
  afterPrompt(): void;
}

type Clack = typeof import('@clack/prompts');
const CANCELLED = Symbol('cancelled');

/**
 * Form and URL elicitation answered by the user: one prompt per property; Ctrl+C or Esc cancels.
 *
 * @example
 * new McpClient(info, { elicitation: terminalElicitation(host) });
 */
export function terminalElicitation(host: PromptHost): ElicitationOptions {
  return {
    form: async (params, ctx) => {
      if (!host.interactive) return declineNonInteractive(host, params.message);
      return withPrompts(host, async (clack) => {
        const options = { output: process.stderr, signal: ctx.signal };
        clack.log.message(`The server asks: ${params.message}`, { output: process.stderr });
        const choice = await clack.select({
          ...options,
          message: 'Answer?',
          options: [
            { value: 'accept', label: 'Fill in the form' },
            { value: 'decline', label: 'Decline' },
          ],
        });
        if (clack.isCancel(choice)) return { action: 'cancel' };
        if (choice === 'decline') return { action: 'decline' };
        const content: Record<string, unknown> = {};
        for (const field of formFields(params.requestedSchema)) {
          const value = await askField(clack, field, options);
          if (value === CANCELLED) return { action: 'cancel' };
          if (value !== undefined) content[field.key] = value;
        }
        return { action: 'accept', content } as ElicitResult;
      });
    },
    url: async (params, ctx) => {
      host.print(`keel: the server asks you to open ${params.url}\n  ${params.message}`);
      if (!host.interactive) return declineNonInteractive(host, params.message);
      return withPrompts(host, async (clack) => {
        const ok = await clack.confirm({
          message: 'Open it in your browser and go on?',
          output: process.stderr,
          signal: ctx.signal,
        });
        if (clack.isCancel(ok)) return { action: 'cancel' };
        return { action: ok ? 'accept' : 'decline' };
      });
    },
  };
}

async function askField(
  clack: Clack,
  field: FormField,
  options: { output: NodeJS.WriteStream; signal: AbortSignal },
): Promise<unknown> {
  const message = `${field.label}${field.required ? '' : ' (optional)'}`;
  let answer: unknown;
  if (field.kind === 'boolean') {
    answer = await clack.confirm({ ...options, message, initialValue: field.default === true });
  } else if (field.kind === 'select') {
    const skip = field.required ? [] : [{ value: '', label: '(none)' }];
    const initialValue = defaultText(field.default);
    answer = await clack.select({
      ...options,
      message,
      options: [...(field.choices ?? []), ...skip],
      initialValue,
    });
    if (answer === '') answer = undefined;
  } else if (field.kind === 'multiselect') {
    const initialValues = Array.isArray(field.default) ? field.default.map(String) : [];
    answer = await clack.multiselect({
      ...options,
      message,
      options: field.choices ?? [],
      initialValues,
      required: field.required,
    });
  } else {
    const initialValue = defaultText(field.default);
    const text = await clack.text({
      ...options,
      message,
      ...(initialValue !== undefined && { initialValue }),
      validate: (v) => checkText(field, v),
    });
    answer = clack.isCancel(text) ? text : textValue(field, text);
  }
  return clack.isCancel(answer) ? CANCELLED : answer;
}

/**
 * `--sampling prompt`: show the server's messages and let the user type the reply. Without it,
 * every sampling request is refused with a JSON-RPC error that says how to enable it.
 *
 * @example
 * new McpClient(info, { sampling: terminalSampling(host, false) });
 */
export function terminalSampling(host: PromptHost, enabled: boolean): SamplingHandler {
  return async (params, ctx) => {
    const refuse = (why: string): never => {
      host.print(`keel: refused the server's sampling request: ${why}`);
      throw new McpError(-1, `Sampling refused by keel: ${why}`);
    };
    if (!enabled) return refuse('run keel with --sampling prompt to answer sampling requests');
    if (!host.interactive) return refuse('stdin is not a terminal');
    return withPrompts(host, async (clack) => {
      host.print(
        `keel: the server asks for a model reply${params.systemPrompt ? ` (system: ${params.systemPrompt})` : ''}`,
      );
      for (const message of params.messages) {
        const blocks = Array.isArray(message.content) ? message.content : [message.content];
        const text = blocks.map((b: any) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
        host.print(`  ${message.role}: ${text}`);
      }
      const reply = await clack.text({ message: 'Reply', output: process.stderr, signal: ctx.signal });
      if (clack.isCancel(reply)) return refuse('cancelled by the user');
      const result: CreateMessageResult = {
        role: 'assistant',
        content: { type: 'text', text: reply ?? '' },
        model: 'keel-cli-human',
        stopReason: 'endTurn',
      };
      return result;
    });
  };
}

// One prompt at a time: two questions of one round (modern era) are asked one after the other.
let queue: Promise<unknown> = Promise.resolve();

async function withPrompts<T>(host: PromptHost, run: (clack: Clack) => Promise<T>): Promise<T> {
  const turn = queue.then(async () => {
    const clack = await import('@clack/prompts');
    host.beforePrompt();
    try {
      return await run(clack);
    } finally {
      host.afterPrompt();
    }
  });
  queue = turn.catch(() => undefined);
  return turn;
}

function declineNonInteractive(host: PromptHost, message: string): ElicitResult {
  host.print(`keel: declined the server's request for input ("${message}"): stdin is not a terminal`);
  return { action: 'decline' };
}

function defaultText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
