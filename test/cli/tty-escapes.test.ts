/**
 * Issue 23 item 4: a malicious stdio server (fixtures/hostile-server.mjs) puts terminal escape
 * sequences in every text field it sends: names, titles, descriptions, argument descriptions,
 * server info, results, errors, log lines, progress, stderr, the elicitation message, form labels,
 * choice labels, a text field's default, the URL-mode message, sampling messages. Every `keel`
 * command runs against it in a real pseudo-terminal (tmux), and the test checks what reached the
 * terminal: the raw bytes hold none of the server's sequences, the window title, tmux's paste
 * buffers (OSC 52) and bell flag are untouched, and the escaped text is what the user sees. A control test first shows that each check does see a raw escape.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { useProcessGuard } from '../helpers/guard.js';
import { ROOT } from './helpers.js';
import { keelCommand, quote, useTmux } from './tmux.js';

useProcessGuard();

const { tmux, work, startPane, waitFor, keys, type } = useTmux();
// The prompts wrap long labels at the pane's width: compare without the line breaks.
const flat = (screen: string): string => screen.replaceAll('\n', '');
const HOSTILE = join(ROOT, 'test', 'cli', 'fixtures', 'hostile-server.mjs');
// What the server puts in every field (the same as fixtures/hostile-server.mjs's EVIL).
const EVIL = '\x1b]0;PWNED\x07\x1b[2J\x1b]52;c;UFdORUQ=\x07\x1bc\u009b7m\x07\rFAKE';
// ...and how the CLI shows it on one line.
const SHOWN = '\\x1b]0;PWNED\\x07\\x1b[2J\\x1b]52;c;UFdORUQ=\\x07\\x1bc\\x9b7m\\x07\\x0dFAKE';

const state = async (pane: string) => ({
  title: (await tmux('display', '-p', '-t', pane, '#{pane_title}')).trim(),
  bell: (await tmux('display', '-p', '-t', pane, '#{window_bell_flag}')).trim(),
  buffers: (await tmux('list-buffers')).trim(),
});

/** The server's sequences, as bytes a terminal would act on. */
function effects(raw: Buffer): string[] {
  const text = raw.toString('latin1'); // byte for byte
  const found: string[] = [];
  if (text.includes('\x1b]')) found.push('OSC (title, clipboard)');
  if (text.includes('\x07')) found.push('BEL');
  if (text.includes('\x1b[2J')) found.push('CSI 2J (clear screen)');
  if (text.includes('\x1bc')) found.push('ESC c (reset)');
  if (/\xc2[\x80-\x9f]/.test(text)) found.push('a C1 control (UTF-8)');
  if (text.includes('\rFAKE')) found.push('CR before the fake text');
  return found;
}

test('control: the checks see an escape written raw to the terminal', async () => {
  const raw = join(work, 'control.raw');
  const pane = await startPane(
    `echo BEFORE-MARK; ${quote(process.execPath)} -e ${quote(`process.stdout.write(${JSON.stringify(EVIL)} + '\\n')`)}`,
    { raw },
  );
  await waitFor(pane, (s) => s.includes('KEEL_EXIT=0'), 'the end');
  // The visible screen was cleared (tmux keeps the old lines in its history) and CR went back.
  expect(await tmux('capture-pane', '-p', '-t', pane)).toMatch(/^FAKE\nKEEL_EXIT=0\n/);
  expect(await state(pane)).toMatchObject({ title: 'PWNED', bell: '1' });
  expect((await state(pane)).buffers).toContain('PWNED');
  expect(effects(readFileSync(raw))).toEqual([
    'OSC (title, clipboard)',
    'BEL',
    'CSI 2J (clear screen)',
    'ESC c (reset)',
    'a C1 control (UTF-8)',
    'CR before the fake text',
  ]);
  await tmux('delete-buffer').catch(() => undefined);
}, 60_000);

test('issue 23 item 4: no escape sequence from the server reaches the terminal, from any command', async () => {
  const raw = join(work, 'hostile.raw');
  const keel = (...args: string[]) => keelCommand(args, HOSTILE);
  const pane = await startPane(
    [
      keel('ping'),
      keel('tools'),
      keel('resources'),
      keel('prompts'),
      keel('read', 'evil://res'),
      keel('read', 'evil://broken'),
      keel('prompt', 'talk'),
      keel('call', 'fails'),
      keel('call', 'url'),
      keel('call', 'sample', '--sampling', 'prompt'),
      keel('call', 'form', '--era', 'legacy'),
    ].join('; '),
    { raw },
  );
  const before = await state(pane);
  await waitFor(pane, (s) => s.includes('Open it in your browser and go on?'), 'the URL confirm');
  await keys(pane, 'Enter');
  await waitFor(pane, (s) => s.includes('Reply'), 'the sampling prompt');
  await type(pane, 'hi');
  await keys(pane, 'Enter');
  await waitFor(pane, (s) => s.includes('Fill in the form'), 'the form choice');
  await keys(pane, 'Enter');
  const field = flat(await waitFor(pane, (s) => flat(s).includes('not filled in'), 'the text field'));
  // The default is shown escaped, and not pre-filled: Enter would have sent it back.
  expect(field).toContain(
    `Title${SHOWN}: Description${SHOWN} (optional) [the server's default is not filled in, it holds control characters: default${SHOWN}]`,
  );
  await type(pane, 'typed');
  await keys(pane, 'Enter');
  await waitFor(pane, (s) => flat(s).includes(`Red${SHOWN}`), 'the color choices');
  await keys(pane, 'Enter');
  await waitFor(pane, (s) => flat(s).includes(`Small${SHOWN}`), 'the size choices');
  await keys(pane, 'Enter');
  await waitFor(pane, (s) => flat(s).includes(`OK${SHOWN}`), 'the confirm');
  await keys(pane, 'Enter');
  const screen = await waitFor(pane, (s) => s.includes('KEEL_EXIT='), 'the end', 60_000);

  expect(screen).toContain('answer: accept {"text":"typed","color":"red","size":"s","ok":true}\nKEEL_EXIT=0');
  expect(effects(readFileSync(raw))).toEqual([]);
  expect(await state(pane)).toEqual(before);
  expect(before.title).not.toContain('PWNED');
  expect(before.buffers).toBe('');
  // What the user saw: the server's text, its escapes made visible (listings are cut at the
  // pane's width, with …).
  for (const shown of [
    `ok: srv${SHOWN} v${SHOWN}`,
    `evil${SHOWN} (title\\x1b]0;PWNED`,
    `  arg${SHOWN}: string  argdesc\\x1b]0;`,
    `evil://res  restitle${SHOWN} (text/plain): resdesc\\x1b]0;`,
    `prompt${SHOWN} (prompttitle\\x1b]0;`,
    `content${SHOWN}`,
    `answered an error (-32603): read error${SHOWN}`,
    `# talkdesc${SHOWN}`,
    `tool error${SHOWN}`,
    `  open${SHOWN}`,
    `system: system${SHOWN}`,
    `user: sample${SHOWN}`,
    `The server asks: message${SHOWN}`,
    `stderr${SHOWN}`,
    `logger${SHOWN}: log${SHOWN}`,
    `Color${SHOWN}│  Red${SHOWN}`,
    `Size${SHOWN}│  Small${SHOWN}`,
  ]) {
    expect(flat(screen)).toContain(shown);
  }
}, 120_000);
