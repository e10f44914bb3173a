/**
 * What a machine grant needs to know about the MCP server it authorizes for, as discovery found
 * it: the authorization server (its RFC 8414 metadata), the RFC 8707 `resource` value, and the
 * scopes the server's protected resource metadata lists.
 */
import type { AuthorizationServer } from 'oauth4webapi';

/**
 * An MCP server as an OAuth protected resource.
 *
 * @example
 * const target: ProtectedResource = { resource: 'https://mcp.example.com/mcp', authorizationServer: { issuer: 'https://as.example.com', token_endpoint: 'https://as.example.com/token' } };
 */
export interface ProtectedResource {
  /** The RFC 8707 resource indicator: the metadata's `resource`, else the MCP endpoint URL. */
  readonly resource: string;
  /** The authorization server's metadata (`issuer` and `token_endpoint` at least). */
  readonly authorizationServer: AuthorizationServer;
  /** `scopes_supported` of the protected resource metadata. */
  readonly scopesSupported?: readonly string[];
}
