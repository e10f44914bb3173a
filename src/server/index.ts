export {
  Server,
  methodNotFound,
  type Connectable,
  type Implementation,
  type ServerOptions,
  type ServerRequestHandler,
  type ServerNotificationHandler,
} from './server.js';
export { ServerSession } from './server-session.js';
