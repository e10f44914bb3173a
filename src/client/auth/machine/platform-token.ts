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
 * The workload's JWT: a string, an environment variable read for each token request, or a
 * function called for each token request. A file re-read for each token request (a Kubernetes
 * projected token) is `platformTokenFile(path)` from `keel-mcp/node`: the client itself stays
 * free of `node:` modules.
 *
 * @example
 * const ci: PlatformToken = { env: 'MCP_WORKLOAD_TOKEN' };
 * const k8s: PlatformToken = platformTokenFile('/var/run/secrets/tokens/mcp-token'); // keel-mcp/node
 * const custom: PlatformToken = async ({ issuer }) => getIdentityToken(issuer);
 */
export type PlatformToken = string | { readonly env: string } | PlatformTokenFunction;

/**
 * A function that returns the current platform token; its optional `description` ("file
 * /var/run/...") names the source in error messages.
 *
 * @example
 * const fromSidecar: PlatformTokenFunction = Object.assign(async () => sidecar.token(), { description: 'the SPIFFE sidecar' });
 */
export type PlatformTokenFunction = ((request: PlatformTokenRequest) => string | Promise<string>) & {
  readonly description?: string;
};

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * The current platform token, checked to be a compact JWT that has not expired. Every failure is
 * an `AuthorizationError` (`token`) that names the source, never the token.
 *
 * @example
 * const assertion = await readPlatformToken({ env: 'MCP_WORKLOAD_TOKEN' }, request);
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
      // A typed failure (platformTokenFile's) is already clear; anything else is wrapped.
      if (error instanceof AuthorizationError) throw error;
      throw new AuthorizationError('token', `the platform token function failed: ${message(error)}`, {
        cause: error,
      });
    }
    if (typeof raw !== 'string')
      throw new AuthorizationError('token', 'the platform token function returned no string');
    return { raw, from: source.description ?? 'the platform token function' };
  }
  const from = `environment variable ${source.env}`;
  // globalThis.process: the client also runs where there is no `process` (browsers, workers).
  const raw = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
    source.env
  ];
  if (raw === undefined) throw new AuthorizationError('token', `no platform token: ${from} is not set`);
  return { raw, from };
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
