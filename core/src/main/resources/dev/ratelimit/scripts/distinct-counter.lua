-- distinct-counter: how many distinct items a client used in the last window.
--
-- A sorted set maps each item to the last time it was seen, in microseconds; the items seen
-- after now - window are the distinct ones in the window, exactly. Adding an item that is already
-- there only moves its time. The set is capped at `max_items` by dropping the longest unseen, so
-- a client with endless distinct items cannot grow it without bound (the count then stops at the
-- cap). Items are trimmed on each add; the key expires one window after its newest item.
--
-- KEYS[1]: the set.  ARGV: the item ('' to only count), window in microseconds, max_items.
-- Returns {distinct items in the window after adding}.

local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local key = KEYS[1]
local item = ARGV[1]
local window = tonumber(ARGV[2])
local max_items = tonumber(ARGV[3])

if item == '' then
  -- string.format, not '..': concatenation would print 16-digit stamps as %.14g.
  return {redis.call('ZCOUNT', key, string.format('(%d', now - window), '+inf')}
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
redis.call('ZADD', key, now, item)
local count = redis.call('ZCARD', key)
if count > max_items then
  redis.call('ZREMRANGEBYRANK', key, 0, count - max_items - 1)
  count = max_items
end
redis.call('PEXPIRE', key, math.ceil(window / 1000))
return {count}
