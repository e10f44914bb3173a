export {
  Connection,
  type ConnectionOptions,
  type Logger,
  type NotificationHandler,
  type RequestHandler,
} from './connection.js';
export { RequestContext } from './request-context.js';
export {
  DEFAULT_MAX_TOTAL_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  type Progress,
  type RequestOptions,
} from './outbound.js';
