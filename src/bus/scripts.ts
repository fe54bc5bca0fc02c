/**
 * Lua run by Redis for the intent register. A script runs atomically: no other client's command
 * falls between its reads and writes. Each script checks everything before its first write,
 * because Redis does not roll back the writes of a script that fails half-way.
 *
 * Sent with EVAL, not EVALSHA: after a NOSCRIPT answer (cache flushed, failover) a client re-sends
 * EVALSHA as EVAL, and a publish issued meanwhile could then run first and get the lower
 * generation although it carries the newer intent. Redis caches the compiled script by its hash
 * either way.
 */

/**
 * publish — KEYS: register hash, generations hash, pairs set. ARGV: pair, then slot/body pairs.
 * Returns { coalesced, generation... }.
 *
 * Atomic so that assigning the generation, noticing the entry it replaces and writing the new
 * entry are one step: two runners publishing the same slot get distinct generations, and the
 * register always ends with the entry of the highest one.
 */
export const PUBLISH = `
local register, generations, pairs = KEYS[1], KEYS[2], KEYS[3]
local pair = ARGV[1]
for _, key in ipairs({ register, generations }) do
  local t = redis.call('TYPE', key).ok
  if t ~= 'hash' and t ~= 'none' then
    return redis.error_reply('MAKERD_BUS_CORRUPT Redis key ' .. key .. ' is a ' .. t .. ', not a hash')
  end
end
local fields = {}
for i = 2, #ARGV, 2 do
  if string.sub(ARGV[i + 1], 1, 1) ~= '{' or string.sub(ARGV[i + 1], 2, 2) == '}' then
    return redis.error_reply('MAKERD_BUS_CORRUPT body for ' .. ARGV[i] .. ' is not a JSON object')
  end
  fields[#fields + 1] = pair .. '|' .. ARGV[i]
end
local lasts = redis.call('HMGET', generations, unpack(fields))
for j, last in ipairs(lasts) do
  if last and not string.match(last, '^%d+$') then
    return redis.error_reply('MAKERD_BUS_CORRUPT Redis key ' .. generations .. ' field ' ..
      fields[j] .. ' holds ' .. string.sub(last, 1, 40))
  end
end
local out = { 0 }
for i = 2, #ARGV, 2 do
  local slot = ARGV[i]
  local generation = redis.call('HINCRBY', generations, pair .. '|' .. slot, 1)
  -- HSET counts new fields: 0 means the slot held an entry, which this one replaces.
  local added = redis.call('HSET', register, slot,
    '{"generation":' .. string.format('%d', generation) .. ',' .. string.sub(ARGV[i + 1], 2))
  if added == 0 then out[1] = out[1] + 1 end
  out[#out + 1] = generation
end
redis.call('SADD', pairs, pair)
return out
`;

/**
 * take_slots — KEYS: register hash, pairs set. ARGV: pair, then slot/generation pairs. Returns the
 * removed entries as an HGETALL-style flat list.
 *
 * Atomic so that an entry replaced by a newer publish between the executor's peek and this call
 * is neither removed nor returned: the newer intent waits for the next job.
 */
export const TAKE_SLOTS = `
local out = {}
for i = 2, #ARGV, 2 do
  local body = redis.call('HGET', KEYS[1], ARGV[i])
  if body and string.match(body, '^{"generation":(%d+),') == ARGV[i + 1] then
    redis.call('HDEL', KEYS[1], ARGV[i])
    out[#out + 1] = ARGV[i]
    out[#out + 1] = body
  end
end
if redis.call('HLEN', KEYS[1]) == 0 then
  redis.call('SREM', KEYS[2], ARGV[1])
end
return out
`;

/**
 * restore — KEYS: register hash, generations hash, pairs set. ARGV: pair, then slot/entry pairs
 * (entry = the register's JSON, generation included). Returns the slots put back.
 *
 * Gives back an intent the executor took but could not act on (its order turned out gone): put
 * back only while the slot's register entry is empty and no newer generation was published for
 * it, so a restore never hides a newer intent nor revives one already superseded.
 */
export const RESTORE = `
local out = {}
for i = 2, #ARGV, 2 do
  local slot, entry = ARGV[i], ARGV[i + 1]
  local generation = string.match(entry, '^{"generation":(%d+),')
  local latest = redis.call('HGET', KEYS[2], ARGV[1] .. '|' .. slot)
  if generation and latest == generation and redis.call('HEXISTS', KEYS[1], slot) == 0 then
    redis.call('HSET', KEYS[1], slot, entry)
    out[#out + 1] = slot
  end
end
if #out > 0 then redis.call('SADD', KEYS[3], ARGV[1]) end
return out
`;

/**
 * drop_entry — KEYS: register hash, pairs set. ARGV: pair, slot, the entry as it was read.
 * Removes an entry that does not decode, unless a publish has replaced it since it was read.
 */
export const DROP_ENTRY = `
if redis.call('HGET', KEYS[1], ARGV[2]) == ARGV[3] then
  redis.call('HDEL', KEYS[1], ARGV[2])
end
if redis.call('HLEN', KEYS[1]) == 0 then
  redis.call('SREM', KEYS[2], ARGV[1])
end
return 1
`;
