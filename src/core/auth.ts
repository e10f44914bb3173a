/**
 * The two seams of authorization, shared by both sides so neither imports the other:
 * {@link AuthInfo} is what a resource server's token check establishes about a caller (it reaches
 * handlers as `ctx.auth`); {@link HttpAuthProvider} is how an HTTP client transport gets the
 * `Authorization` header for its requests and what it does when the server refuses one.
 */

/**
 * A verified caller. Built by a token verifier from a valid access token; the raw token is not in
 * it, so a handler cannot pass a client's token on to another service by accident.
 *
 * @example
 * server.tool('whoami', {}, (_args, ctx) => ({ content: [{ type: 'text', text: ctx.auth?.subject ?? 'anonymous' }] }));
 */
export interface AuthInfo {
  /** The token's subject (`sub`): the user or workload it was issued for. */
  readonly subject?: string;
  /** The OAuth client the token was issued to (`client_id` or `azp`). */
  readonly clientId?: string;
  /** The scopes the token grants. */
  readonly scopes: readonly string[];
  /** The authorization server that issued the token (`iss`). */
  readonly issuer?: string;
  /** The audiences the token is for (`aud`); a verifier only accepts tokens whose audience is this server. */
  readonly audience?: readonly string[];
  /** Expiry, in seconds since the epoch (`exp`). */
  readonly expiresAt?: number;
  /** Every claim of the token (JWT payload or introspection response), for what the fields above leave out. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/**
 * Why the server refused a request: the HTTP status and its `WWW-Authenticate` challenge.
 *
 * @example
 * const challenge: AuthChallenge = { url, status: 401, wwwAuthenticate: 'Bearer resource_metadata="https://example.com/.well-known/oauth-protected-resource/mcp"' };
 */
export interface AuthChallenge {
  /** The MCP endpoint that refused. */
  readonly url: URL;
  /** 401 (no or bad token) or 403 (typically `insufficient_scope`: step-up). */
  readonly status: 401 | 403;
  /** The response's `WWW-Authenticate` header, if any. */
  readonly wwwAuthenticate: string | undefined;
  /** Every header of the refusal (a DPoP server sends its nonce in `DPoP-Nonce`, RFC 9449 §9). */
  readonly headers?: Headers;
}

/**
 * One HTTP request an {@link HttpAuthProvider} authorizes: a DPoP proof (RFC 9449) names its
 * method and URL.
 *
 * @example
 * const request: HttpAuthRequest = { url: new URL('https://mcp.example.com/mcp'), method: 'POST' };
 */
export interface HttpAuthRequest {
  /** The MCP endpoint the request goes to. */
  readonly url: URL;
  /** Upper-case HTTP method. */
  readonly method: string;
}

/**
 * Authorization for an HTTP client transport (`StreamableHttpClientOptions.auth`). The transport
 * asks for the `Authorization` header before every request; when the server answers 401 or 403 it
 * calls {@link challenge} and, if that resolves true, sends the same request again with a fresh
 * header. Implementations run one authorization at a time: concurrent requests refused together
 * share it.
 *
 * @example
 * const auth: HttpAuthProvider = {
 *   authorization: async () => `Bearer ${await tokens.current()}`,
 *   challenge: async () => tokens.refresh(),
 * };
 * new StreamableHttpClientTransport(url, { auth });
 */
export interface HttpAuthProvider {
  /** The `Authorization` header value for the next request to `url`, or undefined to send none. */
  authorization(url: URL, signal: AbortSignal): Promise<string | undefined>;
  /**
   * The server refused a request. Resolve true once new credentials are in place (the transport
   * retries the request), false to give up (the request fails with the HTTP status); reject with
   * a typed error to fail the request with that error.
   */
  challenge(challenge: AuthChallenge, signal: AbortSignal): Promise<boolean>;
  /**
   * Optional: every authorization header of one request (`authorization`, and `dpop` for a
   * DPoP-bound token), by lower-case name. When present the transport calls it instead of
   * {@link authorization}.
   */
  headers?(request: HttpAuthRequest, signal: AbortSignal): Promise<Readonly<Record<string, string>>>;
  /**
   * Optional: the headers of each response that was not refused (a DPoP server may send a new
   * `DPoP-Nonce` with any answer, RFC 9449 §9). Must be cheap and must not throw.
   */
  answered?(url: URL, headers: Headers): void;
}

/**
 * The user-agent step of the authorization code flow: send the user to `authorizationUrl` and
 * resolve with the URL the authorization server redirected back to (it carries `code`, `state`
 * and `iss`). A desktop or CLI client opens a browser and listens on loopback; tests and automated
 * authorization servers follow the redirect without a browser. Reject when `signal` aborts.
 *
 * @example
 * const redirect: AuthorizationRedirect = async (url) => new URL(await askUserToPasteCallback(url));
 */
export type AuthorizationRedirect = (authorizationUrl: URL, signal: AbortSignal) => Promise<URL>;

/**
 * Where an OAuth client keeps what must outlive one process: tokens and client registrations.
 * Values are opaque strings (the client serializes them); keys name the issuer and resource they
 * belong to. An implementation must keep values secret (they hold refresh tokens and secrets).
 *
 * @example
 * const memory = new Map<string, string>();
 * const store: TokenStore = {
 *   get: async (key) => memory.get(key),
 *   set: async (key, value) => void memory.set(key, value),
 *   delete: async (key) => void memory.delete(key),
 * };
 */
export interface TokenStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}
