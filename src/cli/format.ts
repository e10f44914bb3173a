/**
 * How results look in the terminal: text content as is, structuredContent pretty-printed, binary
 * content summarized; and one-line-per-item listings of tools, resources and prompts.
 */

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
      return `[${block.type} ${block.mimeType ?? '?'}, ${base64Bytes(block.data)} bytes]`;
    case 'resource_link':
      return `[resource link ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
    case 'resource': {
      const resource = (block.resource ?? {}) as Block;
      const size =
        typeof resource.text === 'string'
          ? `${resource.text.length} chars`
          : `${base64Bytes(resource.blob)} bytes`;
      return `[resource ${resource.uri}${resource.mimeType ? ` ${resource.mimeType}` : ''}, ${size}]`;
    }
    default:
      return `[${String(block.type)} content]`;
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
        : `[blob ${item.uri}${item.mimeType ? ` ${item.mimeType}` : ''}, ${base64Bytes(item.blob)} bytes]`,
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
    return `${message.role}: ${content.map((block: Block) => formatBlock(block ?? {})).join('\n')}`;
  });
  return [result.description ? `# ${result.description}` : undefined, ...body].filter(Boolean).join('\n');
}

/**
 * A tool's listing: name, title, one-line description, then its arguments (`?` = optional).
 *
 * @example
 * formatTool({ name: 'echo', description: 'Echo it', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } });
 * // 'echo: Echo it\n  args: text: string'
 */
export function formatTool(tool: Block): string {
  const head = `${tool.name}${tool.title ? ` (${tool.title})` : ''}${describe(tool.description)}`;
  const args = argsSummary(tool.inputSchema);
  return args ? `${head}\n  args: ${args}` : head;
}

/**
 * `name: type` per property of an object schema, `?` after an optional name.
 *
 * @example
 * argsSummary({ properties: { n: { type: 'integer' } } }); // 'n?: integer'
 */
export function argsSummary(schema: Block | undefined): string {
  const properties = (schema?.properties ?? {}) as Record<string, Block>;
  const required = new Set<string>(Array.isArray(schema?.required) ? schema.required : []);
  return Object.entries(properties)
    .map(([name, property]) => `${name}${required.has(name) ? '' : '?'}: ${typeName(property)}`)
    .join(', ');
}

/**
 * A resource (or template) listing line.
 *
 * @example
 * formatResource({ uri: 'file:///a', name: 'a', mimeType: 'text/plain' }); // 'file:///a  a (text/plain)'
 */
export function formatResource(resource: Block): string {
  const target = resource.uri ?? resource.uriTemplate;
  const mime = resource.mimeType ? ` (${resource.mimeType})` : '';
  return `${target}  ${resource.title ?? resource.name}${mime}${describe(resource.description)}`;
}

/**
 * A prompt listing line, with its arguments (`?` = optional).
 *
 * @example
 * formatPrompt({ name: 'plan', arguments: [{ name: 'city', required: true }] }); // 'plan\n  args: city'
 */
export function formatPrompt(prompt: Block): string {
  const head = `${prompt.name}${prompt.title ? ` (${prompt.title})` : ''}${describe(prompt.description)}`;
  const args = ((prompt.arguments as Block[] | undefined) ?? [])
    .map((arg) => `${arg.name}${arg.required ? '' : '?'}`)
    .join(', ');
  return args ? `${head}\n  args: ${args}` : head;
}

function describe(description: unknown): string {
  if (typeof description !== 'string' || description.trim() === '') return '';
  return `: ${description.trim().split('\n')[0]}`;
}

function typeName(property: Block): string {
  if (Array.isArray(property?.enum)) return property.enum.map((v: unknown) => JSON.stringify(v)).join('|');
  if (Array.isArray(property?.type)) return property.type.join('|');
  return typeof property?.type === 'string' ? property.type : 'any';
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
