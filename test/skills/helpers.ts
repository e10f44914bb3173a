/**
 * Shared pieces of the skills tests: a skill in code, and a memory connection of a client to a
 * server that is closed after each test.
 */
import { afterEach } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { createMemoryPair } from 'keel-mcp/memory';
import type { McpServer, SkillSource } from 'keel-mcp/server';
import { within } from '../helpers/guard.js';

export const ERAS = ['legacy', 'modern'] as const;
export type Era = (typeof ERAS)[number];

export const PDF_MD = `---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
metadata:
  owner: tests
---

Read references/FORMS.md first.
`;

export const FORMS_MD = '# Forms\n\nField names are case-sensitive.\n';

/** A skill with a supporting text file and a binary one, in a subdirectory. */
export function pdfSkill(): SkillSource {
  return {
    files: {
      'SKILL.md': PDF_MD,
      'references/FORMS.md': FORMS_MD,
      'assets/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255]),
    },
  };
}

/** A minimal valid skill named `name` at `path` (default: the name). */
export function skill(name: string, path?: string): SkillSource {
  const md = `---\nname: ${name}\ndescription: The ${name} skill\n---\nDo ${name}.\n`;
  return path === undefined ? { files: { 'SKILL.md': md } } : { path, files: { 'SKILL.md': md } };
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/** A client connected to `server` over memory in `era`; closed after the test. */
export async function connect(server: McpServer, era: Era): Promise<McpClient> {
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide);
  const client = new McpClient({ name: 'skills-test', version: '1' }, { era });
  await client.connect(clientSide);
  open.push({
    close: async () => {
      await client.close();
      await within(session.closed, 5_000, 'session.closed');
    },
  });
  return client;
}

export async function sha256(bytes: Uint8Array | string): Promise<string> {
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));
  return `sha256:${[...hash].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}
