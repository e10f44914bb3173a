/**
 * The OAuth client of an MCP HTTP connection: an {@link HttpAuthProvider} that discovers the
 * authorization server when the server refuses, registers, runs the authorization code flow,
 * refreshes, and steps up on `insufficient_scope`.
 */
import type { AuthChallenge, HttpAuthProvider, HttpAuthRequest, TokenStore } from '../../core/auth.js';
import type { Extension } from '../../core/extensions.js';
import { DPoPSigner, dpopExtension } from './dpop.js';
import { AttemptCounter } from './attempts.js';
import { discoverAuthorization } from './discovery.js';
import { AuthorizationError } from './errors.js';
import {
  ATTEMPT_WINDOW_MS,
  MAX_AUTHORIZATION_ATTEMPTS,
  type OAuthClientProviderOptions,
} from './provider-options.js';
import {
  authorizeServer,
  refreshServer,
  rethrowAbort,
  type GrantContext,
  type ServerState,
} from './provider-grants.js';
import { selectScopes } from './scope.js';
import { MemoryTokenStore, readJson, tokensKey } from './store.js';
import { isExpired, type StoredTokens } from './tokens.js';
import { FlightSlot } from './single-flight.js';
import { secureUrl } from './urls.js';
import { parseBearerChallenge } from './www-authenticate.js';

/**
 * OAuth 2.1 for the Streamable HTTP client transport (`auth` option). Nothing happens until the
 * server refuses a request: then it discovers (RFC 9728, RFC 8414), registers (pre-registered,
 * client ID metadata document, or RFC 7591), authorizes (code + PKCE S256, `state`, RFC 8707
 * `resource`, RFC 9207 `iss`), and the transport resends the request. An expired token is
 * refreshed (rotation kept); `403 insufficient_scope` re-authorizes with the union of the scopes,
 * at most {@link MAX_AUTHORIZATION_ATTEMPTS} times per request. Requests refused together share
 * one flow; a failed flow fails them all with the same {@link AuthorizationError}.
 *
 * @example
 * const redirectUri = 'http://127.0.0.1:8976/callback';
 * const auth = new OAuthClientProvider({
 *   clientMetadata: { client_name: 'My agent', redirect_uris: [redirectUri] },
 *   redirect: headlessRedirect({ redirectUri }),
 * });
 * await client.connect(new StreamableHttpClientTransport(new URL('https://mcp.example.com/mcp'), { auth }));
 */
export class OAuthClientProvider implements HttpAuthProvider {
  private readonly servers = new Map<string, ServerState>();
  private readonly store: TokenStore;
  private readonly now: () => number;
  /** The access token each request (by its signal) was last sent with. */
  private readonly sent = new WeakMap<AbortSignal, string | undefined>();
  /** Authorization flows run for each request (by its signal). */
  private readonly attempts: AttemptCounter;
  /** When each request (by signal) last had its one refresh (one per {@link ATTEMPT_WINDOW_MS}). */
  private readonly refreshed = new WeakMap<AbortSignal, number>();
  /** With the `dpop` option: the key and the servers' nonces. */
  private readonly dpop: DPoPSigner | undefined;
  /**
   * The extensions to declare in the client using this provider (`client.extend(e)` for each
   * before connecting): DPoP's (SEP-1932) with the `dpop` option, else none.
   */
  readonly extensions: readonly Extension<unknown>[];

  constructor(private readonly options: OAuthClientProviderOptions) {
    const redirectUri = options.clientMetadata.redirect_uris[0];
    if (!redirectUri) throw new TypeError('clientMetadata.redirect_uris must list the redirect URI');
    checkRedirectUri(redirectUri);
    this.store = options.store ?? new MemoryTokenStore();
    this.now = options.now ?? Date.now;
    this.attempts = new AttemptCounter(MAX_AUTHORIZATION_ATTEMPTS, ATTEMPT_WINDOW_MS, this.now);
    if (options.dpop) this.dpop = new DPoPSigner(options.dpop === true ? {} : options.dpop, this.store);
    this.extensions = Object.freeze(this.dpop ? [dpopExtension()] : []);
  }

  private get grants(): GrantContext {
    return { options: this.options, store: this.store, now: this.now, dpop: this.dpop };
  }

  /** See {@link HttpAuthProvider.authorization}: the current token, refreshed first when it expired. */
  async authorization(url: URL, signal: AbortSignal): Promise<string | undefined> {
    const tokens = await this.current(url, signal);
    if (!tokens) return undefined;
    // The transport calls headers() (with the proof); this is the header alone, for other callers.
    return `${this.dpop && isDPoP(tokens.token_type) ? 'DPoP' : 'Bearer'} ${tokens.access_token}`;
  }

  /**
   * See {@link HttpAuthProvider.headers}: `authorization`, and for a DPoP-bound token a fresh
   * `dpop` proof of this request (method, URL, token hash, the server's latest nonce).
   */
  async headers(request: HttpAuthRequest, signal: AbortSignal): Promise<Readonly<Record<string, string>>> {
    const tokens = await this.current(request.url, signal);
    if (!tokens) return {};
    if (!this.dpop || !isDPoP(tokens.token_type)) return { authorization: `Bearer ${tokens.access_token}` };
    return this.dpop.requestHeaders(request.url, request.method, tokens.access_token, signal);
  }

  /** See {@link HttpAuthProvider.answered}: keeps a new DPoP nonce. */
  answered(url: URL, headers: Headers): void {
    this.dpop?.remember(url, headers);
  }

  /** The tokens to send to `url` now (refreshed first when expired), or undefined. */
  private async current(url: URL, signal: AbortSignal): Promise<StoredTokens | undefined> {
    const state = this.state(url);
    // A request sent while a flow runs would only be refused: let it wait for the new token.
    await state.flight.current?.wait(signal).catch(() => undefined);
    let tokens = state.tokens;
    if (tokens && isExpired(tokens, this.now())) {
      tokens = tokens.refresh_token
        ? await state.flight
            .join(signal, (shared) => refreshServer(this.grants, state, shared))
            .then(
              () => state.tokens,
              () => undefined,
            )
        : undefined;
    }
    const usable = tokens && !isExpired(tokens, this.now()) ? tokens : undefined;
    this.sent.set(signal, usable?.access_token);
    return usable;
  }

  /** See {@link HttpAuthProvider.challenge}. */
  async challenge(challenge: AuthChallenge, signal: AbortSignal): Promise<boolean> {
    if (this.dpop?.nonceChallenge(challenge, signal)) return true;
    const state = this.state(challenge.url);
    // Join the flow in progress; a failed flow rejects here with its error, for every request.
    // An abandoned flight (all its requests aborted) is not joined: this request starts its own.
    for (let flight = state.flight.current; flight; flight = state.flight.current) {
      if (await flight.wait(signal)) return true;
    }
    // Another request already got a token this one has not tried yet.
    if (
      state.tokens &&
      state.tokens.access_token !== this.sent.get(signal) &&
      !isExpired(state.tokens, this.now())
    )
      return true;
    return state.flight.join(signal, (shared) => this.resolve(state, challenge, signal, shared));
  }

  /** Forget the tokens for the server at `url` (the registration stays). */
  async signOut(url: URL): Promise<void> {
    const state = this.state(url);
    if (state.discovery) await this.store.delete(tokensKey(state.discovery.issuer, state.discovery.resource));
    state.tokens = undefined;
  }

  private state(url: URL): ServerState {
    const key = url.href;
    let state = this.servers.get(key);
    if (!state) {
      state = { url: new URL(url.href), flight: new FlightSlot() };
      this.servers.set(key, state);
    }
    return state;
  }

  /** `signal` identifies the refused request (its attempt count); `shared` is the flight's, for I/O. */
  private async resolve(
    state: ServerState,
    challenge: AuthChallenge,
    signal: AbortSignal,
    shared: AbortSignal,
  ): Promise<boolean> {
    const bearer = parseBearerChallenge(challenge.wwwAuthenticate);
    // A 403 that is not about scope is a plain refusal: new tokens would not change it.
    if (challenge.status === 403 && bearer?.error !== 'insufficient_scope') return false;
    // Discover again on every refusal: the server may have moved to another authorization server.
    const discovery = await discoverAuthorization(state.url, {
      ...(challenge.wwwAuthenticate !== undefined && { wwwAuthenticate: challenge.wwwAuthenticate }),
      ...(this.options.fetch && { fetch: this.options.fetch }),
      signal: shared,
    });
    const changed =
      state.discovery?.issuer !== discovery.issuer || state.discovery.resource !== discovery.resource;
    state.discovery = discovery;
    if (changed) {
      // Tokens and scopes are bound to one issuer and resource; look up what was stored for the new pair.
      state.tokens = await readJson<StoredTokens>(
        this.store,
        tokensKey(discovery.issuer, discovery.resource),
      );
      state.scopes = undefined;
    }
    const sent = this.sent.get(signal);
    if (challenge.status === 401 && state.tokens) {
      if (state.tokens.access_token !== sent && !isExpired(state.tokens, this.now())) return true;
      const lastRefresh = this.refreshed.get(signal);
      if (
        state.tokens.refresh_token &&
        (lastRefresh === undefined || this.now() - lastRefresh >= ATTEMPT_WINDOW_MS)
      ) {
        this.refreshed.set(signal, this.now());
        if (await refreshServer(this.grants, state, shared).catch(rethrowAbort)) return true;
      }
    }
    // A long-lived request (the standalone GET stream keeps one signal across reconnects) may need
    // a new flow now and then; only flows in quick succession are a loop.
    if (!this.attempts.take(signal)) {
      throw new AuthorizationError(
        'step-up-limit',
        `${state.url.href} still refused the request (${challenge.status}${bearer?.error ? ` ${bearer.error}` : ''}) after ${MAX_AUTHORIZATION_ATTEMPTS} authorizations`,
      );
    }
    const prior = challenge.status === 403 ? state.scopes : undefined;
    const scopes = selectScopes(discovery, bearer, prior, this.options.scope);
    await authorizeServer(this.grants, state, discovery, scopes, shared);
    return true;
  }
}

function isDPoP(tokenType: string): boolean {
  return tokenType.toLowerCase() === 'dpop';
}

/**
 * OAuth 2.1 §8.4.2: a redirect URI is https, http on a loopback host, or a private-use scheme;
 * a plain http URI elsewhere would hand the authorization code to the network.
 */
function checkRedirectUri(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`redirect URI ${value} is not an absolute URI`);
  }
  if (url.protocol === 'http:') secureUrl(url, 'redirect URI');
}
