// Hand-built JSON-RPC messages the load generators send, and the checks they apply to every
// answer. Bodies are built as strings so the client side stays cheap (it shares the cores).

export const PROTOCOL_VERSION = '2025-11-25';

export function initializeRequest(id) {
  return `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":"${PROTOCOL_VERSION}","capabilities":{"sampling":{}},"clientInfo":{"name":"keel-bench","version":"1.0.0"}}}`;
}

export const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

/** `tools/call echo`; the text depends on the id so a mixed-up answer fails the check. */
export function echoRequest(id) {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"${echoText(id)}"}}}`;
}

export function echoText(id) {
  return `hello from call ${id}`;
}

/** `tools/call wait_sampling`. */
export function samplingToolRequest(id) {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"wait_sampling","arguments":{"prompt":"${samplingPrompt(id)}"}}}`;
}

export function samplingPrompt(id) {
  return `prompt ${id}`;
}

/** What the client's "model" answers to a prompt, and so what wait_sampling must return. */
export function sampledText(prompt) {
  return `sampled: ${prompt}`;
}

/**
 * The client's answer to a `sampling/createMessage` request (checked: it must carry the prompt
 * as a text message).
 */
export function samplingAnswer(message) {
  const prompt = message.params?.messages?.[0]?.content?.text;
  if (message.method !== 'sampling/createMessage' || typeof prompt !== 'string') {
    throw new Error(`unexpected server request: ${JSON.stringify(message).slice(0, 200)}`);
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"role":"assistant","content":{"type":"text","text":${JSON.stringify(sampledText(prompt))}},"model":"bench-model","stopReason":"endTurn"}}`;
}

/** Throws unless `message` is the successful tool result for request `id` with text `text`. */
export function checkToolResult(message, id, text) {
  if (message.id !== id) throw new Error(`answer for id ${JSON.stringify(message.id)}, expected ${id}`);
  const content = message.result?.content;
  if (!Array.isArray(content) || content[0]?.type !== 'text' || content[0].text !== text) {
    throw new Error(`wrong answer for id ${id}: ${JSON.stringify(message).slice(0, 300)}`);
  }
}

/** Throws unless `message` is a successful initialize result. */
export function checkInitialize(message, id) {
  if (
    message.id !== id ||
    typeof message.result?.protocolVersion !== 'string' ||
    !message.result.serverInfo
  ) {
    throw new Error(`bad initialize answer: ${JSON.stringify(message).slice(0, 300)}`);
  }
  return message.result.protocolVersion;
}
