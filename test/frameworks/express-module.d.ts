/**
 * The part of `express` (a devDependency that ships no types; no `@types/express` is installed)
 * the framework tests use.
 */
declare module 'express' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';

  type Handler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
  interface Application {
    (req: IncomingMessage, res: ServerResponse): void;
    use(...handlers: Handler[]): this;
    all(path: string, ...handlers: Handler[]): this;
    post(path: string, ...handlers: Handler[]): this;
    listen(port: number, host: string, callback: (error?: Error) => void): Server;
  }
  interface Express {
    (): Application;
    json(options?: { limit?: string | number }): Handler;
    raw(options?: { type?: string; limit?: string | number }): Handler;
  }
  const express: Express;
  export default express;
}
