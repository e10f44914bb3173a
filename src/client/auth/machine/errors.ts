/**
 * The one error the machine grants throw. It stands in for `AuthorizationError` of
 * src/client/auth/errors.ts (engineer `ac`), which is not on main yet: every throw goes through
 * {@link machineAuthError}, so switching to that class is a one-file change. Messages name an
 * endpoint, an OAuth error code or a claim, never a token, assertion or secret.
 */
import { LocalError } from '../../../core/errors.js';

/**
 * Why a machine grant failed.
 * - `token_request_failed`: the token endpoint answered with an OAuth error (see `oauthError`).
 * - `invalid_token_response`: the answer was not JSON, or had no usable `access_token`.
 * - `token_rejected`: the MCP server refused a token that was just issued (a second 401).
 * - `insufficient_scope`: the server still wants more scope after the allowed step-ups.
 * - `invalid_configuration`: the credentials or options given cannot work (bad key, no secret...).
 * - `network`: the endpoint could not be reached or the request timed out.
 *
 * @example
 * if (error instanceof MachineAuthError && error.reason === 'token_request_failed') console.error(error.oauthError);
 */
export type MachineAuthReason =
  | 'token_request_failed'
  | 'invalid_token_response'
  | 'token_rejected'
  | 'insufficient_scope'
  | 'invalid_configuration'
  | 'network';

/**
 * A machine-to-machine authorization failure (client credentials, cross-app access).
 *
 * @example
 * try { await client.connect(transport); } catch (e) { if (e instanceof MachineAuthError) console.error(e.reason, e.message); }
 */
export class MachineAuthError extends LocalError {
  override name = 'MachineAuthError';
  constructor(
    readonly reason: MachineAuthReason,
    message: string,
    options?: {
      cause?: unknown;
      /** The OAuth `error` code the endpoint answered with (`invalid_client`, `invalid_grant`...). */
      oauthError?: string;
      /** The endpoint's HTTP status, when it answered. */
      status?: number;
    },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.oauthError = options?.oauthError;
    this.status = options?.status;
  }
  readonly oauthError: string | undefined;
  readonly status: number | undefined;
}

/** The single place machine grants build their errors (see the file comment). */
export function machineAuthError(
  reason: MachineAuthReason,
  message: string,
  options?: { cause?: unknown; oauthError?: string; status?: number },
): MachineAuthError {
  return new MachineAuthError(reason, message, options);
}
