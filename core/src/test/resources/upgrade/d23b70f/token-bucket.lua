-- token-bucket: a bucket of `burst` tokens, refilled at `limit` tokens per window.
--
-- One string keeps the tokens and the time they were counted, "t<tokens> <microseconds>"; the
-- refill since then is computed on read, so no timer runs anywhere. (A string, not a hash: GET and
-- SET PX are two commands where HMGET, HSET and PEXPIRE are three, and it is smaller.) A request takes `permits` tokens if the bucket has
-- them. Tokens are integers in units of 1/scale of a permit, with scale = window / gcd(limit,
-- window) and refill = limit / gcd per microsecond: every quantity is an exact integer, so a
-- request retried exactly at its retry-after finds exactly enough tokens (no float drift).
-- A missing key is a full bucket, so the key needs to live only until the bucket would be full
-- again: that is its TTL.
--
-- KEYS[i]: the bucket of rule i.  ARGV[1]: '1' to consume, '0' to peek, 'L...' to consume and lease
-- (limiter-driver.lua).
-- ARGV per rule (4): permits, capacity (burst * scale), scale, refill per microsecond.
-- check() and commit() are run by limiter-driver.lua, appended when the script is loaded; it
-- returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.
-- Clock: Redis' TIME, unless a last ARGV follows the rules' arguments: then that is now, in
-- microseconds since the epoch. Only tests send it; see limiter-driver.lua.

local ARGS_PER_RULE = 4
local now = clock(ARGS_PER_RULE, 0)
local consume = CONSUMES

local function check(key, permits_arg, capacity_arg, scale_arg, refill_arg)
  local capacity, scale, refill = tonumber(capacity_arg), tonumber(scale_arg), tonumber(refill_arg)
  local value = redis.pcall('GET', key)
  local counted, at
  if type(value) == 'string' then
    counted, at = string.match(value, '^t(%d+) (%d+)$')
  end
  local tokens = capacity
  if counted then
    tokens = tonumber(counted)
    -- Refill only up to full: elapsed * refill could otherwise outgrow exact doubles.
    local elapsed = now - tonumber(at)
    if elapsed >= math.ceil((capacity - tokens) / refill) then
      tokens = capacity
    else
      tokens = tokens + elapsed * refill
    end
  end
  local need = tonumber(permits_arg) * scale
  local available = math.max(0, math.floor(tokens / scale))
  local reset = math.ceil((capacity - tokens) / refill)
  if tokens < need then
    return 0, available, math.ceil((need - tokens) / refill), reset, tokens, need, capacity, scale, refill
  end
  local left = tokens - need
  return 1, available, 0, reset, math.floor(left / scale), left, math.ceil((capacity - left) / refill)
end

local function commit(key, remaining, left, refill_time)
  redis.call('SET', key, string.format('t%d %d', left, now), 'PX', math.max(1, math.ceil(refill_time / 1000)))
  return remaining, refill_time, 0
end

-- A delayed admission (limiter-penalty.lua): the bucket as the same request would leave it at the
-- instant it is admitted, now + wait: what it holds then, less the request, counted at that instant.
-- The state's time is then ahead of now: check() reads it as tokens owed (elapsed is negative), so
-- every later request waits behind this one. The receipt is 0 as an admission's.
local function reserve(key, wait, tokens, need, capacity, scale, refill)
  local left = tokens + wait * refill - need
  local refill_time = wait + math.ceil((capacity - left) / refill)
  redis.call('SET', key, string.format('t%d %d', left, now + wait), 'PX', math.max(1, math.ceil(refill_time / 1000)))
  return wait, math.floor(left / scale), refill_time, 0
end

-- A quota lease of up to `grant` permits for the caller's node, taken as if each were taken at the
-- lease's end with no refill credited until then: the bucket keeps at most what it would hold then
-- had it been full, min(tokens, capacity - lifetime * refill), less the lease. The node admits from
-- it before then, and one-by-one admissions at those instants would have left no more tokens, so
-- no later decision is ever less strict than it would have been. It lends only what the bucket
-- holds so counted (possibly fewer than asked, or none). The cost: a bucket within a lease's
-- refill of full waits that refill. Its receipt is the tokens it left: refund.lua gives the rest
-- back as gcra's (see there).
local function lease(key, grant, lifetime, capacity_arg, scale_arg, refill_arg)
  local capacity, scale, refill = tonumber(capacity_arg), tonumber(scale_arg), tonumber(refill_arg)
  local counted = string.match(redis.call('GET', key), '^t(%d+) ')
  local tokens = math.min(tonumber(counted), capacity - lifetime * refill)
  local granted = math.min(grant, math.floor(tokens / scale))
  if granted <= 0 then
    return 0
  end
  local left = tokens - granted * scale
  local refill_time = math.ceil((capacity - left) / refill)
  redis.call('SET', key, string.format('t%d %d', left, now), 'PX', math.max(1, math.ceil(refill_time / 1000)))
  return granted, lifetime, left, now
end
