// Defined in core (the one error hierarchy), so the engine can hand it to callers unwrapped.
export { AuthorizationError, type AuthorizationFailure } from '../../core/errors.js';
