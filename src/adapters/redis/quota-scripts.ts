/**
 * Lua scripts of the Redis quota store: each check-and-take runs atomically on the server, so two
 * processes never both take the last call of a window or the last slot. Time is the Redis
 * server's (`TIME`, in ms) read inside each script: one clock for every process, the same one that
 * expires the keys. Every key a script writes gets an expiry in that script: a rate key lives until
 * its bucket is full again, a slot set until its last lease ends.
 *
 * Keys of one principal share the hash tag `{<principal>}`.
 */

const CLOCK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * KEYS[1] = the principal's slot set (sorted set: holder → lease end); KEYS[2..] = one key per
 * rate (its GCRA time: when the bucket is full again).
 * ARGV[1] = '1' to take a slot, '0' not; ARGV[2] = holder, ARGV[3] = max slots, ARGV[4] = leaseMs;
 * then per rate: name, calls, windowMs.
 * Returns {'ok'}, {'rate', name, retryAfterMs} or {'concurrent'}; nothing is written on a refusal.
 */
export const ADMIT_QUOTA = `${CLOCK}
local worst, refusedBy = 0, nil
local after = {}
for i = 2, #KEYS do
  local base = 4 + (i - 2) * 3
  local name, calls, window = ARGV[base + 1], tonumber(ARGV[base + 2]), tonumber(ARGV[base + 3])
  local full = tonumber(redis.call('GET', KEYS[i]) or now)
  if full < now then full = now end
  after[i] = full + window / calls
  local over = after[i] - now - window
  if over > 0 and over > worst then worst = over; refusedBy = name end
end
if refusedBy then return {'rate', refusedBy, tostring(math.ceil(worst))} end
if ARGV[1] == '1' then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return {'concurrent'} end
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[2])
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', KEYS[1], math.ceil(tonumber(last[2])))
end
for i = 2, #KEYS do
  redis.call('SET', KEYS[i], string.format('%.3f', after[i]), 'PX', math.max(1, math.ceil(after[i] - now)))
end
return {'ok'}
`;

/**
 * KEYS[1] = the slot set; ARGV[1] = leaseMs, ARGV[2..] = holders. Extends the leases still held
 * (never re-adds one that lapsed or was released) and the set's expiry with them.
 */
export const RENEW_QUOTA = `${CLOCK}
local ends = now + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', ends, ARGV[i]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[1], math.ceil(tonumber(last[2]))) end
return 1
`;

/** KEYS[1] = the slot set; ARGV[1] = holder. The set's expiry stays that of its longest lease. */
export const RELEASE_QUOTA = `
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`;
