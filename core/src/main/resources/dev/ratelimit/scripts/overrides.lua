-- A policy's live overrides: operator state in one hash, KEYS[1] = <prefix><policy>:{<policy>}:overrides,
-- fields limit, enforce and origin. Read every couple of seconds by each node, written by an operator.
--
-- ARGV[1] is what to do: 'read'; 'set' with ARGV[2] the field, ARGV[3] its value and ARGV[4] the origin;
-- 'clear' deletes the hash. Every call then answers the state as it is now.
--
-- The key has no TTL, unlike every limiter key: it is configuration an operator set, and must
-- outlive restarts until someone clears it.
--
-- The reply is integers only, as the gateway's seam speaks them: {limit or -1, enforce as 1, 0 or
-- -1 for none, then the origin's bytes}. A field an operator wrote by hand that is not a number (or
-- true/false) answers -2, so the Java side can say so rather than take it for "none".
local key = KEYS[1]
local op = ARGV[1]
if op == 'set' then
  redis.call('HSET', key, ARGV[2], ARGV[3], 'origin', ARGV[4])
elseif op == 'clear' then
  redis.call('DEL', key)
end
local fields = redis.call('HMGET', key, 'limit', 'enforce', 'origin')
local limit = -1
if fields[1] then
  local n = tonumber(fields[1])
  limit = (n and n == math.floor(n)) and n or -2
end
local enforce = -1
if fields[2] == 'true' then
  enforce = 1
elseif fields[2] == 'false' then
  enforce = 0
elseif fields[2] then
  enforce = -2
end
local reply = {limit, enforce}
if fields[3] then
  local origin = string.sub(fields[3], 1, 256)
  for i = 1, #origin do
    reply[#reply + 1] = string.byte(origin, i)
  end
end
return reply
