/**
 * Text from a server reaches the user's terminal: tool names, descriptions, results, log lines,
 * progress messages, elicitation prompts. Control characters in it could retitle the window,
 * clear the screen or move the cursor back over what the CLI printed (a URL the user is asked to
 * open, say), so every one except newline and tab is shown as a visible escape instead.
 */
// C0 controls but \t and \n, DEL, and the C1 range (U+0080-U+009F, CSI among them).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` with its terminal control characters made visible (`\x1b` for ESC).
 *
 * @example
 * safeText('red\x1b[31m'); // 'red\\x1b[31m'
 */
export function safeText(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
