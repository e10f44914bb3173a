/**
 * Lua scripts of the Redis task store: each check-and-write runs atomically on the server, so a
 * terminal record never changes and two racing updates cannot both win. KEYS[1] = the task hash.
 * Field values: plain for scalars, JSON for `result`, `error`, `ir:<key>` (an open input request)
 * and `rs:<key>` (an answer); Lua never decodes JSON (cjson would round numbers).
 * Every script ends by publishing the id on the store's channel when it changed the record.
 * The owner index and the total index are named from ARGV (undeclared keys: one Redis, not
 * Redis Cluster, as the session store; see docs/scale-out.md).
 *
 * Time is the Redis server's (`TIME`, in ms), read inside each script: one clock for every
 * process of the deployment, the same one that expires the keys. Redis 5 and later replicate a
 * script by its effects, so a script may read `TIME` and then write.
 */

/** Shared helpers. */
const COMMON = `
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function isTerminal(s) return s == 'completed' or s == 'failed' or s == 'cancelled' end
-- A key with an answer is never open again; input_required with nothing open is working.
local function settleQuestions(f)
  local open = false
  for k in pairs(f) do
    if string.sub(k, 1, 3) == 'ir:' then
      if f['rs:' .. string.sub(k, 4)] then f[k] = nil else open = true end
    end
  end
  if not open and f.status == 'input_required' then f.status = 'working' end
end
local function expiryOf(f)
  local e = tonumber(f.createdAt) + tonumber(f.ttlMs)
  if not isTerminal(f.status) and f.leaseUntil and tonumber(f.leaseUntil) > e then e = tonumber(f.leaseUntil) end
  return e
end
local function toTable(flat)
  local t = {}
  for i = 1, #flat, 2 do t[flat[i]] = flat[i + 1] end
  return t
end
local function sizeOf(t)
  local n = 0
  for k, v in pairs(t) do n = n + #k + #v end
  return n
end
-- An index (sorted set of ids scored by expiry) lives as long as its last member.
local function index(key, id, expiry, now)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  redis.call('ZADD', key, expiry, id)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', key, math.floor(tonumber(last[2])))
end
local function write(key, before, after)
  local gone = {}
  for k in pairs(before) do if after[k] == nil then gone[#gone + 1] = k end end
  if #gone > 0 then redis.call('HDEL', key, unpack(gone)) end
  local set = {}
  for k, v in pairs(after) do
    if before[k] ~= v then set[#set + 1] = k; set[#set + 1] = v end
  end
  if #set > 0 then redis.call('HSET', key, unpack(set)) end
end
local function reply(key) return redis.call('HGETALL', key) end
-- The owner's running tasks, scored by lease end: what maxPerOwner bounds. A task leaves it when
-- it ends, or when its lease lapses (its process died), so finished work never blocks new work.
-- (A record without a lease counts until it expires.)
local function running(ownerIndex, f, now)
  local key = ownerIndex .. ':running'
  if isTerminal(f.status) then
    redis.call('ZREM', key, f.id)
  else
    index(key, f.id, f.leaseUntil and tonumber(f.leaseUntil) or expiryOf(f), now)
  end
end
-- Write a record, set its expiry, keep the indexes and tell the other processes.
local function store(key, before, f, ownerIndex, allIndex, channel, now)
  write(key, before, f)
  local e = expiryOf(f)
  redis.call('PEXPIREAT', key, e)
  index(ownerIndex, f.id, e, now)
  index(allIndex, f.id, e, now)
  running(ownerIndex, f, now)
  redis.call('PUBLISH', channel, f.id)
  return reply(key)
end
`;

/**
 * ARGV: (unused), maxBytes, ownerIndex, allIndex, channel, maxPerOwner (running tasks),
 * maxTotal (records), then field/value pairs of the new record (a `leaseMs` pair becomes
 * `leaseUntil` = now + leaseMs). Returns the
 * record's fields, or 'owner-limit' / 'total-limit' / 'exists' / 'too-large'.
 */
export const CREATE_TASK = `
${COMMON}
local key, now = KEYS[1], clock()
local ownerIndex, allIndex = ARGV[3], ARGV[4]
if redis.call('EXISTS', key) == 1 then return 'exists' end
redis.call('ZREMRANGEBYSCORE', ownerIndex, '-inf', now)
redis.call('ZREMRANGEBYSCORE', allIndex, '-inf', now)
redis.call('ZREMRANGEBYSCORE', ownerIndex .. ':running', '-inf', now)
if redis.call('ZCARD', ownerIndex .. ':running') >= tonumber(ARGV[6]) then return 'owner-limit' end
if redis.call('ZCARD', allIndex) >= tonumber(ARGV[7]) then return 'total-limit' end
local f = {}
for i = 8, #ARGV, 2 do f[ARGV[i]] = ARGV[i + 1] end
if f.leaseMs then
  f.leaseUntil = tostring(now + tonumber(f.leaseMs))
  f.leaseMs = nil
end
f.createdAt = tostring(now)
f.lastUpdatedAt = tostring(now)
if sizeOf(f) > tonumber(ARGV[2]) then return 'too-large' end
return store(key, {}, f, ownerIndex, allIndex, ARGV[5], now)
`;

/**
 * ARGV: guard, maxBytes, ownerIndexPrefix, allIndex, channel, then triples op/field/value: 's'
 * sets the field, 'd' removes it, 'c' removes every field starting with the given prefix. Guard
 * 'lease' applies the change only when the lease has passed (`expireLease`), '' always.
 * Returns the record's fields (unchanged when terminal), {} when there is none, or 'too-large'.
 */
export const UPDATE_TASK = `
${COMMON}
local key, now = KEYS[1], clock()
local before = toTable(redis.call('HGETALL', key))
if before.id == nil then return {} end
if isTerminal(before.status) then return reply(key) end
if ARGV[1] == 'lease' and (before.leaseUntil == nil or tonumber(before.leaseUntil) > now) then
  return reply(key)
end
local f = {}
for k, v in pairs(before) do f[k] = v end
for i = 6, #ARGV, 3 do
  local op, field, value = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if op == 's' then f[field] = value
  elseif op == 'd' then f[field] = nil
  else
    for k in pairs(before) do if string.sub(k, 1, #field) == field then f[k] = nil end end
  end
end
settleQuestions(f)
f.lastUpdatedAt = tostring(now)
if sizeOf(f) > tonumber(ARGV[2]) then return 'too-large' end
return store(key, before, f, ARGV[3] .. f.owner .. '}', ARGV[4], ARGV[5], now)
`;

/**
 * ARGV: (unused), maxBytes, channel, then key/answer pairs. An answer is kept only for an open
 * request; when none is left open the status goes back to 'working'.
 */
export const ANSWER_TASK = `
${COMMON}
local key, now = KEYS[1], clock()
local before = toTable(redis.call('HGETALL', key))
if before.id == nil then return {} end
if isTerminal(before.status) then return reply(key) end
local f = {}
for k, v in pairs(before) do f[k] = v end
local changed = false
for i = 4, #ARGV, 2 do
  if f['ir:' .. ARGV[i]] then
    f['ir:' .. ARGV[i]] = nil
    f['rs:' .. ARGV[i]] = ARGV[i + 1]
    changed = true
  end
end
if not changed then return reply(key) end
local open = false
for k in pairs(f) do if string.sub(k, 1, 3) == 'ir:' then open = true end end
if not open then f.status = 'working' end
f.lastUpdatedAt = tostring(now)
if sizeOf(f) > tonumber(ARGV[2]) then return 'too-large' end
write(key, before, f)
redis.call('PUBLISH', ARGV[3], f.id)
return reply(key)
`;

/**
 * ARGV: runner, leaseMs, ownerIndexPrefix, allIndex. Extends the lease of `runner` on a record
 * that is not terminal (and the record's expiry with it). Not a status change: `lastUpdatedAt`
 * stays and nothing is published. Returns the record's fields, or {} when there is none.
 */
export const RENEW_TASK = `
${COMMON}
local key, now = KEYS[1], clock()
local before = toTable(redis.call('HGETALL', key))
if before.id == nil then return {} end
if isTerminal(before.status) or before.runner ~= ARGV[1] then return reply(key) end
local f = {}
for k, v in pairs(before) do f[k] = v end
f.leaseUntil = tostring(now + tonumber(ARGV[2]))
write(key, before, f)
local e = expiryOf(f)
redis.call('PEXPIREAT', key, e)
index(ARGV[3] .. f.owner .. '}', f.id, e, now)
index(ARGV[4], f.id, e, now)
running(ARGV[3] .. f.owner .. '}', f, now)
return reply(key)
`;

/** ARGV: ownerIndexPrefix, allIndex, channel. Returns 1 when a record was removed. */
export const DELETE_TASK = `
local key = KEYS[1]
local fields = redis.call('HMGET', key, 'id', 'owner')
if redis.call('DEL', key) == 0 then return 0 end
redis.call('ZREM', ARGV[1] .. fields[2] .. '}', fields[1])
redis.call('ZREM', ARGV[1] .. fields[2] .. '}:running', fields[1])
redis.call('ZREM', ARGV[2], fields[1])
redis.call('PUBLISH', ARGV[3], fields[1])
return 1
`;
