/**
 * journal — KEYS: the pair's live hash, the tracked-pairs set, the fence key (or '' for none), the
 * pair's history list, its done-refs sorted set, its position key. ARGV: pair, fence token, history
 * limit, then triples of field, record JSON, and '' for a live record or, for a terminal one, the
 * time it went terminal (its done-refs score). Returns `{}` when written, or `{ field }` of a
 * stored record that executed more than the one given (nothing is written then).
 *
 * The write-ahead records of order-entry calls are on the way to the wire, so they are written in
 * one script rather than put()'s optimistic transaction (four round trips), the orders a drain
 * retired as gone included. It keeps put()'s rules: fenced by the lease, terminal records moved
 * from the live hash to the capped history, and never moving an order's execution backwards —
 * where that would happen it writes nothing and lets the caller take put(), which carries the
 * stored execution over. Volumes are compared as decimal strings, exactly (Lua numbers are
 * doubles).
 */
export const JOURNAL = `
local function parts(s)
  local i, f = string.match(s, '^(%d*)%.?(%d*)$')
  if i == nil then return nil end
  i = (string.gsub(i, '^0+', ''))
  f = (string.gsub(f, '0+$', ''))
  return i, f
end
local function greater(a, b)
  local ai, af = parts(a)
  local bi, bf = parts(b)
  if ai == nil or bi == nil then return true end
  if #ai ~= #bi then return #ai > #bi end
  if ai ~= bi then return ai > bi end
  local n = math.max(#af, #bf)
  af = af .. string.rep('0', n - #af)
  bf = bf .. string.rep('0', n - #bf)
  return af > bf
end
-- The two fields compared, read off our own codec's JSON without decoding all of it (cjson
-- decoding two records of every field cost most of the script); nil when absent or null.
local function field(json, name)
  return string.match(json, '"' .. name .. '":"([^"]*)"')
end
if KEYS[3] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[2] then
  return redis.error_reply('MAKERD_TRACKER_FENCED ' .. KEYS[3])
end
for i = 4, #ARGV, 3 do
  local stored = redis.call('HGET', KEYS[1], ARGV[i])
  if stored then
    local st, gt = field(stored, 'txid'), field(ARGV[i + 1], 'txid')
    local done = field(stored, 'volumeExecuted')
    local same = st == nil or gt == nil or st == gt
    if same and done ~= nil and greater(done, field(ARGV[i + 1], 'volumeExecuted') or '') then
      return { ARGV[i] }
    end
  end
end
local retired = false
for i = 4, #ARGV, 3 do
  if ARGV[i + 2] == '' then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  else
    redis.call('HDEL', KEYS[1], ARGV[i])
    redis.call('LPUSH', KEYS[4], ARGV[i + 1])
    redis.call('ZADD', KEYS[5], ARGV[i + 2], ARGV[i])
    retired = true
  end
end
if retired then
  local limit = tonumber(ARGV[3])
  redis.call('LTRIM', KEYS[4], 0, limit - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[5], 0, -(limit + 1))
end
if redis.call('HLEN', KEYS[1]) > 0 or redis.call('EXISTS', KEYS[6]) == 1 then
  redis.call('SADD', KEYS[2], ARGV[1])
else
  redis.call('SREM', KEYS[2], ARGV[1])
end
return {}
`;
