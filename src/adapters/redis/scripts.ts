/**
 * The Lua scripts of the Redis event store. Each runs atomically on the server, so a stream's
 * append + trim (and a replay's bounds check + read) can never interleave with another process's.
 *
 * Keys: KEYS[1] = the stream (a Redis Stream), KEYS[2] = its meta hash (`live`, `bytes`). Both
 * carry the same `{streamId}` hash tag, so they share a cluster slot.
 */

/** Reply text of the append script when the stream was live and has been lost (evicted/expired). */
export const EVICTED_REPLY = 'KEEL_EVICTED';

/**
 * Append one event; ARGV: data, priming ('1'|'0'), maxEvents, maxBytes, maxAgeMs, ttlMs,
 * overhead. Returns the Redis entry id. The entry id's time part is the server's clock, so age is
 * measured on one clock for every process.
 */
export const APPEND_SCRIPT = `
local stream, meta = KEYS[1], KEYS[2]
if redis.call('EXISTS', stream) == 0 and redis.call('HGET', meta, 'live') == '1' then
  return redis.error_reply('${EVICTED_REPLY}')
end
local data, priming = ARGV[1], ARGV[2]
local maxEvents, maxBytes = tonumber(ARGV[3]), tonumber(ARGV[4])
local maxAge, ttl, overhead = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
if redis.call('EXISTS', stream) == 0 then redis.call('DEL', meta) end
local id
if priming == '1' then
  id = redis.call('XADD', stream, '*', 'p', '')
else
  id = redis.call('XADD', stream, '*', 'm', data)
end
redis.call('HSET', meta, 'live', '1')
local bytes = redis.call('HINCRBY', meta, 'bytes', overhead + #data)
local len = redis.call('XLEN', stream)
local cutoff = tonumber(string.match(id, '^(%d+)-')) - maxAge
-- Oldest events go first (by count, age, then bytes); the newest one always stays.
while len > 1 do
  local first = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)[1]
  local firstMs = tonumber(string.match(first[1], '^(%d+)-'))
  if len <= maxEvents and firstMs >= cutoff and bytes <= maxBytes then break end
  redis.call('XDEL', stream, first[1])
  len = len - 1
  bytes = redis.call('HINCRBY', meta, 'bytes', -(overhead + #first[2][2]))
end
redis.call('PEXPIRE', stream, ttl)
redis.call('PEXPIRE', meta, ttl * 2)
return id
`;

/**
 * Replay after an entry id; ARGV: the id (`<ms>-<seq>`). Returns false when the stream is gone
 * or the id is newer than its last entry (never issued), else the entries after it.
 */
export const REPLAY_SCRIPT = `
local stream = KEYS[1]
local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)[1]
if not last then return false end
local ams, aseq = string.match(ARGV[1], '^(%d+)-(%d+)$')
local lms, lseq = string.match(last[1], '^(%d+)-(%d+)$')
ams, aseq, lms, lseq = tonumber(ams), tonumber(aseq), tonumber(lms), tonumber(lseq)
if ams > lms or (ams == lms and aseq > lseq) then return false end
return redis.call('XRANGE', stream, '(' .. ARGV[1], '+')
`;

/** Finish a stream: it may now expire maxAgeMs after its last event; ARGV: maxAgeMs. */
export const FINISH_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'live', '0')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
`;
