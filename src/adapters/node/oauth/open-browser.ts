/**
 * Opening the user's browser on an authorization URL, with the platform's own opener.
 */
import { spawn } from 'node:child_process';
import { win32 } from 'node:path';
import { LocalError } from '../../../core/errors.js';

/** The program and arguments that open `url` in the default browser on `platform`. */
export interface BrowserCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/**
 * The opener for `platform`: `open` on macOS, `rundll32 url.dll,FileProtocolHandler <url>` on
 * Windows, `xdg-open` elsewhere. Only http(s) URLs: anything else (a `file:` or custom scheme URL
 * from a lying server) could run a program. `systemRoot` (Windows only) locates rundll32.
 */
export function browserCommand(
  url: URL,
  platform: string = process.platform,
  systemRoot: string | undefined = process.env['SystemRoot'],
): BrowserCommand {
  assertWebUrl(url);
  if (platform === 'darwin') return { command: 'open', args: [url.href] };
  if (platform === 'win32') {
    // Not cmd.exe: it expands %VAR% even inside quotes, and splits at & unless quoted. rundll32
    // passes the rest of its command line to the handler untouched, and Node adds no quotes to
    // an href (it holds no space, tab or quote). A full path, because a bare name is looked up
    // in the working directory before PATH.
    const root = systemRoot && win32.isAbsolute(systemRoot) ? systemRoot : 'C:\\Windows';
    return {
      command: win32.join(root, 'System32', 'rundll32.exe'),
      args: ['url.dll,FileProtocolHandler', url.href],
    };
  }
  return { command: 'xdg-open', args: [url.href] };
}

/**
 * Open `url` in the user's default browser (the platform opener, run without a shell and
 * detached, so it outlives neither nor holds this process). Resolves once the opener has started;
 * rejects (never throws) when the URL is not http(s) or the opener cannot be started.
 *
 * @example
 * await openBrowser(new URL('https://auth.example.com/authorize?client_id=cli')).catch(() =>
 *   console.error('Open this URL in a browser: https://auth.example.com/authorize?client_id=cli'),
 * );
 */
export async function openBrowser(url: URL): Promise<void> {
  const { command, args } = browserCommand(url);
  await spawnDetached(command, args);
}

/** Start `command` detached with no stdio; resolve when it started, reject if it could not. */
export function spawnDetached(command: string, args: readonly string[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, args, {
        detached: true,
        stdio: 'ignore',
        shell: false,
        windowsHide: true, // no window flashing up on Windows
      });
    } catch (error) {
      reject(startFailure(command, error));
      return;
    }
    child.once('error', (error) => reject(startFailure(command, error)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}

function assertWebUrl(url: URL): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new LocalError(
      `Refusing to open a ${url.protocol} URL in the browser: only http(s) URLs are opened`,
    );
  }
}

/** Names the program and the errno; the arguments (the whole URL) stay out of the message. */
function startFailure(command: string, error: unknown): LocalError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return new LocalError(`Could not start the browser opener "${command}"${code ? ` (${code})` : ''}`);
}
