/**
 * SHA-256 (FIPS 180-4) in plain JavaScript, for the small, public inputs of a requestState binding
 * (a request's canonical params). `crypto.subtle.digest` is asynchronous: on Node each call is a
 * thread-pool job whose hand-offs cost ~24 µs of CPU, two per `input_required` round trip, where
 * hashing a few hundred bytes here takes about a microsecond. Not for secrets: nothing here is
 * constant-time (the HMAC that signs states stays in WebCrypto).
 */

/** First 32 bits of the fractional parts of the square roots of the first 8 primes. */
const INITIAL = new Uint32Array(8);
/** First 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const ROUND = new Uint32Array(64);

function firstPrimes(count: number): number[] {
  const primes: number[] = [];
  for (let n = 2; primes.length < count; n++) {
    if (primes.every((p) => n % p !== 0)) primes.push(n);
  }
  return primes;
}

// Derived rather than typed out: a typo in a constant could not hide (the tests compare every
// digest with WebCrypto's). Doubles carry ~50 fractional bits here, more than the 32 kept.
const fraction32 = (root: number): number => ((root - Math.floor(root)) * 2 ** 32) >>> 0;
firstPrimes(64).forEach((p, i) => {
  if (i < 8) INITIAL[i] = fraction32(Math.sqrt(p));
  ROUND[i] = fraction32(Math.cbrt(p));
});

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/**
 * The SHA-256 digest of `data`.
 *
 * @example
 * sha256Bytes(new TextEncoder().encode('abc')); // ba 78 16 bf 8f 01 cf ea ...
 */
export function sha256Bytes(data: Uint8Array): Uint8Array {
  const length = data.length;
  // The message, a 1 bit, zeros, and the bit length as 64 bits: a whole number of 64-byte blocks.
  const padded = new Uint8Array(Math.ceil((length + 9) / 64) * 64);
  padded.set(data);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(length / 2 ** 29));
  view.setUint32(padded.length - 4, (length * 8) >>> 0);

  const hash = Uint32Array.from(INITIAL);
  const w = new Uint32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(offset + 4 * t);
    for (let t = 16; t < 64; t++) {
      const x = w[t - 15]!;
      const y = w[t - 2]!;
      const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3);
      const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
      w[t] = w[t - 16]! + s0 + w[t - 7]! + s1; // a Uint32Array keeps it mod 2^32
    }
    let a = hash[0]!;
    let b = hash[1]!;
    let c = hash[2]!;
    let d = hash[3]!;
    let e = hash[4]!;
    let f = hash[5]!;
    let g = hash[6]!;
    let h = hash[7]!;
    for (let t = 0; t < 64; t++) {
      const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const choice = (e & f) ^ (~e & g);
      const t1 = (h + s1 + choice + ROUND[t]! + w[t]!) | 0;
      const s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const majority = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (s0 + majority) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    // Stored mod 2^32 by the Uint32Array.
    hash[0] = hash[0]! + a;
    hash[1] = hash[1]! + b;
    hash[2] = hash[2]! + c;
    hash[3] = hash[3]! + d;
    hash[4] = hash[4]! + e;
    hash[5] = hash[5]! + f;
    hash[6] = hash[6]! + g;
    hash[7] = hash[7]! + h;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(4 * i, hash[i]!);
  return out;
}
