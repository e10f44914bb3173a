/**
 * docs/client.md and docs/errors.md snippets: the client. See server-tools.ts for how the regions
 * are used.
 */
import {
  ConnectionClosedError,
  McpError,
  NotConnectedError,
  RequestAbortedError,
  RequestTimeoutError,
  type Transport,
  type ElicitRequestedSchema,
  type SamplingMessage,
} from 'keel-mcp/core';
import {
  McpClient,
  ProtocolViolationError,
  ToolOutputValidationError,
  type SamplingHandler,
} from 'keel-mcp/client';

/** Stand-ins for the user code the snippets call. */
export const llm = async (messages: SamplingMessage[], _maxTokens: number, _signal: AbortSignal) =>
  `You said ${messages.length} thing(s)`;
/** Answers a form the way a user who takes the first option would. */
export const showForm = async (_message: string, schema: ElicitRequestedSchema) =>
  Object.fromEntries(
    Object.entries(schema.properties).map(([key, property]) => {
      if ('enum' in property) return [key, property.enum[0] ?? ''];
      return [key, property.type === 'boolean' ? false : property.type === 'string' ? 'text' : 0];
    }),
  );
export const askConsent = async (_question: string): Promise<boolean> => true;
export const refreshTools = async (): Promise<void> => {};

export async function connectClient(transport: Transport): Promise<McpClient> {
  // #region client-connect
  const client = await McpClient.connect(transport, {
    info: { name: 'my-agent', version: '1.0.0' },
    timeoutMs: 10_000, // bound the handshake
    // Handlers for server→client requests; each one declares its capability in initialize.
    sampling: async ({ messages, maxTokens }, ctx) => ({
      role: 'assistant',
      content: { type: 'text', text: await llm(messages, maxTokens, ctx.signal) },
      model: 'my-llm',
    }),
    elicitation: {
      form: async ({ message, requestedSchema }) => ({
        action: 'accept',
        content: await showForm(message, requestedSchema),
      }),
      url: async ({ url }) =>
        (await askConsent(`Open ${url}?`)) ? { action: 'accept' } : { action: 'decline' },
      applyDefaults: true, // fill fields the user left out with the schema's defaults
    },
    roots: [{ uri: 'file:///home/me/project', name: 'project' }],
    connection: { requestDefaults: { timeoutMs: 30_000 } }, // default per-request timeout
  });
  // #endregion
  return client;
}

export async function clientMethods(client: McpClient): Promise<unknown[]> {
  // #region client-methods
  console.log(client.serverInfo, client.serverCapabilities, client.instructions, client.protocolVersion);
  await client.ping();

  const tools = await client.listAllTools(); // every page
  for await (const resource of client.resources()) console.log(resource.uri); // lazily, page by page
  const firstPage = await client.listPrompts(); // one page; pass { cursor: firstPage.nextCursor } for the next
  const templates = await client.listAllResourceTemplates({ maxPages: 10 });

  const result = await client.callTool('search', { query: 'cancel' });
  const { contents } = await client.readResource('file:///project/README.md');
  await client.subscribeResource('file:///project/README.md'); // legacy era; 2026-07-28: client.listen
  await client.unsubscribeResource('file:///project/README.md');
  const prompt = await client.getPrompt('code-review', { language: 'go', code: 'x := 1' });
  const { completion } = await client.complete({
    ref: { type: 'ref/prompt', name: 'code-review' },
    argument: { name: 'language', value: 'py' },
  });
  await client.setLoggingLevel('warning'); // then on('log'); 2026-07-28: sent with each request
  const raw = await client.request('tools/list', {}); // any method, untyped
  // #endregion
  return [tools, firstPage, templates, result, contents, prompt, completion, raw];
}

/** 2026-07-28 only: change notifications come through a subscription. */
export async function listenForChanges(client: McpClient, reload: (uri: string) => void): Promise<string> {
  // #region client-listen
  const subscription = client.listen({
    toolsListChanged: true,
    resourceSubscriptions: ['file:///project/README.md'],
  });
  console.log('server honours', await subscription.acknowledged);
  for await (const { method, params } of subscription) {
    // The same notifications also reach client.on('toolsChanged' | 'resourceUpdated', ...).
    if (method === 'notifications/resources/updated') reload(String(params.uri));
    if (method === 'notifications/tools/list_changed') break; // break (or close()) cancels it
  }
  const end = await subscription.ended; // 'graceful' (server ended it), 'closed' (we did) or 'lost'
  // #endregion
  return end.reason;
}

export async function callOptions(client: McpClient): Promise<unknown> {
  // #region client-call-options
  const controller = new AbortController();
  const result = await client.callTool(
    'import-photos',
    { folder: '/photos' },
    {
      signal: controller.signal, // abort → one notifications/cancelled, rejects with RequestAbortedError
      timeoutMs: 30_000, // no response (or progress) for 30 s → RequestTimeoutError, and a cancel
      maxTotalTimeoutMs: 300_000, // progress resets the timeout, but never past this
      onprogress: ({ progress, total, message }) =>
        console.log(`${progress}/${total ?? '?'} ${message ?? ''}`),
    },
  );
  if (result.isError) console.error('the tool failed:', result.content); // a tool error is a result
  // #endregion
  return result;
}

export function events(client: McpClient): () => void {
  // #region client-events
  const off = client.on('toolsChanged', () => void refreshTools()); // cached output schemas are dropped
  client.on('resourcesChanged', () => console.log('resource list changed'));
  client.on('promptsChanged', () => console.log('prompt list changed'));
  client.on('resourceUpdated', ({ uri }) => void client.readResource(uri));
  client.on('log', ({ level, logger, data }) => console.error(`[${level}] ${logger ?? 'server'}`, data));
  client.on('elicitationComplete', ({ elicitationId }) => console.log(`${elicitationId} finished`));
  client.on('close', () => console.error('connection ended')); // once, whatever the cause
  // #endregion
  return off;
}

export async function handlersLater(transport: Transport, sample: SamplingHandler): Promise<McpClient> {
  // #region client-handlers-later
  const client = new McpClient({ name: 'my-agent', version: '1.0.0' });
  client.onSampling(sample, { tools: true }); // tools: the server may pass tools/toolChoice
  client.onElicitation({ form: async () => ({ action: 'decline' }) });
  await client.setRoots([{ uri: 'file:///home/me/project', name: 'project' }]);
  await client.connect(transport, { timeoutMs: 10_000 }); // capabilities are fixed here
  await client.setRoots([{ uri: 'file:///home/me/other', name: 'other' }]); // → roots/list_changed
  // #endregion
  return client;
}

export async function outputValidation(client: McpClient): Promise<void> {
  // #region client-output-validation
  await client.listTools(); // remembers each tool's outputSchema
  try {
    const { structuredContent } = await client.callTool<{ hits: { url: string }[] }>('search', {
      query: 'streams',
    });
    console.log(structuredContent?.hits.map((hit) => hit.url));
  } catch (error) {
    // structuredContent missing or not matching the outputSchema (checked with @cfworker/json-schema
    // by default; `outputValidator` swaps the engine, `validateToolOutput: false` turns it off)
    if (error instanceof ToolOutputValidationError) console.error(error.toolName, error.issues);
    else throw error;
  }
  // #endregion
}

export async function errorKinds(client: McpClient): Promise<string> {
  // #region errors
  try {
    await client.callTool('search', { query: 'x' }, { timeoutMs: 5_000 });
  } catch (error) {
    if (error instanceof McpError) {
      // The server answered with a JSON-RPC error: error.code, error.message, error.data.
    } else if (error instanceof RequestTimeoutError) {
      // No answer within error.timeoutMs; the request was cancelled on the wire.
    } else if (error instanceof RequestAbortedError) {
      // Your signal fired; error.cause is its reason.
    } else if (error instanceof ConnectionClosedError) {
      // The connection ended first; error.cause is the transport's last error (exit code, EPIPE, ...).
    } else if (error instanceof NotConnectedError) {
      // connect() was never called, or failed.
    } else if (error instanceof ProtocolViolationError) {
      // The answer broke the protocol (ToolOutputValidationError is one of these).
    }
  }
  // #endregion
  return 'handled';
}
