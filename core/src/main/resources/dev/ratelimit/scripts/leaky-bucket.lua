-- leaky-bucket: a bucket of size `burst` that drains at `limit` permits per window (as a meter).
--
-- Each admitted permit pours one unit in; the bucket leaks continuously; a request that would
-- overflow is denied and pours nothing. One string keeps the level and when it was measured,
-- "<level> <microseconds>" (GET and SET PX: two commands); the leak since then is computed on
-- read. This is the policing form of the leaky bucket: it decides at once rather than queueing,
-- so callers that want the smoothing form wait for retry-after (RateLimiter.acquire does).
--
-- Levels are integers in units of 1/scale of a permit, scale = window / gcd(limit, window), with
-- leak = limit / gcd per microsecond, so a retry exactly at retry-after fits exactly. An empty
-- bucket is the same as no key: the TTL is the time until the bucket has drained.
--
-- KEYS[i]: the bucket of rule i.  ARGV[1]: '1' to consume, '0' to peek.
-- ARGV per rule (4): permits, capacity (burst * scale), scale, leak per microsecond.
-- Returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.

local ARGS_PER_RULE = 4
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local consume = ARGV[1] == '1'

local function check(key, permits_arg, capacity_arg, scale_arg, leak_arg)
  local capacity, scale, leak = tonumber(capacity_arg), tonumber(scale_arg), tonumber(leak_arg)
  local stored = redis.call('GET', key)
  local level = 0
  if stored then
    local measured, at = string.match(stored, '^(%d+) (%d+)$')
    level = tonumber(measured)
    local elapsed = math.max(0, now - tonumber(at))
    if elapsed >= math.ceil(level / leak) then
      level = 0
    else
      level = level - elapsed * leak
    end
  end
  local pour = tonumber(permits_arg) * scale
  local available = math.floor((capacity - level) / scale)
  local reset = math.ceil(level / leak)
  if level + pour > capacity then
    return 0, available, math.ceil((level + pour - capacity) / leak), reset
  end
  local filled = level + pour
  return 1, available, 0, reset, math.floor((capacity - filled) / scale), filled, math.ceil(filled / leak)
end

local function commit(key, remaining, filled, drain_time)
  redis.call('SET', key, string.format('%d %d', filled, now), 'PX', math.max(1, math.ceil(drain_time / 1000)))
  return remaining, drain_time
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
