export { toNodeListener, type FetchHandler, type NodeListenerOptions } from './node-listener.js';
export { serveHttp, type HttpServing, type ServeHttpOptions } from './serve-http.js';
