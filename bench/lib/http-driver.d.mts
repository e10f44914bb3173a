// Types of http-driver.mjs, for the tests that import it (the parts they use).
export interface Posted {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  messages: Record<string, unknown>[];
}

export class HttpTarget {
  constructor(port: number, maxSockets: number);
  readonly port: number;
  close(): void;
  post(body: string, headers: Record<string, string>): Promise<Posted>;
}

/** One client session: handshake, then checked tool calls (each rejects on a wrong answer). */
export class HttpSession {
  constructor(target: HttpTarget);
  readonly sessionId: string | undefined;
  open(): Promise<HttpSession>;
  echo(): Promise<void>;
  sampling(): Promise<void>;
  close(): Promise<void>;
}
