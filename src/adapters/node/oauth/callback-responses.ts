/**
 * What the loopback listener answers: plain-text refusals, and the page the browser shows once the
 * callback arrived. Neither echoes anything from the request.
 */
import type { ServerResponse } from 'node:http';

/** A short plain-text answer (a refusal), never cached. */
export function plain(res: ServerResponse, status: number, text: string): void {
  res
    .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    .end(text);
}

/** The page the browser shows. It echoes nothing from the request, and loads nothing. */
export function page(res: ServerResponse, title: string, failed: boolean): void {
  const detail = failed
    ? 'The authorization server refused the request. Return to the application for details.'
    : 'You can close this tab and return to the application.';
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${detail}</p></body></html>`;
  res
    .writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // The callback URL carries the authorization code: no referrer, no subresource, no framing.
      'referrer-policy': 'no-referrer',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
    })
    .end(body);
}
