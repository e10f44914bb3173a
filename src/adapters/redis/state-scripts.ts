/**
 * Lua scripts of the Redis state store (`ctx.state`, issue 28). KEYS[1] = the scope's hash; the
 * field `\0size` holds the UTF-8 bytes of its keys and values (user keys never start with `\0`).
 * Each write checks the scope's bounds and writes in one step, and renews the scope's expiry.
 */

/** The scope's entry count without the size field. */
const COUNT = `local function count(h)
  local n = redis.call('HLEN', h)
  if redis.call('HEXISTS', h, '\\0size') == 1 then n = n - 1 end
  return n
end`;

/** ARGV: key, value, ttlMs, maxKeys, maxBytes. 1, or -1 (too many keys), -2 (too many bytes). */
export const SET_STATE = `
${COUNT}
local h, key, value = KEYS[1], ARGV[1], ARGV[2]
local old = redis.call('HGET', h, key)
if not old and count(h) >= tonumber(ARGV[4]) then return -1 end
local size = tonumber(redis.call('HGET', h, '\\0size') or '0')
local delta
if old then delta = #value - #old else delta = #key + #value end
if size + delta > tonumber(ARGV[5]) then return -2 end
redis.call('HSET', h, key, value, '\\0size', size + delta)
redis.call('PEXPIRE', h, tonumber(ARGV[3]))
return 1
`;

/**
 * ARGV: key, by, ttlMs, maxKeys, maxBytes. {1, sum}, or {-1} / {-2} (bounds), {-3} (not an
 * integer), {-4} (the sum is past 2^53).
 */
export const INCREMENT_STATE = `
${COUNT}
local h, key, by = KEYS[1], ARGV[1], tonumber(ARGV[2])
local old = redis.call('HGET', h, key)
local current = 0
if old then
  if not string.match(old, '^%-?%d+$') then return {-3} end
  current = tonumber(old)
elseif count(h) >= tonumber(ARGV[4]) then return {-1} end
local sum = current + by
if math.abs(sum) > 9007199254740991 then return {-4} end
local text = string.format('%d', sum)
local size = tonumber(redis.call('HGET', h, '\\0size') or '0')
local delta
if old then delta = #text - #old else delta = #key + #text end
if size + delta > tonumber(ARGV[5]) then return {-2} end
redis.call('HSET', h, key, text, '\\0size', size + delta)
redis.call('PEXPIRE', h, tonumber(ARGV[3]))
return {1, text}
`;

/** ARGV: key. 1 when it was there. */
export const DELETE_STATE = `
local h, key = KEYS[1], ARGV[1]
local old = redis.call('HGET', h, key)
if not old then return 0 end
redis.call('HDEL', h, key)
local size = tonumber(redis.call('HGET', h, '\\0size') or '0') - #key - #old
if redis.call('HLEN', h) <= 1 then redis.call('DEL', h) else redis.call('HSET', h, '\\0size', size) end
return 1
`;
