/**
 * The fixture client's skills scenarios (SEP-2640, suite 0.2.0-alpha.12): list the skills, and
 * load one only when it is used. `sep-2640-client-no-prefetch` lists and stops (nothing is read
 * ahead of need); the three `-verify-*` scenarios load the listed skill, whose SKILL.md the mock
 * server tampered with: `SkillsClient.load` refuses it, so its supporting file is never read.
 */
import { SkillVerificationError } from '../src/core/errors.js';
import type { McpClient } from '../src/client/mcp-client.js';
import { SkillsClient } from '../src/client/skills/skills-client.js';

function log(message: string, detail?: unknown): void {
  process.stderr.write(
    `[conformance-skills] ${message}${detail === undefined ? '' : ` ${JSON.stringify(detail)}`}\n`,
  );
}

const TIMEOUT = { timeoutMs: 20_000 };

/** Load every listed skill and, once verified, its supporting files: what a host does when it uses one. */
async function useSkills(client: McpClient): Promise<void> {
  const skills = new SkillsClient(client);
  for (const entry of await skills.list(TIMEOUT)) {
    try {
      const skill = await skills.load(entry, TIMEOUT);
      log('loaded', skill.name);
      if (entry.resources === 'dynamic') continue;
      for (const file of entry.resources)
        if (file.uri !== entry.uri) log('read', (await skills.readFile(entry, file.uri, TIMEOUT)).uri);
    } catch (error) {
      if (!(error instanceof SkillVerificationError)) throw error;
      log('refused', { uri: error.uri, check: error.check, fields: error.fields });
    }
  }
}

/** Scenario name → what the client does (merged into conformance-client.ts's table). */
export const skillScenarios: Record<string, { run: (client: McpClient) => Promise<void> }> = {
  'sep-2640-client-no-prefetch': {
    run: async (client) =>
      log(
        'listed',
        (await new SkillsClient(client).list(TIMEOUT)).map((entry) => entry.uri),
      ),
  },
  'sep-2640-client-verify-digest': { run: useSkills },
  'sep-2640-client-verify-size': { run: useSkills },
  'sep-2640-client-verify-frontmatter': { run: useSkills },
};
