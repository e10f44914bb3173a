/**
 * The fixture client's machine-to-machine authorization scenarios (conformance 0.1.16, extension
 * scenarios): the `HttpAuthProvider` each one connects with, built from the scenario's
 * `MCP_CONFORMANCE_CONTEXT`. examples/conformance-client.ts passes it to the transport as `auth`.
 *
 * Also runnable on its own (`node dist/examples/conformance-auth-machine.js <serverUrl>` with
 * `MCP_CONFORMANCE_SCENARIO` and `MCP_CONFORMANCE_CONTEXT` set): connect, list tools, call
 * `test-tool`, close. The conformance runner's `--client-command` can point here.
 */
import { pathToFileURL } from 'node:url';
import {
  clientCredentialsAuth,
  crossAppAccessAuth,
  declareAuthExtensions,
  workloadIdentityAuth,
} from '../src/client/auth/machine/index.js';
import { McpClient } from '../src/client/index.js';
import type { HttpAuthProvider } from '../src/core/auth.js';
import { StreamableHttpClientTransport } from '../src/transports/http/client/index.js';

/**
 * A scenario's authorization: the provider, from the scenario's context.
 *
 * @example
 * new StreamableHttpClientTransport(serverUrl, { auth: scenario.auth(context) });
 */
export interface AuthScenario {
  auth(context: Readonly<Record<string, unknown>>): HttpAuthProvider;
}

/** A string field of the context, or an error naming the field (values are secrets: never shown). */
function field(context: Readonly<Record<string, unknown>>, name: string): string {
  const value = context[name];
  if (typeof value !== 'string' || value === '') {
    throw new Error(`MCP_CONFORMANCE_CONTEXT has no string "${name}"`);
  }
  return value;
}

/**
 * The issuer binding of a scenario's credentials. The suite's context names no authorization
 * server (only `client_id` and the secret or key; the IdP's issuer for cross-app access), and it
 * starts one on a random port per scenario; so the fixture binds the credentials to the first
 * issuer discovered (trust on first use) and refuses any other afterwards. A real client passes
 * the issuer its credentials were issued by.
 *
 * @example
 * clientCredentialsAuth({ issuer: firstDiscoveredIssuer(), credentials });
 */
export function firstDiscoveredIssuer(): (issuer: string) => boolean {
  let bound: string | undefined;
  return (issuer) => (bound ??= issuer) === issuer;
}

function enterpriseManaged(context: Readonly<Record<string, unknown>>): HttpAuthProvider {
  return crossAppAccessAuth({
    issuer: firstDiscoveredIssuer(),
    credentials: { clientId: field(context, 'client_id'), clientSecret: field(context, 'client_secret') },
    identityProvider: {
      issuer: field(context, 'idp_issuer'),
      clientId: field(context, 'idp_client_id'),
      tokenEndpoint: field(context, 'idp_token_endpoint'),
    },
    idToken: field(context, 'idp_id_token'),
  });
}

/**
 * The machine scenarios, by suite name.
 *
 * @example
 * const auth = machineAuthScenarios['auth/client-credentials-basic']?.auth(context);
 */
export const machineAuthScenarios: Record<string, AuthScenario> = {
  // private_key_jwt: the suite hands over a fresh ES256 key as PKCS#8 PEM.
  'auth/client-credentials-jwt': {
    auth: (context) =>
      clientCredentialsAuth({
        issuer: firstDiscoveredIssuer(),
        credentials: {
          clientId: field(context, 'client_id'),
          privateKey: field(context, 'private_key_pem'),
          algorithm: field(context, 'signing_algorithm'),
        },
      }),
  },
  'auth/client-credentials-basic': {
    auth: (context) =>
      clientCredentialsAuth({
        issuer: firstDiscoveredIssuer(),
        credentials: { clientId: field(context, 'client_id'), clientSecret: field(context, 'client_secret') },
      }),
  },
  // SEP-990 (0.1.x name): the suite plays the IdP too, and hands over the user's ID token from "SSO".
  'auth/cross-app-access-complete-flow': { auth: (context) => enterpriseManaged(context) },
  // The same flow under its 0.2.0 name.
  'auth/enterprise-managed-authorization': { auth: (context) => enterpriseManaged(context) },
  // SEP-1933: the suite hands over the workload's platform JWT (aud = the authorization server).
  'auth/wif-jwt-bearer': {
    auth: (context) =>
      workloadIdentityAuth({
        issuer: firstDiscoveredIssuer(),
        clientId: field(context, 'client_id'),
        platformToken: field(context, 'valid_jwt'),
      }),
  },
};

/**
 * The provider for a machine scenario, undefined for any other (same shape as `conformanceAuth` of
 * examples/conformance-auth.ts, so the fixture client can try one, then the other).
 *
 * @example
 * const auth = machineConformanceAuth(scenario, context) ?? conformanceAuth(scenario, context);
 */
export function machineConformanceAuth(
  scenario: string,
  context: Readonly<Record<string, unknown>>,
): HttpAuthProvider | undefined {
  return Object.hasOwn(machineAuthScenarios, scenario)
    ? machineAuthScenarios[scenario]!.auth(context)
    : undefined;
}

const CALL_TIMEOUT_MS = 20_000;

function log(message: string): void {
  process.stderr.write(`[conformance-auth-machine] ${message}\n`);
}

function readContext(): Record<string, unknown> {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!raw) return {};
  const parsed: unknown = JSON.parse(raw);
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
}

async function main(): Promise<number> {
  const name = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const auth = machineConformanceAuth(name, readContext());
  const serverUrl = process.argv.at(-1);
  if (!auth || !serverUrl || process.argv.length < 3) {
    log(`usage: MCP_CONFORMANCE_SCENARIO=<${Object.keys(machineAuthScenarios).join('|')}> <server-url>`);
    return 2;
  }
  const client = new McpClient({ name: 'keel-conformance-client', version: '0.1.0' });
  declareAuthExtensions(client, auth);
  try {
    await client.connect(new StreamableHttpClientTransport(serverUrl, { auth }), {
      timeoutMs: CALL_TIMEOUT_MS,
    });
    const tools = await client.listAllTools({ timeoutMs: CALL_TIMEOUT_MS });
    log(`tools ${JSON.stringify(tools.map((tool) => tool.name))}`);
    if (tools.some((tool) => tool.name === 'test-tool')) {
      await client.callTool('test-tool', {}, { timeoutMs: CALL_TIMEOUT_MS });
    }
    return 0;
  } finally {
    await client.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      log(`failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      process.exit(1);
    },
  );
}
