/**
 * Protocol revisions Keel speaks in the legacy (handshake) era, newest first.
 *
 * @example
 * negotiateVersion('2025-06-18'); // '2025-06-18'
 * negotiateVersion('1999-01-01'); // '2025-11-25' (our latest; the client decides whether to go on)
 */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

export const LATEST_PROTOCOL_VERSION: ProtocolVersion = '2025-11-25';

/** The version a server answers `initialize` with: the requested one if supported, else its latest. */
export function negotiateVersion(requested: unknown): ProtocolVersion {
  return isSupportedVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** True for a revision this SDK implements. */
export function isSupportedVersion(version: unknown): version is ProtocolVersion {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly unknown[]).includes(version);
}
