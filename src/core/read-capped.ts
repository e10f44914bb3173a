/**
 * Reading a response body whose size the peer chooses, without letting the peer choose how much
 * memory it takes.
 */

/**
 * The whole body of `response`, or undefined as soon as more than `maxBytes` arrived (the rest is
 * never read: `beforeCancel` runs, then the reader is cancelled). A response without a body reads
 * as empty.
 *
 * @example
 * const body = await readCapped(response, 64 * 1024);
 * if (body === undefined) throw new Error('too large');
 */
export async function readCapped(
  response: Response,
  maxBytes: number,
  beforeCancel?: () => void,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      beforeCancel?.();
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
