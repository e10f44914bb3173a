/**
 * Text from a server reaches the user's terminal: tool names, descriptions, results, log lines,
 * progress messages, elicitation prompts, its stderr. Control characters in it could retitle the
 * window (OSC 0), write the clipboard (OSC 52), clear the screen, or move the cursor back over what
 * the CLI printed (a URL the user is asked to open, say), so they are shown as visible escapes.
 *
 * Four shapes, after where the text goes:
 * - {@link safeText}: paragraphs (results, messages, stderr): newline and tab stay;
 * - {@link safeLine}: prose on one line (titles, descriptions, labels): line breaks and tabs become
 *   spaces, so a description cannot start a line that looks like the CLI's own;
 * - {@link safeName}: identifiers and values (names, URIs, URLs, defaults): every control escaped;
 * - {@link safeJson}: `--json` output, which must stay valid JSON with the server's data intact.
 */
// C0 controls but \t and \n, DEL, and the C1 range (U+0080-U+009F, CSI among them).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const HAS_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// JSON.stringify escapes C0 but leaves DEL and C1 raw.
const JSON_RAW_CONTROL = /[\u007f-\u009f]/g;

const hex = (c: string): string => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/**
 * `text` with its terminal control characters made visible (`\x1b` for ESC); newline and tab stay.
 *
 * @example
 * safeText('red\x1b[31m'); // 'red\\x1b[31m'
 */
export function safeText(text: string): string {
  return text.replace(CONTROL, hex);
}

/**
 * Prose for one line: line breaks and tabs become one space, other controls visible escapes.
 *
 * @example
 * safeLine('Echo\n\tthe text\x07'); // 'Echo the text\\x07'
 */
export function safeLine(text: string): string {
  return text.replace(/[ ]*(?:\r?\n|\t)[\s]*/g, ' ').replace(ANY_CONTROL, hex);
}

/**
 * A name or a value shown as it is: every control character escaped, newline and tab included.
 *
 * @example
 * safeName('a\nb'); // 'a\\x0ab'
 */
export function safeName(text: string): string {
  return text.replace(ANY_CONTROL, hex);
}

/**
 * Whether `text` holds a character that {@link safeName} would escape.
 *
 * @example
 * hasControl('ok\x1b[2J'); // true
 */
export function hasControl(text: string): boolean {
  return HAS_CONTROL.test(text);
}

/**
 * `JSON.stringify` output made safe for a terminal and still valid JSON: DEL and the C1 controls,
 * which `JSON.stringify` leaves raw, become `\u` escapes (the parsed data is unchanged).
 *
 * @example
 * safeJson(JSON.stringify('\u009b2J')); // '"\\u009b2J"'
 */
export function safeJson(json: string): string {
  return json.replace(JSON_RAW_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
