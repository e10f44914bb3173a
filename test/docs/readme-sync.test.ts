/**
 * README.md and the guides in docs/ cannot drift from the code: their marked code blocks are the
 * compiled examples and snippet regions, their links resolve, and the API names they list exist
 * where they say. The README itself stays a short first screen: install, a server, a client.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { McpServer, ToolContext } from 'keel-mcp/server';
import { allMarkedBlocks, markdownFiles, publicSpecifiers, readRegions, ROOT } from './readme-blocks.mjs';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const MARKDOWN = markdownFiles().map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
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

/** The body of the `## heading` section of a Markdown text (up to the next `## `). */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  expect(start, `section ${heading}`).toBeGreaterThan(-1);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

describe('first screen', () => {
  test('the sections are install, a server, a client, where next; then reference and contributing', () => {
    const sections = [...README.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(sections).toEqual([
      'Install',
      'A server',
      'A client',
      'Over HTTP',
      'Where next',
      'Entry points',
      'Dependencies',
      'Contributing',
    ]);
    expect(README.split('\n').length).toBeLessThanOrEqual(218); // +1: the keel-mcp/telemetry row (issue 26), +1: the Extensions row (issue 27), +1: keel doctor (issue 29)
  });

  test('Install says how to get the package before it is published', () => {
    const install = section(README, 'Install');
    expect(/```sh\n([\s\S]*?)\n```/.exec(install)?.[1]).toBe('npm install keel-mcp zod');
    expect(install).toContain('npm pack');
    expect(install).toMatch(/npm install \S*keel-mcp-0\.1\.0\.tgz/);
    expect(install).toContain('test/package/pack.test.ts');
  });

  test('the server, the client and the HTTP server are the hello examples, with their imports', async () => {
    const blocks = (await allMarkedBlocks()).filter((b) => b.file === 'README.md');
    expect(blocks.map((b) => b.name)).toEqual([
      'examples/hello-server.ts',
      'examples/hello-client.ts',
      'examples/hello-http-server.ts',
    ]);
    for (const block of blocks) expect(block.actual).toMatch(/^import .* from 'keel-mcp\/\w+';$/m);
    expect(section(README, 'A server')).toContain('examples/hello-server.ts');
    expect(section(README, 'A client')).toContain('examples/hello-client.ts');
  });

  test("Contributing's first code block is exactly the two commands", () => {
    const block = /```(\w*)\n([\s\S]*?)\n```/.exec(section(README, 'Contributing'));
    expect(block?.[1]).toBe('sh');
    expect(block?.[2]?.split('\n')).toEqual(['npm ci && npm start', 'npm ci && npm test']);
  });
});

describe('code blocks', () => {
  test('every marked block of README.md and docs/*.md equals the file or region it comes from', async () => {
    const blocks = await allMarkedBlocks();
    expect(blocks.length).toBeGreaterThan(20);
    for (const block of blocks) {
      expect(block.actual, `${block.file}:${block.line} ${block.kind} ${block.name} (${FIX})`).toBe(
        block.expected,
      );
    }
  });

  test('every snippet region is shown, and so are the complete examples, where the guides say', async () => {
    const blocks = await allMarkedBlocks();
    const shown = new Set(blocks.map((b) => b.name));
    for (const name of readRegions().keys()) expect(shown, `region ${name}`).toContain(name);
    const where = (name: string) => blocks.filter((b) => b.name === name).map((b) => b.file);
    expect(where('examples/readme-server.ts')).toEqual(['docs/server.md']);
    expect(where('examples/readme-client.ts')).toEqual(['docs/client.md']);
    expect(where('examples/readme-scale-out.ts')).toEqual(['docs/scale-out.md']);
  });

  test('the README server is ~15 lines and its client ~10 (code, not blank lines or comments)', async () => {
    const code = (text: string) => text.split('\n').filter((l) => l.trim() !== '' && !/^\s*\/\//.test(l));
    const shown = (await allMarkedBlocks()).filter((b) => b.file === 'README.md');
    expect(code(shown.find((b) => b.name === 'examples/hello-server.ts')!.actual).length).toBeLessThanOrEqual(
      15,
    );
    expect(code(shown.find((b) => b.name === 'examples/hello-client.ts')!.actual).length).toBeLessThanOrEqual(
      10,
    );
  });

  test('issue 23 item 13: an example a guide shows in full is the file itself, importing keel-mcp by name', async () => {
    // Copied as is, it compiles in a user's project: no import of the repository's own files.
    const shown = (await allMarkedBlocks()).filter((b) => b.kind === 'file');
    expect(shown.length).toBeGreaterThan(5);
    for (const block of shown) {
      const file = readFileSync(join(ROOT, block.name), 'utf8');
      expect(file, block.name).not.toMatch(/from '\.{1,2}\//);
      expect(file, block.name).toMatch(/from 'keel-mcp\/\w+';$/m);
      expect(`${block.actual}\n`, `${block.file}:${block.line}`).toBe(file);
    }
  });

  test('the complete examples of the guides are each under 30 lines', async () => {
    for (const block of (await allMarkedBlocks()).filter((b) => b.kind === 'file')) {
      expect(block.actual.split('\n').length, `${block.file} ${block.name}`).toBeLessThan(30);
    }
  });
});

describe('links', () => {
  test('relative links of README.md and docs/*.md point to files and headings that exist', () => {
    let checked = 0;
    for (const { file: from, text } of MARKDOWN) {
      const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
      for (const link of links.filter((l) => !/^[a-z]+:/.test(l))) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        // Relative to the linking file, as GitHub resolves them.
        const file = path === '' ? from : normalize(join(dirname(from), path));
        expect(existsSync(join(ROOT, file)), `${from}: link ${link}`).toBe(true);
        if (anchor !== undefined) {
          const target = readFileSync(join(ROOT, file), 'utf8');
          expect(anchors(target), `${from}: link ${link}`).toContain(anchor);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(120);
  });

  test('the README links every guide of docs/ that a newcomer needs', () => {
    const where = section(README, 'Where next');
    for (const guide of [
      'server',
      'client',
      'transports',
      'stdio',
      'http',
      'lifecycle',
      'errors',
      'protocol-versions',
      'auth',
      'scale-out',
      'runtimes',
      'frameworks',
      'migrating',
      'conformance',
      'package',
    ]) {
      expect(where, guide).toContain(`](docs/${guide}.md)`);
    }
    expect(where).toContain('docs/cli.md');
    expect(where).toContain('](BENCHMARKS.md)');
  });
});

describe('API names', () => {
  test('each name in the entry-point tables (README, docs/entry-points.md) is exported from that entry point', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/check-jsdoc.mjs', '--json'], {
      cwd: ROOT,
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const exported = (JSON.parse(stdout) as { exports: { name: string; entryPoints: string[] }[] }).exports;
    const sourceOf = new Map(
      [...publicSpecifiers()].map(([file, spec]) => [spec, file.replace(/\.js$/, '.ts')]),
    );
    const tables = [
      { file: 'README.md', table: section(README, 'Entry points'), atLeast: 15 },
      {
        file: 'docs/entry-points.md',
        table: readFileSync(join(ROOT, 'docs/entry-points.md'), 'utf8'),
        atLeast: 40,
      },
    ];
    for (const { file, table } of tables) {
      let checked = 0;
      const rows = [...table.matchAll(/^\| `(keel-mcp[^`]*)` +\| (.+) \|$/gm)];
      // Every entry point of package.json `exports` has its row.
      expect(rows.map((r) => r[1]).sort(), file).toEqual([...sourceOf.keys()].sort());
      for (const [, specifier, cell] of rows) {
        const source = sourceOf.get(specifier!);
        expect(source, specifier).toBeDefined();
        for (const [, name] of cell!.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)) {
          const found = exported.some((e) => e.name === name && e.entryPoints.includes(source!));
          expect(found, `${file}: ${name} from ${specifier!}`).toBe(true);
          checked++;
        }
      }
      expect(checked, file).toBeGreaterThan(tables.find((t) => t.file === file)!.atLeast);
    }
  }, 60_000);

  test('ctx.*, client.* and server.* members named in the README and the text moved from it exist', () => {
    const targets: Record<string, object> = {
      ctx: ToolContext.prototype,
      client: new McpClient({ name: 'readme', version: '1.0.0' }),
      server: new McpServer({ name: 'readme', version: '1.0.0' }),
    };
    // The README and the text that moved from it into docs/ (other guides also name the official
    // SDK's or Node's objects `server` and `client`).
    const doc = (file: string) => readFileSync(join(ROOT, file), 'utf8');
    const texts = [
      { file: 'README.md', text: README },
      ...['server', 'transports', 'errors', 'lifecycle', 'protocol-versions'].map((name) => ({
        file: `docs/${name}.md`,
        text: doc(`docs/${name}.md`),
      })),
      { file: 'docs/client.md', text: section(doc('docs/client.md'), 'A complete client') },
      { file: 'docs/client.md', text: section(doc('docs/client.md'), 'Connecting, handlers and calls') },
      { file: 'docs/auth.md', text: section(doc('docs/auth.md'), 'Both sides in short') },
    ];
    let checked = 0;
    for (const { file, text } of texts) {
      for (const [, owner, member] of text.matchAll(/(?<![\w./-])(ctx|client|server)\.([A-Za-z_]\w*)/g)) {
        if (['js', 'ts', 'mjs', 'md'].includes(member!)) continue; // a file name such as server.js
        expect(member! in targets[owner!]!, `${file}: ${owner!}.${member!}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});
