export { toNodeListener, type FetchHandler, type NodeListenerOptions } from './node-listener.js';
export { serveHttp, SERVE_HTTP_DEFAULTS, type HttpServing, type ServeHttpOptions } from './serve-http.js';
export { DEFAULT_DISCARD_LIMITS, type DiscardLimits } from './end-after-body.js';
export { browserLogin, type BrowserLoginOptions } from './oauth/browser-login.js';
export { FileTokenStore } from './oauth/file-token-store.js';
export { platformTokenFile } from './oauth/platform-token-file.js';
export {
  loopbackRedirect,
  type LoopbackRedirect,
  type LoopbackRedirectOptions,
} from './oauth/loopback-redirect.js';
export { openBrowser } from './oauth/open-browser.js';
export { skillsFromDirectory } from './skills-directory.js';
