/**
 * The paths the CLI tests run (test/cli/helpers.ts). Issue 30 item 2: the file itself is checked,
 * not the name of the path (a check that held for a file that was not there). Here, not in
 * e2e.test.ts, whose `beforeAll` starts that server first and would fail before this could say why.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { requireTestServer, SERVER, STDIO } from './helpers.js';

test('the test server file exists where the helpers say, and is the CLI test server', () => {
  expect(requireTestServer).not.toThrow();
  expect(readFileSync(SERVER, 'utf8')).toContain("new McpServer({ name: 'cli-test'");
  expect(STDIO).toEqual(['--', process.execPath, SERVER]);
});
