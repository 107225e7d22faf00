-- gcra: the generic cell rate algorithm, a token bucket stored as a single timestamp.
--
-- Requests are spaced by an emission interval T = window / limit (rounded up to a whole
-- microsecond, so the rate is never faster than configured). The key holds the theoretical
-- arrival time (TAT): when the client would be "caught up" had it sent at exactly the rate.
-- A request of n permits moves TAT to max(TAT, now) + n*T, and is admitted if the new TAT is no
-- more than burst*T ahead of now. So a fresh client may send `burst` at once, then one per T.
-- Retry-after is the instant the new TAT would be exactly burst*T ahead, which makes a retry at
-- that instant admitted. One string, O(1), and the TTL is simply TAT - now: when it is reached
-- the client is fully caught up and the key carries no information.
--
-- KEYS[i]: the TAT of rule i.  ARGV[1]: '1' to consume, '0' to peek.
-- ARGV per rule (3): permits, emission interval in microseconds, burst.
-- Returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.

local ARGS_PER_RULE = 3
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local consume = ARGV[1] == '1'

local function check(key, permits_arg, interval_arg, burst_arg)
  local permits, interval = tonumber(permits_arg), tonumber(interval_arg)
  local tat = math.max(tonumber(redis.call('GET', key) or '0'), now)
  local tolerance = tonumber(burst_arg) * interval
  local new_tat = tat + permits * interval
  local available = math.floor((tolerance - (tat - now)) / interval)
  if new_tat - now > tolerance then
    return 0, available, new_tat - tolerance - now, tat - now
  end
  return 1, available, 0, tat - now, math.floor((tolerance - (new_tat - now)) / interval), new_tat
end

local function commit(key, remaining, new_tat)
  redis.call('SET', key, string.format('%d', new_tat), 'PX', math.max(1, math.ceil((new_tat - now) / 1000)))
  return remaining, new_tat - now
end

-- The driver, the same in every limiter script (Redis scripts cannot share code). check() reads a
-- rule's state and returns allowed, remaining, retry_after_us, reset_after_us, then what commit()
-- needs (at most five values); commit() writes and returns remaining and reset_after_us after the
-- request. One rule, the common case, builds no table but the reply, and nothing anywhere builds
-- closures: both cost Redis CPU on every call. Several rules are all or nothing: every rule is
-- checked before any is committed.
if #KEYS == 1 then
  local allowed, remaining, retry, reset, s1, s2, s3, s4, s5 = check(KEYS[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
  if allowed == 1 and consume then remaining, reset = commit(KEYS[1], s1, s2, s3, s4, s5) end
  return {allowed, allowed, remaining, retry, reset}
end
local checked, all_allowed = {}, 1
for i = 1, #KEYS do
  local a = 2 + (i - 1) * ARGS_PER_RULE
  checked[i] = {check(KEYS[i], unpack(ARGV, a, a + ARGS_PER_RULE - 1))}
  if checked[i][1] == 0 then all_allowed = 0 end
end
local reply = {all_allowed}
for i, r in ipairs(checked) do
  local remaining, reset = r[2], r[4]
  if all_allowed == 1 and consume then remaining, reset = commit(KEYS[i], unpack(r, 5)) end
  local at = 4 * i - 2
  reply[at], reply[at + 1], reply[at + 2], reply[at + 3] = r[1], remaining, r[3], reset
end
return reply
