/**
 * What a requestState is bound to: the method, the tool or prompt name or resource URI, a digest
 * of the salient params, and the principal when there is one. A state presented on another
 * request, with other arguments, or by another principal is refused (`binding`).
 */
import type { JsonObject } from '../../core/jsonrpc.js';
import { RequestStateError } from './mrtr-errors.js';
import { canonicalJson, sha256 } from './state-encoding.js';
import { STATE_DOMAIN } from './state-keys.js';

/**
 * What a state is bound to. Built by {@link bindRequest}.
 *
 * @example
 * const binding = await bindRequest('tools/call', { name: 'greet', arguments: { who: 'Ada' } }, 'user-42');
 */
export interface RequestBinding {
  readonly method: string;
  /** Tool or prompt name, or resource URI (for messages; the digest covers it too). */
  readonly target: string | undefined;
  /** SHA-256 of the canonical JSON of the params without `_meta`, `inputResponses`, `requestState`. */
  readonly paramsDigest: string;
  /** SHA-256 of the principal (the principal itself is not written into the state). */
  readonly principalDigest: string | undefined;
}

/** @internal The binding fields as a signed payload carries them. */
export interface BoundFields {
  m: string;
  t?: string | undefined;
  d: string;
  p?: string | undefined;
}

/**
 * Bind a state to a request: the method, the name or URI, a digest of the salient params, and the
 * principal (e.g. the OAuth subject) when there is one.
 *
 * @example
 * const binding = await bindRequest('resources/read', { uri: 'file:///notes.txt' }, undefined);
 */
export async function bindRequest(
  method: string,
  params: JsonObject,
  principal: string | undefined,
): Promise<RequestBinding> {
  const salient: JsonObject = { ...params };
  delete salient._meta;
  delete salient.inputResponses;
  delete salient.requestState;
  const target =
    typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  return {
    method,
    target,
    paramsDigest: await sha256(canonicalJson(salient)),
    principalDigest:
      principal === undefined ? undefined : await sha256(`${STATE_DOMAIN}.principal.${principal}`),
  };
}

function describe(method: string, target: string | undefined): string {
  return target === undefined ? method : `${method} "${target}"`;
}

/**
 * @internal Throw `binding` unless the state's fields name this very request and principal.
 *
 * @example
 * checkBinding(payload, await bindRequest(method, params, principal));
 */
export function checkBinding(payload: BoundFields, binding: RequestBinding): void {
  const issuedFor = describe(payload.m, payload.t);
  const presentedOn = describe(binding.method, binding.target);
  if (payload.m !== binding.method || payload.t !== binding.target) {
    throw new RequestStateError('binding', `requestState was issued for ${issuedFor}, not ${presentedOn}`);
  }
  if (payload.d !== binding.paramsDigest) {
    throw new RequestStateError(
      'binding',
      `requestState was issued for ${issuedFor} with other arguments; a retry must repeat the original request's params`,
    );
  }
  if (payload.p !== binding.principalDigest) {
    throw new RequestStateError('binding', `requestState was issued to another principal`);
  }
}
