-- fixed-window: one counter per client, living exactly one window.
--
-- The first admitted request creates the counter with a TTL of one window (SET ... PX), so the
-- window starts with the client's first request and ends when Redis expires the key; there is no
-- separate "window start" to drift. A request is admitted while count + permits <= limit. Its
-- retry-after is read from the key's PTTL: Redis deletes a key once its clock has passed the
-- expiry millisecond, so PTTL + 1 ms is the first instant the window is certainly gone.
-- That expiry is Redis' clock, so this script needs no TIME call: one command less per decision.
--
-- KEYS[i]: the counter of rule i.  ARGV[1]: '1' to consume, '0' to peek, 'L...' to consume and
-- lease (limiter-driver.lua).
-- ARGV per rule (3): permits, limit, window in microseconds.
-- check() and commit() are run by limiter-driver.lua, appended when the script is loaded; it
-- returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.
-- Clock: none to decide with; tests move this clock by setting the key's TTL (PEXPIRE) instead.
-- Only an admission reads TIME (or a last ARGV after the rules' arguments, the other scripts'
-- `now`), for its receipt: the window's end in microseconds, which tells refund.lua whether the
-- counter it finds is still this admission's window.

local ARGS_PER_RULE = 3
local consume = CONSUMES

local function check(key, permits_arg, limit_arg, window_arg)
  local permits, limit = tonumber(permits_arg), tonumber(limit_arg)
  -- Only a plain integer is a counter: anything else is no state (limiter-driver.lua says why).
  local value = redis.pcall('GET', key)
  local count, pttl = 0, -2
  if type(value) == 'string' and string.match(value, '^%d+$') then
    count = tonumber(value)
    pttl = redis.call('PTTL', key)
  end
  local left = 0
  if pttl >= 0 then
    left = (pttl + 1) * 1000
  end
  if count + permits > limit then
    return 0, limit - count, left, left
  end
  return 1, limit - count, 0, left, limit - count - permits, permits_arg, pttl, tonumber(window_arg)
end

local function commit(key, remaining, permits_arg, pttl, window)
  if pttl < 0 then
    -- A new window (or a counter that lost its TTL, or another algorithm's state): start it,
    -- TTL and value in one command.
    local ttl = math.ceil(window / 1000)
    redis.call('SET', key, permits_arg, 'PX', ttl)
    return remaining, window, clock(ARGS_PER_RULE, 0) + ttl * 1000
  end
  redis.call('INCRBY', key, permits_arg)
  return remaining, (pttl + 1) * 1000, clock(ARGS_PER_RULE, 0) + (pttl + 1) * 1000
end

-- A quota lease of `grant` permits for the caller's node, counted in this window at once. The node
-- admits from it until the window ends at the latest (its key's PTTL, not a microsecond more), so
-- every permit it admits belongs to this window's count. The receipt is the window's end, as an
-- admission's is: refund.lua gives back what the node did not use, in this window only.
local function lease(key, grant, lifetime)
  local pttl = redis.call('PTTL', key)
  if pttl <= 0 then
    return 0
  end
  redis.call('INCRBY', key, grant)
  local now = clock(ARGS_PER_RULE, 0)
  return grant, math.min(lifetime, pttl * 1000), now + (pttl + 1) * 1000, now
end
