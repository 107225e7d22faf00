-- client-reset: forgets a client, in one call.
--
-- Deletes the client's keys and leaves its reset guard (RedisKeys.resetGuard, the last key), the
-- reset's instant in microseconds, for ARGV[1] milliseconds. A node that lent the client permits
-- before the reset may still send their rest back, and a request admitted before it may still be
-- refunded (countStatus); refund.lua gives back no rest of a lease lent, and no fixed-window or
-- sliding-log admission taken, at or before the guard's instant, so none lands in the client's
-- fresh state (the other algorithms' states know their own life). A node gives a rest
-- back within seconds of its lease's end or never (QuotaLeases.GIVE_BACK_WITHIN), which the guard
-- outlives.
--
-- KEYS: the client's keys, then its reset guard. ARGV[1]: the guard's life in milliseconds.

for i = 1, #KEYS - 1 do
  redis.call('DEL', KEYS[i])
end
local t = redis.call('TIME')
redis.call('SET', KEYS[#KEYS], string.format('%d', t[1] * 1000000 + t[2]), 'PX', ARGV[1])
return {#KEYS - 1}
