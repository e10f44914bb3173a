/**
 * Trace context in a request's `params._meta` (SEP-414; conventions "Context propagation"): the
 * configured propagators read and write the plain keys `traceparent`, `tracestate` and `baggage`
 * there, unprefixed, beside whatever else `_meta` holds (the 2026-07-28 protocol keys included).
 */
import type { TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import type { JsonObject } from '../core/jsonrpc.js';

/** Reads string entries of `_meta`; anything else (a nested object, a number) is not a header. */
export const META_GETTER: TextMapGetter<JsonObject | undefined> = {
  keys: (meta) => (meta === undefined ? [] : Object.keys(meta)),
  get(meta, key) {
    const value = meta?.[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** Writes into a fresh object that becomes the outbound `_meta` (never the caller's own). */
export const META_SETTER: TextMapSetter<Record<string, string>> = {
  set(carrier, key, value) {
    carrier[key] = value;
  },
};
