/**
 * Standard base64 of bytes, runtime-neutral (no `Buffer`): through the binary strings `btoa` and
 * `atob` take, in chunks so a large input never overflows the argument list.
 */

/**
 * Standard base64 (with padding) of `bytes`.
 *
 * @example
 * toBase64(new Uint8Array([0xff, 0x00])); // '/wA='
 */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.byteLength; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * The bytes of standard base64 `text`, or `undefined` when `atob` refuses it.
 *
 * @example
 * fromBase64('/wA='); // Uint8Array [255, 0]
 */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
