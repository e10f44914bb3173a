import { describe, expect, it } from 'vitest';
import { parseBearerChallenge } from 'keel-mcp/client';
import { parseWwwAuthenticate } from '../../src/client/auth/index.js';

describe('WWW-Authenticate parsing', () => {
  it('reads the Bearer params an MCP client acts on', () => {
    const bearer = parseBearerChallenge(
      'Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", error_description="needs \\"write\\""',
    );
    expect(bearer).toEqual({
      error: 'insufficient_scope',
      scope: 'files:read files:write',
      resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
      errorDescription: 'needs "write"',
      params: expect.any(Object),
    });
  });

  it('finds the Bearer challenge among several, with token68 and unquoted values', () => {
    const challenges = parseWwwAuthenticate('Basic abc==, Bearer realm=mcp, error=invalid_token, Negotiate');
    expect(challenges.map((c) => c.scheme)).toEqual(['basic', 'bearer', 'negotiate']);
    expect(challenges[0]?.token68).toBe('abc==');
    expect(challenges[1]?.params).toEqual({ realm: 'mcp', error: 'invalid_token' });
  });

  it('is case-insensitive on scheme and param names', () => {
    expect(parseBearerChallenge('BEARER Scope="a b"')?.scope).toBe('a b');
  });

  it('never throws on garbage and finds no Bearer challenge in it', () => {
    for (const header of ['', '"', '=,=,', 'Bearer "unterminated', '\u0000\u0001', 'Bearer scope="x']) {
      expect(() => parseWwwAuthenticate(header)).not.toThrow();
    }
    expect(parseBearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseBearerChallenge(undefined)).toBeUndefined();
    expect(parseBearerChallenge('Bearer scope="x')?.scope).toBe('x');
  });
});
