/**
 * Lua scripts of the Redis session store: each check-and-write runs atomically on the server.
 * KEYS[1] = the session hash. The per-client index (a sorted set of session ids scored by expiry
 * time) is named from ARGV, because `touch` and `delete` only learn the client key from the hash.
 * Scripts that touch undeclared keys work on a single Redis (and replicas), not on Redis Cluster:
 * see docs/scale-out.md ("Open questions").
 */

/** Server time in ms: one clock for every process. */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** Keep the index alive at least as long as its newest member. */
const KEEP_INDEX = `local function keepIndex(index, ttl)
  if redis.call('PTTL', index) < ttl then redis.call('PEXPIRE', index, ttl) end
end`;

/** ARGV: id, ttlMs, clientKey ('' = none), hasClient, maxPerClient ('' = none), data, hasData, indexPrefix. */
export const CREATE_SESSION = `
${NOW}
${KEEP_INDEX}
local session = KEYS[1]
if redis.call('EXISTS', session) == 1 then return 'exists' end
local id, ttl, clientKey, hasClient, max = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4] == '1', ARGV[5]
local index = ARGV[8] .. clientKey .. '}'
if hasClient then
  redis.call('ZREMRANGEBYSCORE', index, '-inf', now)
  if max ~= '' and redis.call('ZCARD', index) >= tonumber(max) then return 'client-limit' end
end
redis.call('HSET', session, 'id', id, 'createdAt', now, 'lastSeenAt', now)
if hasClient then redis.call('HSET', session, 'clientKey', clientKey) end
if ARGV[7] == '1' then redis.call('HSET', session, 'data', ARGV[6]) end
redis.call('PEXPIRE', session, ttl)
if hasClient then
  redis.call('ZADD', index, now + ttl, id)
  keepIndex(index, ttl)
end
return 'created'
`;

/** ARGV: ttlMs, indexPrefix. Returns 1, or 0 when the session is gone (never recreated). */
export const TOUCH_SESSION = `
${NOW}
${KEEP_INDEX}
local session, ttl = KEYS[1], tonumber(ARGV[1])
if redis.call('EXISTS', session) == 0 then return 0 end
redis.call('HSET', session, 'lastSeenAt', now)
redis.call('PEXPIRE', session, ttl)
local clientKey = redis.call('HGET', session, 'clientKey')
if clientKey then
  local index = ARGV[2] .. clientKey .. '}'
  redis.call('ZADD', index, now + ttl, redis.call('HGET', session, 'id'))
  keepIndex(index, ttl)
end
return 1
`;

/** ARGV: indexPrefix. Returns 1 for the caller that removed a live session, else 0. */
export const DELETE_SESSION = `
local session = KEYS[1]
local fields = redis.call('HMGET', session, 'id', 'clientKey')
if redis.call('DEL', session) == 0 then return 0 end
if fields[2] then redis.call('ZREM', ARGV[1] .. fields[2] .. '}', fields[1]) end
return 1
`;

/** ARGV: expected ('' with hasExpected '0' = no data), hasExpected, data. 1 when swapped, else 0. */
export const SWAP_SESSION_DATA = `
local session = KEYS[1]
if redis.call('EXISTS', session) == 0 then return 0 end
local current = redis.call('HGET', session, 'data')
if ARGV[2] == '1' then
  if current ~= ARGV[1] then return 0 end
elseif current then return 0 end
redis.call('HSET', session, 'data', ARGV[3])
return 1
`;
