-- A policy's live overrides: operator state in one hash, KEYS[1] = <prefix><policy>:{<policy>}:overrides,
-- fields limit, enforce and origin, and client-reset. Read every couple of seconds by each node, written by
-- an operator.
--
-- ARGV[1] is what to do: 'read'; 'set' with ARGV[2] the field, ARGV[3] its value and ARGV[4] the origin;
-- 'clear' deletes the hash; 'reset' writes ARGV[3] into client-reset, a mark that changes whenever a
-- client of the policy was reset, so that every node reading a new one forgets the denials it
-- remembers (it cannot know whose). Every call then answers the state as it is now.
--
-- The key has no TTL, unlike every limiter key: it is configuration an operator set, and must
-- outlive restarts until someone clears it.
--
-- The reply is integers only, as the gateway's seam speaks them: {limit or -1, enforce as 1, 0 or
-- -1 for none, client-reset or -1, then the origin's first 256 bytes}. A field an operator wrote by
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
if op == 'set' then
  redis.call('HSET', key, ARGV[2], ARGV[3], 'origin', ARGV[4])
elseif op == 'clear' then
  redis.call('DEL', key)
elseif op == 'reset' then
  redis.call('HSET', key, 'client-reset', ARGV[3])
end
local fields = redis.call('HMGET', key, 'limit', 'enforce', 'origin', 'client-reset')
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
local reply = {limit, enforce, whole(fields[4])}
if fields[3] then
  local origin = string.sub(fields[3], 1, 256)
  for i = 1, #origin do
    reply[#reply + 1] = string.byte(origin, i)
  end
end
return reply
