/**
 * Where a workload's platform token comes from, read afresh for every token request: platforms
 * rotate these tokens (a Kubernetes projected service account token is rewritten in place well
 * before it expires), so a token read once at start-up would fail an hour later.
 */
import { AuthorizationError } from '../errors.js';

/**
 * What a platform token function is told: the authorization server it will be presented to, so
 * a function that asks the platform for a token (a cloud metadata server, the Kubernetes
 * TokenRequest API) can request the right audience.
 *
 * @example
 * const fetchToken = ({ issuer }: PlatformTokenRequest) => metadataServer.identityToken({ audience: issuer });
 */
export interface PlatformTokenRequest {
  /** The authorization server's issuer identifier (RFC 7523 §3 accepts it as `aud`). */
  readonly issuer: string;
  /** Its token endpoint URL (what the WIF extension text names as `aud`). */
  readonly tokenEndpoint: string;
  /** The MCP server's resource identifier. */
  readonly resource: string;
  readonly signal: AbortSignal;
}

/**
 * The workload's JWT: a string, a file re-read for each token request, an environment variable
 * read for each token request, or a function called for each token request.
 *
 * @example
 * const k8s: PlatformToken = { file: '/var/run/secrets/tokens/mcp-token' };
 * const ci: PlatformToken = { env: 'MCP_WORKLOAD_TOKEN' };
 * const custom: PlatformToken = async ({ issuer }) => getIdentityToken(issuer);
 */
export type PlatformToken =
  | string
  | { readonly file: string }
  | { readonly env: string }
  | ((request: PlatformTokenRequest) => string | Promise<string>);

/** Largest token file read (a JWT of a few KB; a wrong path to a large file is refused fast). */
const MAX_TOKEN_FILE_BYTES = 64 * 1024;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * The current platform token, checked to be a compact JWT that has not expired. Every failure is
 * an `AuthorizationError` (`token`) that names the source, never the token.
 *
 * @example
 * const assertion = await readPlatformToken({ file: '/var/run/secrets/tokens/mcp' }, request);
 */
export async function readPlatformToken(
  source: PlatformToken,
  request: PlatformTokenRequest,
): Promise<string> {
  const { raw, from } = await readSource(source, request);
  const token = raw.trim();
  if (!token) throw new AuthorizationError('token', `no platform token: ${from} is empty`);
  if (!JWT_SHAPE.test(token))
    throw new AuthorizationError('token', `the platform token from ${from} is not a JWT`);
  const exp = await expiry(token);
  if (exp !== undefined && exp * 1000 <= Date.now()) {
    throw new AuthorizationError(
      'token',
      `the platform token from ${from} expired at ${new Date(exp * 1000).toISOString()}; the platform has not renewed it`,
    );
  }
  return token;
}

async function readSource(
  source: PlatformToken,
  request: PlatformTokenRequest,
): Promise<{ raw: string; from: string }> {
  if (typeof source === 'string') return { raw: source, from: 'the platformToken option' };
  if (typeof source === 'function') {
    let raw: unknown;
    try {
      raw = await source(request);
    } catch (error) {
      request.signal.throwIfAborted();
      throw new AuthorizationError('token', `the platform token function failed: ${message(error)}`, {
        cause: error,
      });
    }
    if (typeof raw !== 'string')
      throw new AuthorizationError('token', 'the platform token function returned no string');
    return { raw, from: 'the platform token function' };
  }
  if ('env' in source) {
    const from = `environment variable ${source.env}`;
    // globalThis.process: the client also runs where there is no `process` (browsers, workers).
    const raw = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
      source.env
    ];
    if (raw === undefined) throw new AuthorizationError('token', `no platform token: ${from} is not set`);
    return { raw, from };
  }
  const from = `file ${source.file}`;
  // Loaded here so that a browser bundle of the client never pulls in node:fs.
  const { open } = await import('node:fs/promises');
  try {
    const handle = await open(source.file, 'r');
    try {
      const { size } = await handle.stat();
      if (size > MAX_TOKEN_FILE_BYTES) {
        throw new AuthorizationError(
          'token',
          `the platform token ${from} is larger than ${MAX_TOKEN_FILE_BYTES} bytes`,
        );
      }
      return { raw: await handle.readFile({ encoding: 'utf8', signal: request.signal }), from };
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof AuthorizationError) throw error;
    request.signal.throwIfAborted();
    const code = (error as { code?: unknown }).code;
    throw new AuthorizationError(
      'token',
      `no platform token: cannot read ${from} (${typeof code === 'string' ? code : message(error)})`,
    );
  }
}

/** `exp` of the payload, read without verifying (the authorization server verifies). */
async function expiry(token: string): Promise<number | undefined> {
  const { decodeJwt } = await import('jose');
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' ? exp : undefined;
  } catch {
    throw new AuthorizationError('token', 'the platform token is not a JWT (its payload is not JSON)');
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
