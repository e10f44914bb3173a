/**
 * How results look in the terminal: text content as is, structuredContent pretty-printed, binary
 * content summarized; and one-line-per-item listings of tools, resources and prompts.
 */
import { toolUi } from '../client/apps/tool-ui.js';
import { safeLine, safeName } from './safe-text.js';

type Block = Record<string, any>;

/**
 * The text of a `tools/call` result: text blocks as is, `structuredContent` as indented JSON (its
 * JSON text mirror is not printed twice), images, audio and resources as one summary line each.
 *
 * @example
 * formatToolResult({ content: [{ type: 'text', text: 'hi' }] }); // 'hi'
 */
export function formatToolResult(result: Block): string {
  const lines: string[] = [];
  const structured = result.structuredContent as unknown;
  if (structured !== undefined) lines.push(JSON.stringify(structured, null, 2));
  for (const block of (result.content as Block[] | undefined) ?? []) {
    if (block.type === 'text' && structured !== undefined && sameJson(block.text, structured)) continue;
    lines.push(formatBlock(block));
  }
  return lines.join('\n');
}

/**
 * One content block: text as is, anything else summarized on one line.
 *
 * @example
 * formatBlock({ type: 'image', mimeType: 'image/png', data: 'AAAA' }); // '[image image/png, 3 bytes]'
 */
export function formatBlock(block: Block): string {
  switch (block.type) {
    case 'text':
      return String(block.text);
    case 'image':
    case 'audio':
      return `[${block.type} ${safeName(String(block.mimeType ?? '?'))}, ${base64Bytes(block.data)} bytes]`;
    case 'resource_link':
      return `[resource link ${safeName(String(block.uri))}${block.name ? ` (${safeLine(String(block.name))})` : ''}]`;
    case 'resource': {
      const resource = (block.resource ?? {}) as Block;
      const size =
        typeof resource.text === 'string'
          ? `${resource.text.length} chars`
          : `${base64Bytes(resource.blob)} bytes`;
      return `[resource ${safeName(String(resource.uri))}${resource.mimeType ? ` ${safeName(String(resource.mimeType))}` : ''}, ${size}]`;
    }
    default:
      return `[${safeName(String(block.type))} content]`;
  }
}

/**
 * The text of a `resources/read` result: text contents as is, blobs summarized.
 *
 * @example
 * formatReadResult({ contents: [{ uri: 'a://b', text: 'hello' }] }); // 'hello'
 */
export function formatReadResult(result: Block): string {
  const contents = (result.contents as Block[] | undefined) ?? [];
  return contents
    .map((item) =>
      typeof item.text === 'string'
        ? item.text
        : `[blob ${safeName(String(item.uri))}${item.mimeType ? ` ${safeName(String(item.mimeType))}` : ''}, ${base64Bytes(item.blob)} bytes]`,
    )
    .join('\n');
}

/**
 * The text of a `prompts/get` result: one `role: content` paragraph per message.
 *
 * @example
 * formatPromptResult({ messages: [{ role: 'user', content: { type: 'text', text: 'Plan' } }] }); // 'user: Plan'
 */
export function formatPromptResult(result: Block): string {
  const messages = (result.messages as Block[] | undefined) ?? [];
  const body = messages.map((message) => {
    const content = Array.isArray(message.content) ? message.content : [message.content];
    return `${safeName(String(message.role))}: ${content.map((block: Block) => formatBlock(block ?? {})).join('\n')}`;
  });
  return [result.description ? `# ${safeLine(String(result.description))}` : undefined, ...body]
    .filter(Boolean)
    .join('\n');
}

/**
 * A tool's listing: name, title, first line of the description, then one line per argument:
 * `name: type` (`?` = optional) and the first line of its description. With `width` (the terminal's
 * columns), lines longer than that are cut, with `…`.
 *
 * @example
 * formatTool({ name: 'echo', description: 'Echo it', inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'What to echo' } }, required: ['text'] } });
 * // 'echo: Echo it\n  text: string  What to echo'
 * // A tool with an MCP App gets one more line, after the first:
 * // '  UI: ui://weather/view.html (MCP App; its HTML: keel read <server> ui://weather/view.html)'
 */
export function formatTool(tool: Block, width?: number): string {
  const head = `${safeName(String(tool.name))}${title(tool.title)}${describe(tool.description)}`;
  const schema = tool.inputSchema as Block | undefined;
  const properties = (schema?.properties ?? {}) as Record<string, Block>;
  const required = new Set<string>(Array.isArray(schema?.required) ? schema.required : []);
  const args = Object.entries(properties).map(([name, property]) => ({
    label: `${safeName(name)}${required.has(name) ? '' : '?'}: ${typeName(property)}`,
    description: property?.description,
  }));
  return [fit(head, width), ...uiLines(tool), ...argumentLines(args, width)].join('\n');
}

/** The MCP App line of a tool (issue 27): where its UI is and how to see it; app-only tools say so. */
function uiLines(tool: Block): string[] {
  const ui = toolUi(tool);
  if (ui === undefined) return [];
  const who = ui.forModel ? '' : ' (app-only: called by its UI, not by a model)';
  if (ui.resourceUri === undefined) return [`  UI: none${who}`];
  const uri = safeName(ui.resourceUri);
  return [`  UI: ${uri} (MCP App; its HTML: keel read <server> ${uri})${who}`];
}

/**
 * A resource (or template) listing line.
 *
 * @example
 * formatResource({ uri: 'file:///a', name: 'a', mimeType: 'text/plain' }); // 'file:///a  a (text/plain)'
 */
export function formatResource(resource: Block, width?: number): string {
  const target = safeName(String(resource.uri ?? resource.uriTemplate));
  const name = safeLine(String(resource.title ?? resource.name));
  const mime = resource.mimeType ? ` (${safeName(String(resource.mimeType))})` : '';
  return fit(`${target}  ${name}${mime}${describe(resource.description)}`, width);
}

/**
 * A prompt's listing: name, title, description, then one line per argument (`?` = optional) with
 * the first line of its description.
 *
 * @example
 * formatPrompt({ name: 'plan', arguments: [{ name: 'city', required: true, description: 'Where' }] }); // 'plan\n  city  Where'
 */
export function formatPrompt(prompt: Block, width?: number): string {
  const head = `${safeName(String(prompt.name))}${title(prompt.title)}${describe(prompt.description)}`;
  const args = ((prompt.arguments as Block[] | undefined) ?? []).map((arg) => ({
    label: `${safeName(String(arg?.name))}${arg?.required ? '' : '?'}`,
    description: arg?.description,
  }));
  return [fit(head, width), ...argumentLines(args, width)].join('\n');
}

// The description column starts after the widest `name: type`, up to this many characters.
const MAX_LABEL = 28;

function argumentLines(args: { label: string; description: unknown }[], width: number | undefined): string[] {
  const column = Math.min(MAX_LABEL, Math.max(0, ...args.map((a) => a.label.length)));
  return args.map(({ label, description }) => {
    const text = firstLine(description);
    return fit(text ? `  ${label.padEnd(column)}  ${text}` : `  ${label}`, width);
  });
}

function title(value: unknown): string {
  return typeof value === 'string' && value !== '' ? ` (${safeLine(value)})` : '';
}

function describe(description: unknown): string {
  const text = firstLine(description);
  return text ? `: ${text}` : '';
}

/** The first non-empty line of a description, on one line and with its controls escaped. */
function firstLine(description: unknown): string {
  if (typeof description !== 'string') return '';
  const line = description.trim().split(/\r?\n/)[0] ?? '';
  return safeLine(line.trim());
}

/** Cut to the terminal's width (no cut without one: a pipe gets the whole line). */
function fit(line: string, width: number | undefined): string {
  if (width === undefined || !(width > 1) || line.length <= width - 1) return line;
  return `${line.slice(0, Math.max(1, width - 2))}…`;
}

function typeName(property: Block): string {
  if (Array.isArray(property?.enum))
    return safeName(property.enum.map((v: unknown) => JSON.stringify(v)).join('|'));
  if (Array.isArray(property?.type)) return safeName(property.type.map(String).join('|'));
  return typeof property?.type === 'string' ? safeName(property.type) : 'any';
}

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

function sameJson(text: unknown, value: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
