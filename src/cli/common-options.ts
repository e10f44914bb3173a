/**
 * The options every `keel` command takes (parsed by main.ts; read by session.ts and oauth.ts).
 *
 * @example
 * const options: CommonOptions = { era: 'auto', header: [], browser: true };
 */
export interface CommonOptions {
  json?: boolean;
  era: 'auto' | 'legacy' | 'modern';
  header: string[];
  timeout?: number;
  quiet?: boolean;
  sampling?: string;
  authPort?: number;
  browser: boolean;
}
