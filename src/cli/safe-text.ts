/**
 * Text from a server reaches the user's terminal: tool names, descriptions, results, log lines,
 * progress messages, elicitation prompts, its stderr. Control characters in it could retitle the
 * window (OSC 0), write the clipboard (OSC 52), clear the screen, or move the cursor back over what
 * the CLI printed (a URL the user is asked to open, say), so they are shown as visible escapes. The
 * Unicode bidirectional controls are escaped too: they reorder what is shown without moving a byte,
 * so a URL or a command could read as another.
 *
 * Four shapes, after where the text goes:
 * - {@link safeText}: paragraphs (results, messages, stderr): newline and tab stay;
 * - {@link safeLine}: prose on one line (titles, descriptions, labels): line breaks and tabs become
 *   spaces, so a description cannot start a line that looks like the CLI's own;
 * - {@link safeName}: identifiers and values (names, URIs, URLs, defaults): every control escaped;
 * - {@link safeJson}: `--json` output, which must stay valid JSON with the server's data intact.
 */
// C0 controls but \t and \n, DEL, the C1 range (U+0080-U+009F, CSI among them), and the bidi
// controls (ALM, LRM, RLM, the embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const HAS_CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// JSON.stringify escapes C0 but leaves DEL, C1 and the bidi controls raw.
const JSON_RAW_CONTROL = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// `\x1b` for one byte's worth, `\u{202e}` above it (so the escape cannot be misread as \x20 + "2e").
const hex = (c: string): string => {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
};

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
