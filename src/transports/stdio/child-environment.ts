/**
 * The environment a spawned server gets by default: enough to run, not the parent's secrets.
 */

const POSIX_VARIABLES = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'TMPDIR'];
const WINDOWS_VARIABLES = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PATHEXT',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
  'PROGRAMFILES',
];

/**
 * The variables of `process.env` a child server inherits unless told otherwise: the basics a
 * program needs to run (`PATH`, `HOME`, ...), not API keys. Values that look like exported shell
 * functions (`() {`) are left out.
 *
 * @example
 * new StdioClientTransport({ command: 'node', args: ['server.js'], env: { ...defaultChildEnvironment(), API_KEY } });
 */
export function defaultChildEnvironment(): Record<string, string> {
  const names = process.platform === 'win32' ? WINDOWS_VARIABLES : POSIX_VARIABLES;
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = process.env[name];
    if (value === undefined || value.startsWith('()')) continue;
    env[name] = value;
  }
  return env;
}
