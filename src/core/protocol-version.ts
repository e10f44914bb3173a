/**
 * Protocol revisions Keel speaks in the legacy (handshake) era, newest first.
 *
 * @example
 * negotiateVersion('2025-06-18'); // '2025-06-18'
 * negotiateVersion('1999-01-01'); // '2025-11-25' (our latest; the client decides whether to go on)
 */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

/**
 * A protocol revision Keel implements.
 *
 * @example
 * new McpClient(info, { protocolVersion: '2025-06-18' satisfies ProtocolVersion });
 */
export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

/**
 * The newest revision Keel implements; what a client asks for by default.
 *
 * @example
 * if (client.protocolVersion !== LATEST_PROTOCOL_VERSION) console.error('server negotiated an older revision');
 */
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = '2025-11-25';

/**
 * The version a server answers `initialize` with: the requested one if supported, else its latest.
 *
 * @example
 * negotiateVersion('2025-03-26'); // '2025-03-26'
 * negotiateVersion('2024-11-05'); // '2025-11-25'
 */
export function negotiateVersion(requested: unknown): ProtocolVersion {
  return isSupportedVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/**
 * True for a revision this SDK implements.
 *
 * @example
 * isSupportedVersion(request.headers.get('mcp-protocol-version')); // false for '2024-11-05'
 */
export function isSupportedVersion(version: unknown): version is ProtocolVersion {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly unknown[]).includes(version);
}
