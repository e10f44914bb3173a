/**
 * The compiled `keel` bin in a real pseudo-terminal under tmux (an isolated server socket, a fixed
 * pane size): the live progress bar, an elicitation answered by typing, and Ctrl+C (cancel on the
 * wire, exit 130; a second Ctrl+C exits at once). tmux must be installed (.ci/run installs it).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { useProcessGuard } from '../helpers/guard.js';
import { BIN } from './helpers.js';
import { quote, useTmux } from './tmux.js';

useProcessGuard();

const { work, startPane, startKeel, waitFor, waitForFile, keys, type } = useTmux();
// A stdio "server" that never answers (issue 23 item 11: `keel tools -- sleep 30`).
const SILENT = [process.execPath, '-e', 'setInterval(() => {}, 1000)'];
const silentKeel = (...args: string[]) =>
  [process.execPath, BIN, ...args, '--', ...SILENT].map(quote).join(' ');

test('a live progress bar is drawn and redrawn in place, then the result prints', async () => {
  const gates = mkdtempSync(join(work, 'gates-'));
  const pane = await startKeel(['call', 'gated_progress', `dir=${gates}`]);
  const first = await waitFor(pane, (s) => s.includes(' 25% step 1'), 'progress 25%');
  expect(first).toContain('██████░░░░░░░░░░░░░░░░░░  25% step 1');
  writeFileSync(join(gates, 'go-1'), '');
  const second = await waitFor(pane, (s) => s.includes(' 50% step 2'), 'progress 50%');
  expect(second).toContain('████████████░░░░░░░░░░░░  50% step 2');
  expect(second).not.toContain('25% step 1'); // the same line, redrawn
  writeFileSync(join(gates, 'go-2'), '');
  await waitFor(pane, (s) => s.includes(' 75% step 3'), 'progress 75%');
  writeFileSync(join(gates, 'go-3'), '');
  const done = await waitFor(pane, (s) => s.includes('KEEL_EXIT='), 'exit');
  expect(done).toContain('progress done\nKEEL_EXIT=0');
  expect(done).not.toContain('%'); // the bar is gone once the result prints
}, 60_000);

test('an elicitation answered by typing reaches the tool', async () => {
  const pane = await startKeel(['call', 'ask']);
  await waitFor(
    pane,
    (s) => s.includes('Fill in the form') && s.includes('Decline'),
    'the accept/decline choice',
  );
  await keys(pane, 'Enter');
  await waitFor(pane, (s) => s.includes('Name'), 'the Name prompt');
  await type(pane, 'Ada Lovelace');
  await keys(pane, 'Enter');
  await waitFor(pane, (s) => /Age \(optional\)\n.*30/.test(s), 'the Age prompt with its default');
  await keys(pane, 'BSpace', 'BSpace');
  await type(pane, '36');
  await keys(pane, 'Enter');
  await waitFor(pane, (s) => s.includes('blue'), 'the Color choices');
  await keys(pane, 'Down', 'Down', 'Enter'); // red → green → blue
  await waitFor(pane, (s) => s.includes('OK? (optional)'), 'the OK? confirm');
  await keys(pane, 'Enter'); // its default: yes
  const done = await waitFor(pane, (s) => s.includes('KEEL_EXIT='), 'exit');
  expect(done).toContain(
    'answer: accept {"name":"Ada Lovelace","age":36,"color":"blue","ok":true}\nKEEL_EXIT=0',
  );
}, 60_000);

test('Esc at a form prompt cancels the elicitation', async () => {
  const pane = await startKeel(['call', 'ask']);
  await waitFor(pane, (s) => s.includes('Fill in the form'), 'the accept/decline choice');
  await keys(pane, 'Enter');
  await waitFor(pane, (s) => s.includes('Name'), 'the Name prompt');
  await keys(pane, 'Escape');
  const done = await waitFor(pane, (s) => s.includes('KEEL_EXIT='), 'exit');
  expect(done).toContain('answer: cancel {}\nKEEL_EXIT=0');
}, 60_000);

test.each(['modern', 'legacy'])(
  'Ctrl+C during a call cancels it on the wire (%s era): the handler sees the cancel, keel exits 130',
  async (era) => {
    const marker = join(work, `marker-${era}`);
    const pane = await startKeel(['call', 'wait', `marker=${marker}`, '--era', era]);
    await waitForFile(`${marker}.started`);
    await keys(pane, 'C-c');
    const done = await waitFor(pane, (s) => s.includes('KEEL_EXIT='), 'exit');
    expect(done).toContain('keel: cancelled\nKEEL_EXIT=130');
    // The server's handler was aborted by the client's cancel (not by the connection closing).
    expect(await waitForFile(marker)).toBe('aborted: CancelledByPeerError');
  },
  60_000,
);

test('a second Ctrl+C exits at once while the first cannot finish (a server that ignores EOF and SIGTERM)', async () => {
  const marker = join(work, 'marker-stubborn');
  const signals = join(work, 'signals');
  const pane = await startKeel(
    ['call', 'wait', `marker=${marker}`],
    ['--stubborn'],
    `KEEL_CLI_SIGNALS=${quote(signals)} `,
  );
  await waitForFile(`${marker}.started`);
  const pid = Number(await waitForFile(`${signals}.pid`));
  await keys(pane, 'C-c');
  // keel has cancelled the call and now waits for the server to exit, which it never does by itself.
  await waitFor(pane, (s) => s.includes('keel: cancelled'), 'the first cancel');
  await keys(pane, 'C-c');
  const done = await waitFor(pane, (s) => s.includes('KEEL_EXIT='), 'exit');
  expect(done).toContain('KEEL_EXIT=130');
  // Issue 23 item 14: said once, not once per press.
  expect(done.match(/^keel: cancelled$/gm)).toEqual(['keel: cancelled']);
  // keel's own close would have sent SIGTERM after its grace period: the server got no signal at all
  // (Ctrl+C reached keel only, through the raw terminal), and was killed when keel quit.
  expect(existsSync(signals) ? readFileSync(signals, 'utf8') : '').toBe('');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && isRunning(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(isRunning(pid)).toBe(false);
}, 60_000);

/** Alive and not a zombie (an orphan may wait a while for its reaper). */
function isRunning(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

test.each(['modern', 'legacy'])(
  '--sampling prompt: the user reads the messages and types the reply (%s era)',
  async (era) => {
    const pane = await startKeel(['call', 'sample', '--sampling', 'prompt', '--era', era]);
    await waitFor(pane, (s) => s.includes('  user: say hi') && s.includes('Reply'), 'the sampling prompt');
    await type(pane, 'hello from a human');
    await keys(pane, 'Enter');
    const done = await waitFor(pane, (s) => s.includes('KEEL_EXIT='), 'exit');
    expect(done).toContain('sampled: {"type":"text","text":"hello from a human"}\nKEEL_EXIT=0');
  },
  60_000,
);

test('URL-mode elicitation: the URL is shown and the user confirms', async () => {
  const pane = await startKeel(['call', 'open_url']);
  const asked = await waitFor(
    pane,
    (s) => s.includes('Open it in your browser and go on?'),
    'the URL confirm',
  );
  expect(asked).toContain(
    'keel: the server asks you to open https://example.com/login\n  Sign in to continue',
  );
  await keys(pane, 'Enter'); // Yes
  const done = await waitFor(pane, (s) => s.includes('KEEL_EXIT='), 'exit');
  expect(done).toContain('url: accept\nKEEL_EXIT=0');
}, 60_000);

test('issue 23 item 11: a server that does not answer: after a moment keel says what it waits for; Ctrl+C stops it', async () => {
  const pane = await startPane(silentKeel('tools'));
  const waiting = await waitFor(pane, (s) => s.includes('keel: waiting for'), 'the waiting line');
  expect(waiting).toContain(
    `keel: waiting for \`${SILENT.join(' ')}\` to answer (connecting)… Ctrl+C stops; --timeout <seconds> sets a limit`,
  );
  await keys(pane, 'C-c');
  const done = await waitFor(pane, (s) => s.includes('KEEL_EXIT='), 'exit');
  expect(done).toMatch(/keel: cancelled\nKEEL_EXIT=130/);
  expect(done.match(/keel: waiting for/g)).toHaveLength(1);
}, 60_000);

test('issue 23 item 11: with --timeout, the waiting line, then the timeout (exit 124)', async () => {
  const pane = await startPane(silentKeel('tools', '--timeout', '4'));
  const done = await waitFor(pane, (s) => s.includes('KEEL_EXIT='), 'exit');
  const server = `\`${SILENT.join(' ')}\``;
  expect(done).toContain(
    `keel: waiting for ${server} to answer (connecting)… Ctrl+C stops\n` +
      `keel: timed out after 4 s waiting for ${server} to answer (connecting)\nKEEL_EXIT=124`,
  );
}, 60_000);
