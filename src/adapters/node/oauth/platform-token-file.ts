/**
 * A workload's platform token kept in a file (a Kubernetes projected service account token, a
 * SPIFFE helper's JWT-SVID file), read again for every token request of `workloadIdentityAuth`:
 * the platform rewrites the file before the token expires, so the current one is always sent.
 */
import { open } from 'node:fs/promises';
import { AuthorizationError } from '../../../core/errors.js';
import type {
  PlatformTokenFunction,
  PlatformTokenRequest,
} from '../../../client/auth/machine/platform-token.js';

/** Largest token file read: a JWT is a few KB; a wrong path to a large file is refused at once. */
const MAX_TOKEN_FILE_BYTES = 64 * 1024;

/**
 * The `platformToken` of `workloadIdentityAuth` that reads `path` on each use. A file that cannot
 * be read fails the request with an `AuthorizationError` (`token`) naming the file and the system
 * error code (`ENOENT`, `EACCES`), never its content.
 *
 * @example
 * import { platformTokenFile } from 'keel-mcp/node';
 * const auth = workloadIdentityAuth({
 *   issuer: 'https://auth.example.com',
 *   platformToken: platformTokenFile('/var/run/secrets/tokens/mcp-token'),
 * });
 */
export function platformTokenFile(path: string): PlatformTokenFunction {
  if (typeof path !== 'string' || path === '') throw new TypeError('platformTokenFile: path is empty');
  const description = `file ${path}`;
  const read = async ({ signal }: PlatformTokenRequest): Promise<string> => {
    try {
      const handle = await open(path, 'r');
      try {
        const { size } = await handle.stat();
        if (size > MAX_TOKEN_FILE_BYTES) {
          throw new AuthorizationError(
            'token',
            `the platform token ${description} is larger than ${MAX_TOKEN_FILE_BYTES} bytes`,
          );
        }
        return await handle.readFile({ encoding: 'utf8', signal });
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (error instanceof AuthorizationError) throw error;
      signal.throwIfAborted();
      const code = (error as { code?: unknown }).code;
      throw new AuthorizationError(
        'token',
        `no platform token: cannot read ${description} (${typeof code === 'string' ? code : 'unreadable'})`,
      );
    }
  };
  return Object.assign(read, { description });
}
