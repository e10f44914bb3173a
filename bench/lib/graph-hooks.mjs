// Module hooks for graph-probe.mjs: report every file URL the ESM loader loads.
let port;

export function initialize(data) {
  port = data.port;
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (url.startsWith('file:')) port.postMessage(url);
  return result;
}
