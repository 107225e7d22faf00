-- A policy's live overrides: operator state in one hash, KEYS[1] = <prefix><policy>:{<policy>}:overrides,
-- fields limit, enforce and origin. Read every couple of seconds by each node, written by an operator.
-- With them the client-reset mark, KEYS[2] = <prefix><policy>:{<policy>}:client-reset (the same slot):
-- a counter that changes whenever a client of the policy was reset, so that every node reading a new
-- value forgets the denials it remembers (it cannot know whose).
--
-- ARGV[1] is what to do: 'read'; 'set' with ARGV[2] the field, ARGV[3] its value and ARGV[4] the origin;
-- 'clear' deletes the hash; 'reset' counts one more reset in the mark, which is created at 0 with a
-- TTL of ARGV[3] milliseconds when absent (SET NX PX, INCRBY: what the transaction transport's
-- incrementInWindow does). Every call then answers the state as it is now.
--
-- The hash has no TTL, unlike every limiter key: it is configuration an operator set, and must
-- outlive restarts until someone clears it. The mark is no configuration: it expires, and its
-- expiry is one more change each node sees.
--
-- The reply is integers only, as the gateway's seam speaks them: {limit or -1, enforce as 1, 0 or
-- -1 for none, the mark or -1, the mark's PTTL or -2, then the origin's first 256 bytes}. The PTTL
-- tells a mark that expired and started again from the one a node last read, even at the same count. A field an operator wrote by
-- hand that is not a whole number (or true/false) answers -2, so the Java side can say so rather
-- than take it for "none".
--
-- A whole number is written as Java writes one: an optional '-' and decimal digits, nothing else,
-- below 2^53 in size. Lua's tonumber alone would also take ' 7', '1e3', '0x10' and 'inf', and turn
-- 'inf' or '1e30' into whatever the C cast to an integer reply makes of them. The rule is strict
-- so that the transaction transport's twin in Java (LiveOverrides' exchange without scripts) reads
-- every value exactly as this script does; below 2^53 a double holds every integer exactly, and
-- rounding never brings a larger decimal under it.
local key = KEYS[1]
local op = ARGV[1]
-- The mark's count; nil when absent or not a counter (anything else under its key reads as none,
-- and a reset replaces it, as the transaction transport's window counter does).
local function mark_count()
  local value = redis.pcall('GET', KEYS[2])
  if type(value) == 'string' and string.find(value, '^%d+$') then
    return tonumber(value)
  end
  return nil
end
if op == 'set' then
  redis.call('HSET', key, ARGV[2], ARGV[3], 'origin', ARGV[4])
elseif op == 'clear' then
  redis.call('DEL', key)
elseif op == 'reset' then
  if not mark_count() then
    redis.call('DEL', KEYS[2])
  end
  redis.call('SET', KEYS[2], 0, 'PX', ARGV[3], 'NX')
  redis.call('INCRBY', KEYS[2], 1)
end
local fields = redis.call('HMGET', key, 'limit', 'enforce', 'origin')
local function whole(text)
  if not text then
    return -1
  end
  local n = string.find(text, '^%-?%d+$') and tonumber(text)
  return (n and n < 9007199254740992 and n > -9007199254740992) and n or -2
end
local limit = whole(fields[1])
local enforce = -1
if fields[2] == 'true' then
  enforce = 1
elseif fields[2] == 'false' then
  enforce = 0
elseif fields[2] then
  enforce = -2
end
local mark = mark_count()
local reply = {limit, enforce, mark or -1, mark and redis.call('PTTL', KEYS[2]) or -2}
if fields[3] then
  local origin = string.sub(fields[3], 1, 256)
  for i = 1, #origin do
    reply[#reply + 1] = string.byte(origin, i)
  end
end
return reply
