/**
 * `incr` as one Lua script, so the add, the store and the TTL of a new key
 * happen atomically on the Redis server (INCRBY followed by PEXPIRE would leave
 * a key without TTL if the client died between them, and INCRBY refuses floats).
 * The arithmetic is Lua's, i.e. IEEE doubles like JavaScript's, so Redis and the
 * memory store return the same numbers; the value is written in the shortest
 * form that reads back exactly.
 *
 * KEYS[1] key · ARGV[1] amount · ARGV[2] TTL in ms for a new key (0: none).
 * Returns the new value as a string (a Lua number reply would lose fractions).
 */
export const INCR_SCRIPT = `
local current = redis.call('GET', KEYS[1])
local value = 0
if current then
  value = tonumber(current)
  -- tonumber also takes hex, inf and nan; the memory store refuses those too
  if value == nil or value ~= value or string.find(current, '[xXnN]') then
    return redis.error_reply('GOV_ERR_KV_NOT_A_NUMBER')
  end
end
value = value + tonumber(ARGV[1])
local text = string.format('%.15g', value)
if tonumber(text) ~= value then text = string.format('%.16g', value) end
if tonumber(text) ~= value then text = string.format('%.17g', value) end
if current then
  redis.call('SET', KEYS[1], text, 'KEEPTTL')
elseif tonumber(ARGV[2]) > 0 then
  redis.call('SET', KEYS[1], text, 'PX', ARGV[2])
else
  redis.call('SET', KEYS[1], text)
end
return text
`
