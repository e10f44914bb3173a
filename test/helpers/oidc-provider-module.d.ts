/**
 * The part of `oidc-provider` (a devDependency that ships no types) the test harness uses.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    readonly issuer: string;
    /** Koa's Node request listener for the provider. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    /** Koa's event emitter: 'server_error' and friends. */
    on(event: string, listener: (...args: unknown[]) => void): this;
    emit(event: string, ...args: unknown[]): boolean;
  }

  export const errors: {
    InvalidTarget: new (description?: string) => Error;
  };

  export default Provider;
}
