/**
 * README.md cannot drift from the code: its code blocks are the compiled examples and snippet
 * regions, its links resolve, and the API names it lists exist where it says.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { McpClient } from '../../src/client/index.js';
import { McpServer, ToolContext } from '../../src/server/index.js';
import { markedBlocks, publicSpecifiers, readRegions, ROOT } from './readme-blocks.mjs';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const FIX = 'run `node test/docs/readme-blocks.mjs --write` after changing the examples or snippets';

/** GitHub's heading anchors: lower case, punctuation dropped, spaces → hyphens. */
function anchors(markdown: string): Set<string> {
  const slugs = new Set<string>();
  for (const [, heading] of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    slugs.add(
      heading!
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return slugs;
}

describe('Quick start', () => {
  test('is the first section, and its first code block is exactly the two commands', () => {
    const sections = [...README.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(sections[0]).toBe('Quick start');
    const start = README.indexOf('## Quick start');
    const block = /```(\w*)\n([\s\S]*?)\n```/.exec(README.slice(start));
    expect(block?.[1]).toBe('sh');
    expect(block?.[2]?.split('\n')).toEqual(['npm ci && npm start', 'npm ci && npm test']);
  });
});

describe('code blocks', () => {
  test('every marked block equals the compiled file or snippet region it comes from', async () => {
    const blocks = await markedBlocks(README);
    expect(blocks.length).toBeGreaterThan(20);
    for (const block of blocks) {
      expect(block.actual, `README.md:${block.line} ${block.kind} ${block.name} (${FIX})`).toBe(
        block.expected,
      );
    }
  });

  test('every snippet region appears in the README, and so do both complete examples', async () => {
    const shown = new Set((await markedBlocks(README)).map((b) => b.name));
    for (const name of readRegions().keys()) expect(shown, `region ${name}`).toContain(name);
    expect(shown).toContain('examples/readme-server.ts');
    expect(shown).toContain('examples/readme-client.ts');
  });

  test('the complete server and client are each under 30 lines', async () => {
    for (const block of (await markedBlocks(README)).filter((b) => b.kind === 'file')) {
      expect(block.actual.split('\n').length, block.name).toBeLessThan(30);
    }
  });
});

describe('links', () => {
  test('relative links point to files that exist, and anchors to headings that exist', () => {
    const links = [...README.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(20);
    for (const link of links.filter((l) => !/^[a-z]+:/.test(l))) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const file = path === '' ? 'README.md' : path;
      expect(existsSync(join(ROOT, file)), `link ${link}`).toBe(true);
      if (anchor !== undefined) {
        const target = readFileSync(join(ROOT, file), 'utf8');
        expect(anchors(target), `link ${link}`).toContain(anchor);
      }
    }
  });
});

describe('API names', () => {
  test('each name in the entry-point table is exported from that entry point', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/check-jsdoc.mjs', '--json'], {
      cwd: ROOT,
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const exported = (JSON.parse(stdout) as { exports: { name: string; entryPoints: string[] }[] }).exports;
    const sourceOf = new Map(
      [...publicSpecifiers()].map(([file, spec]) => [spec, file.replace(/\.js$/, '.ts')]),
    );
    const table = README.slice(README.indexOf('## Entry points'), README.indexOf('## Features'));
    let checked = 0;
    for (const [, specifier, cell] of table.matchAll(/^\| `(keel-mcp[^`]*)` +\| (.+) \|$/gm)) {
      const source = sourceOf.get(specifier!);
      expect(source, specifier).toBeDefined();
      for (const [, name] of cell!.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)) {
        const found = exported.some((e) => e.name === name && e.entryPoints.includes(source!));
        expect(found, `${name} from ${specifier!}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  }, 60_000);

  test('ctx.*, client.* and server.* members named anywhere in the README exist', () => {
    const targets: Record<string, object> = {
      ctx: ToolContext.prototype,
      client: new McpClient({ name: 'readme', version: '1.0.0' }),
      server: new McpServer({ name: 'readme', version: '1.0.0' }),
    };
    let checked = 0;
    for (const [, owner, member] of README.matchAll(/(?<![\w./-])(ctx|client|server)\.([A-Za-z_]\w*)/g)) {
      if (['js', 'ts', 'mjs'].includes(member!)) continue; // a file name such as server.js
      expect(member! in targets[owner!]!, `${owner!}.${member!}`).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
  });
});
