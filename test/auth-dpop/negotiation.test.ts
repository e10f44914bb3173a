/**
 * Issue 27 dpop, negotiation (RFC 9449 §5.1, RFC 9728 §2): a client learns from the metadata
 * what cannot work and says so before sending the user to log in. Also the token type rule: a
 * DPoP token is refused without the option, taken with it.
 */
import { describe, expect, test } from 'vitest';
import { AuthorizationError } from 'keel-mcp/client';
import { useProcessGuard } from '../helpers/guard.js';
import {
  closeMocksAfterEach,
  mock,
  provider,
  refuse,
  rejection,
} from '../client-auth/support/provider-kit.js';

useProcessGuard();
closeMocksAfterEach();

describe('issue 27 dpop: negotiation', () => {
  test('a resource that requires DPoP-bound tokens fails a client without dpop before any authorization', async () => {
    const m = await mock({ prmExtra: { dpop_bound_access_tokens_required: true } });
    const error = await rejection(refuse(provider(), m));
    expect(error).toBeInstanceOf(AuthorizationError);
    expect((error as AuthorizationError).reason).toBe('token');
    expect(error.message).toMatch(/accepts only DPoP-bound tokens .*set the dpop option/);
    expect(m.authorizeRequests()).toHaveLength(0);
  });

  test("an authorization server that does not list the key's algorithm fails before any authorization", async () => {
    const m = await mock({ metadata: { dpop_signing_alg_values_supported: ['EdDSA'] } });
    const error = await rejection(refuse(provider({ dpop: true }), m));
    expect((error as AuthorizationError).reason).toBe('token');
    expect(error.message).toMatch(/takes DPoP proofs signed with EdDSA, not ES256/);
    expect(m.authorizeRequests()).toHaveLength(0);
  });

  test('with a listed algorithm the flow runs and the token requests carry a proof', async () => {
    const m = await mock({ metadata: { dpop_signing_alg_values_supported: ['ES256'] } });
    expect(await refuse(provider({ dpop: true }), m)).toBe(true);
    expect(m.tokenRequests().map((r) => typeof r.headers.dpop)).toEqual(['string']);
  });
});
