/**
 * The YAML frontmatter of a `SKILL.md` (Agent Skills): the `---` delimited block at the top of the
 * file, parsed into a JSON object. Both sides need it: the server to build a skill's entry, the
 * client to compare a fetched `SKILL.md` with the entry it was promised (SEP-2640). Keel has no YAML
 * dependency, so this reads the subset frontmatter uses (block mappings and sequences, plain and
 * quoted scalars, flow sequences, `|` and `>` block scalars, comments) and refuses the rest
 * (anchors, aliases, tags, multi-document) with a clear error rather than guessing.
 */
import type { JsonObject } from '../jsonrpc.js';

type Json = JsonObject[string];

const BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * The frontmatter of `text` and the body after it, or `undefined` when the file does not begin
 * with a `---` block. A block that is not valid (supported) YAML, or not a mapping, throws a
 * SyntaxError naming the line.
 *
 * @example
 * parseFrontmatter('---\nname: pdf\ndescription: Work with PDFs\n---\n# PDF');
 * // { frontmatter: { name: 'pdf', description: 'Work with PDFs' }, body: '# PDF' }
 */
export function parseFrontmatter(text: string): { frontmatter: JsonObject; body: string } | undefined {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const match = BLOCK.exec(source);
  if (!match) return undefined;
  return { frontmatter: parseYamlMapping(match[1]!), body: source.slice(match[0].length) };
}

interface Line {
  indent: number;
  text: string; // without the indentation
  number: number; // 1-based, within the frontmatter block
}

/**
 * A YAML document (the supported subset) whose top level is a mapping, as a JSON object.
 *
 * @example
 * parseYamlMapping('name: a\nmetadata:\n  owner: me'); // { name: 'a', metadata: { owner: 'me' } }
 */
export function parseYamlMapping(yaml: string): JsonObject {
  const lines: Line[] = yaml.split(/\r?\n/).map((raw, i) => {
    if (/^\s*\t/.test(raw)) throw syntax(i + 1, 'tabs are not allowed in YAML indentation');
    const text = raw.trimStart();
    return { indent: raw.length - text.length, text: text.trimEnd(), number: i + 1 };
  });
  const parser = new Parser(lines);
  parser.skipBlank();
  if (parser.done()) return {};
  const first = parser.peek()!;
  if (first.indent !== 0 || first.text.startsWith('- '))
    throw syntax(first.number, 'the frontmatter must be a mapping of keys at the left margin');
  const value = parser.mapping(0);
  parser.skipBlank();
  if (!parser.done()) throw syntax(parser.peek()!.number, 'unexpected indentation');
  return value;
}

function syntax(line: number, message: string): SyntaxError {
  return new SyntaxError(`YAML frontmatter line ${line}: ${message}`);
}

const KEY =
  /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"{}[\]&*!|>%@`,?-][^:]*?|-[^\s:][^:]*?)\s*:(?:\s+(.*))?$/;

class Parser {
  private at = 0;
  constructor(private readonly lines: Line[]) {}

  done(): boolean {
    return this.at >= this.lines.length;
  }
  peek(): Line | undefined {
    return this.lines[this.at];
  }
  skipBlank(): void {
    while (!this.done() && (this.peek()!.text === '' || this.peek()!.text.startsWith('#'))) this.at++;
  }

  mapping(indent: number): JsonObject {
    const out: JsonObject = {};
    for (;;) {
      this.skipBlank();
      const line = this.peek();
      if (!line || line.indent < indent) return out;
      if (line.indent > indent) throw syntax(line.number, 'unexpected indentation');
      if (line.text.startsWith('- ') || line.text === '-')
        throw syntax(line.number, 'a list item where a key was expected');
      const match = KEY.exec(line.text);
      if (!match) throw syntax(line.number, `expected "key: value", got ${JSON.stringify(line.text)}`);
      const key = unquoteKey(match[1]!, line.number);
      if (Object.prototype.hasOwnProperty.call(out, key)) throw syntax(line.number, `duplicate key "${key}"`);
      this.at++;
      out[key] = this.valueAfter(match[2] ?? '', indent, line.number);
    }
  }

  sequence(indent: number): Json[] {
    const out: Json[] = [];
    for (;;) {
      this.skipBlank();
      const line = this.peek();
      if (!line || line.indent < indent) return out;
      if (line.indent > indent) throw syntax(line.number, 'unexpected indentation');
      if (!(line.text.startsWith('- ') || line.text === '-')) return out;
      const rest = line.text.slice(1).trimStart();
      if (KEY.test(rest) && !/^["']/.test(rest)) {
        // "- key: value" opens a mapping whose keys sit where "key" sits.
        const inner = indent + (line.text.length - rest.length);
        this.lines[this.at] = { indent: inner, text: rest, number: line.number };
        out.push(this.mapping(inner));
      } else {
        this.at++;
        out.push(this.valueAfter(rest, indent, line.number));
      }
    }
  }

  /** The value that follows "key:" or "- " on a line at `indent`. */
  private valueAfter(raw: string, indent: number, number: number): Json {
    const text = stripComment(raw);
    if (text === '') {
      this.skipBlank();
      const next = this.peek();
      if (!next) return null;
      if (next.indent === indent && (next.text.startsWith('- ') || next.text === '-'))
        return this.sequence(indent);
      if (next.indent <= indent) return null;
      if (next.text.startsWith('- ') || next.text === '-') return this.sequence(next.indent);
      return this.mapping(next.indent);
    }
    if (/^[|>][+-]?$/.test(text)) return this.blockScalar(text, indent);
    if (/^[&*!]/.test(text)) throw syntax(number, 'anchors, aliases and tags are not supported');
    if (text.startsWith('[')) return flowSequence(text, number);
    if (text.startsWith('{')) {
      if (/^\{\s*\}$/.test(text)) return {};
      throw syntax(number, 'flow mappings other than {} are not supported; use an indented block');
    }
    if (text.startsWith('"') || text.startsWith("'")) return quoted(text, number);
    // A plain scalar may continue on more-indented lines, folded with spaces.
    const parts = [text];
    while (!this.done()) {
      const next = this.peek()!;
      if (next.text === '' || next.indent <= indent || KEY.test(next.text)) break;
      parts.push(stripComment(next.text));
      this.at++;
    }
    return parts.length === 1 ? plain(text) : parts.join(' ');
  }

  private blockScalar(header: string, indent: number): string {
    const folded = header[0] === '>';
    const chomp = header[1];
    const body: string[] = [];
    let blockIndent: number | undefined;
    while (!this.done()) {
      const line = this.peek()!;
      if (line.text !== '') {
        if (line.indent <= indent) break;
        blockIndent ??= line.indent;
        if (line.indent < blockIndent) break;
      }
      const raw = line.text === '' ? '' : ' '.repeat(line.indent - blockIndent!) + line.text;
      body.push(raw);
      this.at++;
    }
    let trailing = 0;
    while (body.length > 0 && body[body.length - 1] === '') {
      body.pop();
      trailing++;
    }
    let text = folded ? fold(body) : body.join('\n');
    if (chomp === '+') text += '\n'.repeat(trailing + 1);
    else if (chomp !== '-' && body.length > 0) text += '\n';
    return text;
  }
}

function fold(lines: string[]): string {
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (i === 0) out = line;
    else if (line === '' || lines[i - 1] === '' || line.startsWith(' ')) out += '\n' + line;
    else out += ' ' + line;
  }
  return out;
}

function stripComment(text: string): string {
  if (text.startsWith('"') || text.startsWith("'")) return text;
  const hash = text.search(/(^|\s)#/);
  return (hash < 0 ? text : text.slice(0, hash)).trim();
}

function unquoteKey(key: string, number: number): string {
  return key.startsWith('"') || key.startsWith("'") ? quoted(key, number) : key.trim();
}

function quoted(text: string, number: number): string {
  const quote = text[0]!;
  const end = quote === '"' ? /^"((?:[^"\\]|\\.)*)"\s*(#.*)?$/ : /^'((?:[^']|'')*)'\s*(#.*)?$/;
  const match = end.exec(text);
  if (!match) throw syntax(number, `unterminated or trailing text after a quoted string: ${text}`);
  if (quote === "'") return match[1]!.replace(/''/g, "'");
  try {
    return JSON.parse(
      `"${match[1]!.replace(/\\x([0-9a-fA-F]{2})/g, '\\u00$1').replace(/\\'/g, "'")}"`,
    ) as string;
  } catch {
    throw syntax(number, `invalid escape in ${text}`);
  }
}

function plain(text: string): Json {
  if (/^(null|Null|NULL|~)$/.test(text)) return null;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?(0|[1-9][0-9]*)$/.test(text)) {
    const n = Number(text);
    if (Number.isSafeInteger(n)) return n;
  }
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  return text;
}

function flowSequence(text: string, number: number): Json[] {
  const match = /^\[(.*)\]\s*(#.*)?$/.exec(text);
  if (!match) throw syntax(number, `unterminated flow sequence: ${text}`);
  const inner = match[1]!.trim();
  if (inner === '') return [];
  const items: Json[] = [];
  // Split on commas outside quotes; nested collections are outside the supported subset.
  const item = /\s*("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,"'[\]{}]*)\s*(,|$)/y;
  let at = 0;
  while (at < inner.length) {
    item.lastIndex = at;
    const found = item.exec(inner);
    if (!found || found[0] === '') throw syntax(number, `unsupported flow sequence: ${text}`);
    const value = found[1]!.trim();
    items.push(value.startsWith('"') || value.startsWith("'") ? quoted(value, number) : plain(value));
    at = item.lastIndex;
  }
  return items;
}
