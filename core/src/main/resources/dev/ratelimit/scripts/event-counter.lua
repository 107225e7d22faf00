-- event-counter: how many events a client had in the last window, in O(slots) memory.
--
-- The window is cut into `slots` slots of equal length, aligned to the Unix epoch; a hash maps
-- each slot's number to its count. The count is the sum over the current slot and the slots - 1
-- before it, so it covers between window - slot and window of history: precise to one slot,
-- however many events there are (a sorted set of events would be exact but grow with traffic).
-- Stale slots are deleted on each increment; the key expires when its newest slot has left the
-- window. Counting (ARGV[1] = 0) reads and writes nothing else.
--
-- KEYS[1]: the hash.  ARGV: events to add (0 to only count), slot length in microseconds, slots.
-- Returns {count in the window after adding}.

local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local key = KEYS[1]
local add = tonumber(ARGV[1])
local slot_length = tonumber(ARGV[2])
local slots = tonumber(ARGV[3])

local current = math.floor(now / slot_length)
local oldest = current - slots + 1
local fields = redis.call('HGETALL', key)
local total, stale = 0, {}
for i = 1, #fields, 2 do
  if tonumber(fields[i]) < oldest then
    table.insert(stale, fields[i])
  else
    total = total + tonumber(fields[i + 1])
  end
end
if add > 0 then
  if #stale > 0 then
    redis.call('HDEL', key, unpack(stale))
  end
  redis.call('HINCRBY', key, string.format('%d', current), add)
  redis.call('PEXPIRE', key, math.ceil(slots * slot_length / 1000))
  total = total + add
end
return {total}
