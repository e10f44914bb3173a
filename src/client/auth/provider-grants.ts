/**
 * The token work of `OAuthClientProvider` for one MCP server: registration, the authorization code
 * flow, refresh, and keeping tokens in the store under their issuer and resource.
 */
import type { TokenStore } from '../../core/auth.js';
import { authorizeWithCode } from './authorize.js';
import type { DiscoveredAuthorization } from './discovery.js';
import { AuthorizationError } from './errors.js';
import type { FetchLike } from './http.js';
import type { OAuthClientProviderOptions } from './provider-options.js';
import type { ClientRegistration } from './client-auth.js';
import { forgetRegistration, obtainRegistration } from './registration.js';
import { tokensKey } from './store.js';
import { refreshTokens, type StoredTokens } from './tokens.js';
import type { FlightSlot } from './single-flight.js';
import { checkDPoPNegotiation, type DPoPSigner } from './dpop.js';

/**
 * What the provider knows about one MCP server.
 *
 * @example
 * const state: ServerState = { url: new URL('https://mcp.example.com/mcp'), flight: new FlightSlot() };
 */
export interface ServerState {
  readonly url: URL;
  discovery?: DiscoveredAuthorization | undefined;
  tokens?: StoredTokens | undefined;
  /** Scopes of the last authorization request (kept on step-up). */
  scopes?: string[] | undefined;
  /** The authorization or refresh in progress: concurrent refusals share it. */
  readonly flight: FlightSlot<boolean>;
}

/**
 * What the grants need from the provider.
 *
 * @example
 * const ctx: GrantContext = { options, store: new MemoryTokenStore(), now: Date.now };
 */
export interface GrantContext {
  readonly options: OAuthClientProviderOptions;
  readonly store: TokenStore;
  readonly now: () => number;
  /** Present with the `dpop` option: token requests carry its proofs. */
  readonly dpop?: DPoPSigner | undefined;
}

/**
 * Register if needed, run the authorization code flow with `scopes`, keep the tokens.
 *
 * @example
 * await authorizeServer(ctx, state, discovery, ['mcp:read'], signal);
 */
export async function authorizeServer(
  ctx: GrantContext,
  state: ServerState,
  discovery: DiscoveredAuthorization,
  scopes: string[],
  signal: AbortSignal,
): Promise<void> {
  const http = { ...(ctx.options.fetch && { fetch: ctx.options.fetch }), signal };
  await checkDPoPNegotiation(discovery, ctx.dpop);
  const registration = await registrationFor(ctx, discovery, http);
  const redirectUri = ctx.options.clientMetadata.redirect_uris[0]!;
  state.scopes = scopes;
  let tokens: StoredTokens;
  try {
    tokens = await authorizeWithCode(
      {
        as: discovery.authorizationServer,
        registration,
        resource: discovery.resource,
        now: ctx.now,
        redirectUri,
        redirect: ctx.options.redirect,
        scope: scopes.length > 0 ? scopes.join(' ') : undefined,
        dpop: await ctx.dpop?.tokenHandle(),
      },
      http,
    );
  } catch (error) {
    // A stored dynamic registration the server no longer accepts is dropped, so the next flow registers again.
    if (
      error instanceof AuthorizationError &&
      error.reason === 'token' &&
      /invalid_client/.test(error.message)
    ) {
      await forgetRegistration(ctx.store, discovery.issuer);
    }
    throw error;
  }
  await keepTokens(ctx, state, discovery, tokens);
}

/**
 * Refresh the server's tokens. False when there is nothing to refresh or the server refused (the
 * tokens are then dropped: a full authorization follows); an abort rejects.
 *
 * @example
 * if (!(await refreshServer(ctx, state, signal))) await authorizeServer(ctx, state, discovery, scopes, signal);
 */
export async function refreshServer(
  ctx: GrantContext,
  state: ServerState,
  signal: AbortSignal,
): Promise<boolean> {
  const discovery = state.discovery;
  const tokens = state.tokens;
  if (!discovery || !tokens?.refresh_token) return false;
  const http = { ...(ctx.options.fetch && { fetch: ctx.options.fetch }), signal };
  try {
    const registration = await registrationFor(ctx, discovery, http);
    const fresh = await refreshTokens(
      {
        as: discovery.authorizationServer,
        registration,
        resource: discovery.resource,
        now: ctx.now,
        dpop: await ctx.dpop?.tokenHandle(),
      },
      tokens,
      http,
    );
    await keepTokens(ctx, state, discovery, fresh);
    return true;
  } catch (error) {
    rethrowAbort(error);
    // A refresh token the server refuses is worthless: drop the tokens, a full authorization follows.
    state.tokens = undefined;
    await ctx.store.delete(tokensKey(discovery.issuer, discovery.resource));
    return false;
  }
}

/**
 * Rethrows an `aborted` AuthorizationError; anything else is a plain failure (false).
 *
 * @example
 * const ok = await refreshServer(ctx, state, signal).catch(rethrowAbort);
 */
export function rethrowAbort(error: unknown): false {
  if (error instanceof AuthorizationError && error.reason === 'aborted') throw error;
  return false;
}

function registrationFor(
  ctx: GrantContext,
  discovery: DiscoveredAuthorization,
  http: { fetch?: FetchLike; signal: AbortSignal },
): Promise<ClientRegistration> {
  const { options } = ctx;
  return obtainRegistration(
    {
      issuer: discovery.issuer,
      authorizationServer: discovery.authorizationServer,
      metadata: options.clientMetadata,
      store: ctx.store,
      ...(options.credentials && { credentials: options.credentials }),
      ...(options.clientMetadataUrl && { clientMetadataUrl: options.clientMetadataUrl }),
    },
    http,
  );
}

async function keepTokens(
  ctx: GrantContext,
  state: ServerState,
  discovery: DiscoveredAuthorization,
  tokens: StoredTokens,
): Promise<void> {
  state.tokens = tokens;
  await ctx.store.set(tokensKey(discovery.issuer, discovery.resource), JSON.stringify(tokens));
}
