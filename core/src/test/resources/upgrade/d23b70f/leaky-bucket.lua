-- leaky-bucket: a bucket of size `burst` that drains at `limit` permits per window (as a meter).
--
-- Each admitted permit pours one unit in; the bucket leaks continuously; a request that would
-- overflow is denied and pours nothing. One string keeps the level and when it was measured,
-- "l<level> <microseconds>" (GET and SET PX: two commands); the leak since then is computed on
-- read. This is the policing form of the leaky bucket: it decides at once rather than queueing,
-- so callers that want the smoothing form wait for retry-after (RateLimiter.acquire does).
--
-- Levels are integers in units of 1/scale of a permit, scale = window / gcd(limit, window), with
-- leak = limit / gcd per microsecond, so a retry exactly at retry-after fits exactly. An empty
-- bucket is the same as no key: the TTL is the time until the bucket has drained.
--
-- KEYS[i]: the bucket of rule i.  ARGV[1]: '1' to consume, '0' to peek.
-- ARGV per rule (4): permits, capacity (burst * scale), scale, leak per microsecond.
-- check() and commit() are run by limiter-driver.lua, appended when the script is loaded; it
-- returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.
-- Clock: Redis' TIME, unless a last ARGV follows the rules' arguments: then that is now, in
-- microseconds since the epoch. Only tests send it; see limiter-driver.lua.

local ARGS_PER_RULE = 4
local now = clock(ARGS_PER_RULE, 0)
local consume = CONSUMES

local function check(key, permits_arg, capacity_arg, scale_arg, leak_arg)
  local capacity, scale, leak = tonumber(capacity_arg), tonumber(scale_arg), tonumber(leak_arg)
  local value = redis.pcall('GET', key)
  local measured, at
  if type(value) == 'string' then
    measured, at = string.match(value, '^l(%d+) (%d+)$')
  end
  local level = 0
  if measured then
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
  redis.call('SET', key, string.format('l%d %d', filled, now), 'PX', math.max(1, math.ceil(drain_time / 1000)))
  return remaining, drain_time, 0
end
