/**
 * The OAuth client of an MCP HTTP connection: an {@link HttpAuthProvider} that discovers the
 * authorization server when the server refuses, registers, runs the authorization code flow,
 * refreshes, and steps up on `insufficient_scope`.
 */
import type { AuthChallenge, HttpAuthProvider, TokenStore } from '../../core/auth.js';
import { authorizeWithCode } from './authorize.js';
import { discoverAuthorization, type DiscoveredAuthorization } from './discovery.js';
import { AuthorizationError } from './errors.js';
import type { FetchLike } from './http.js';
import { MAX_AUTHORIZATION_ATTEMPTS, type OAuthClientProviderOptions } from './provider-options.js';
import { forgetRegistration, obtainRegistration, type ClientRegistration } from './registration.js';
import { selectScopes } from './scope.js';
import { MemoryTokenStore, readJson, tokensKey } from './store.js';
import { isExpired, refreshTokens, type StoredTokens } from './tokens.js';
import { raceAbort } from './single-flight.js';
import { parseBearerChallenge } from './www-authenticate.js';

/** What the provider knows about one MCP server. */
interface ServerState {
  readonly url: URL;
  discovery?: DiscoveredAuthorization;
  tokens?: StoredTokens;
  /** Scopes of the last authorization request (kept on step-up). */
  scopes?: string[];
  /** The authorization or refresh in progress: concurrent refusals share it. */
  flight?: Promise<boolean>;
}

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
  private readonly attempts = new WeakMap<AbortSignal, number>();
  /** Requests (by signal) that already had their one refresh. */
  private readonly refreshed = new WeakSet<AbortSignal>();

  constructor(private readonly options: OAuthClientProviderOptions) {
    if (!options.clientMetadata.redirect_uris[0])
      throw new TypeError('clientMetadata.redirect_uris must list the redirect URI');
    this.store = options.store ?? new MemoryTokenStore();
    this.now = options.now ?? Date.now;
  }

  /** See {@link HttpAuthProvider.authorization}: the current token, refreshed first when it expired. */
  async authorization(url: URL, signal: AbortSignal): Promise<string | undefined> {
    const state = this.state(url);
    // A request sent while a flow runs would only be refused: let it wait for the new token.
    if (state.flight) await raceAbort(state.flight, signal).catch(() => undefined);
    let tokens = state.tokens;
    if (tokens && isExpired(tokens, this.now())) {
      tokens = tokens.refresh_token
        ? await this.join(state, signal, () => this.refresh(state, signal)).then(
            () => state.tokens,
            () => undefined,
          )
        : undefined;
    }
    const token = tokens && !isExpired(tokens, this.now()) ? tokens.access_token : undefined;
    this.sent.set(signal, token);
    return token === undefined ? undefined : `Bearer ${token}`;
  }

  /** See {@link HttpAuthProvider.challenge}. */
  async challenge(challenge: AuthChallenge, signal: AbortSignal): Promise<boolean> {
    const state = this.state(challenge.url);
    // Join the flow in progress; a failed flow rejects here with its error, for every request.
    while (state.flight) if (await raceAbort(state.flight, signal)) return true;
    // Another request already got a token this one has not tried yet.
    if (
      state.tokens &&
      state.tokens.access_token !== this.sent.get(signal) &&
      !isExpired(state.tokens, this.now())
    )
      return true;
    return this.join(state, signal, () => this.resolve(state, challenge, signal));
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
      state = { url: new URL(url.href) };
      this.servers.set(key, state);
    }
    return state;
  }

  /** Single flight: the first caller runs `work`, later ones wait for the same outcome. */
  private join(state: ServerState, signal: AbortSignal, work: () => Promise<boolean>): Promise<boolean> {
    if (!state.flight) {
      const flight = work().finally(() => {
        if (state.flight === flight) state.flight = undefined;
      });
      state.flight = flight;
    }
    return raceAbort(state.flight, signal);
  }

  private async resolve(state: ServerState, challenge: AuthChallenge, signal: AbortSignal): Promise<boolean> {
    const bearer = parseBearerChallenge(challenge.wwwAuthenticate);
    // A 403 that is not about scope is a plain refusal: new tokens would not change it.
    if (challenge.status === 403 && bearer?.error !== 'insufficient_scope') return false;
    // Discover again on every refusal: the server may have moved to another authorization server.
    const discovery = await discoverAuthorization(state.url, {
      ...(challenge.wwwAuthenticate !== undefined && { wwwAuthenticate: challenge.wwwAuthenticate }),
      ...(this.options.fetch && { fetch: this.options.fetch }),
      signal,
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
      if (state.tokens.refresh_token && !this.refreshed.has(signal)) {
        this.refreshed.add(signal);
        if (await this.refresh(state, signal).catch(rethrowAbort)) return true;
      }
    }
    const attempts = this.attempts.get(signal) ?? 0;
    if (attempts >= MAX_AUTHORIZATION_ATTEMPTS) {
      throw new AuthorizationError(
        'step-up-limit',
        `${state.url.href} still refused the request (${challenge.status}${bearer?.error ? ` ${bearer.error}` : ''}) after ${attempts} authorizations`,
      );
    }
    this.attempts.set(signal, attempts + 1);
    const prior = challenge.status === 403 ? state.scopes : undefined;
    const scopes = selectScopes(discovery, bearer, prior, this.options.scope);
    await this.authorize(state, discovery, scopes, signal);
    return true;
  }

  private async authorize(
    state: ServerState,
    discovery: DiscoveredAuthorization,
    scopes: string[],
    signal: AbortSignal,
  ): Promise<void> {
    const ctx = { ...(this.options.fetch && { fetch: this.options.fetch }), signal };
    const registration = await this.registration(discovery, ctx);
    const redirectUri = this.options.clientMetadata.redirect_uris[0]!;
    state.scopes = scopes;
    let tokens: StoredTokens;
    try {
      tokens = await authorizeWithCode(
        {
          as: discovery.authorizationServer,
          registration,
          resource: discovery.resource,
          now: this.now,
          redirectUri,
          redirect: this.options.redirect,
          scope: scopes.length > 0 ? scopes.join(' ') : undefined,
        },
        ctx,
      );
    } catch (error) {
      // A stored dynamic registration the server no longer accepts is dropped, so the next flow registers again.
      if (
        error instanceof AuthorizationError &&
        error.reason === 'token' &&
        /invalid_client/.test(error.message)
      ) {
        await forgetRegistration(this.store, discovery.issuer);
      }
      throw error;
    }
    await this.keep(state, discovery, tokens);
  }

  private async refresh(state: ServerState, signal: AbortSignal): Promise<boolean> {
    const discovery = state.discovery;
    const tokens = state.tokens;
    if (!discovery || !tokens?.refresh_token) return false;
    const ctx = { ...(this.options.fetch && { fetch: this.options.fetch }), signal };
    try {
      const registration = await this.registration(discovery, ctx);
      const fresh = await refreshTokens(
        { as: discovery.authorizationServer, registration, resource: discovery.resource, now: this.now },
        tokens,
        ctx,
      );
      await this.keep(state, discovery, fresh);
      return true;
    } catch (error) {
      rethrowAbort(error);
      // A refresh token the server refuses is worthless: drop the tokens, a full authorization follows.
      state.tokens = undefined;
      await this.store.delete(tokensKey(discovery.issuer, discovery.resource));
      return false;
    }
  }

  private registration(
    discovery: DiscoveredAuthorization,
    ctx: { fetch?: FetchLike; signal: AbortSignal },
  ): Promise<ClientRegistration> {
    return obtainRegistration(
      {
        issuer: discovery.issuer,
        authorizationServer: discovery.authorizationServer,
        metadata: this.options.clientMetadata,
        store: this.store,
        ...(this.options.credentials && { credentials: this.options.credentials }),
        ...(this.options.clientMetadataUrl && { clientMetadataUrl: this.options.clientMetadataUrl }),
      },
      ctx,
    );
  }

  private async keep(
    state: ServerState,
    discovery: DiscoveredAuthorization,
    tokens: StoredTokens,
  ): Promise<void> {
    state.tokens = tokens;
    await this.store.set(tokensKey(discovery.issuer, discovery.resource), JSON.stringify(tokens));
  }
}

function rethrowAbort(error: unknown): false {
  if (error instanceof AuthorizationError && error.reason === 'aborted') throw error;
  return false;
}
