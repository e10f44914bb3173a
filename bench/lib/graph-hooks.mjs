// Module hooks for graph-probe.mjs: report every file URL the ESM loader loads (and, with
// `builtins: true`, every node: builtin imported as an ES module).
let port;

let builtins = false;

export function initialize(data) {
  port = data.port;
  builtins = data.builtins === true;
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (url.startsWith('file:') || (builtins && url.startsWith('node:'))) port.postMessage(url);
  return result;
}
