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
-- counter it finds is still this admission's window. A key with delayed requests ('r...', below)
-- decides by that clock too.

local ARGS_PER_RULE = 3
local consume = CONSUMES
-- commit()'s mark for a window with delayed requests whose next window has begun.
local ROLLED = -1

-- A window some requests are delayed beyond (maxDelay, limiter-penalty.lua): the key holds
-- 'r<count>:<next>:<switch>', the count of the window that ends at <switch> (microseconds on the
-- script's clock), the permits taken for the window that begins then, and lives until that next
-- window ends. Before <switch> the count decides and a request over it may be delayed into the next
-- window while it has room; from <switch> on, the next window's count decides as a plain counter's
-- does (commit() writes it back as one), and a request over it may be delayed into the window after.
-- Only such a key makes fixed-window read TIME to decide. refund.lua gives nothing back from it
-- (the permits stay counted until their window ends).
local function check_reserved(key, permits, limit, current, later, switch, window_arg)
  local now = clock(ARGS_PER_RULE, 0)
  local pttl = redis.call('PTTL', key)
  if now >= switch then
    local left = (pttl + 1) * 1000
    if later + permits > limit then
      return 0, limit - later, left, left, later, pttl, permits, tonumber(window_arg), limit - permits
    end
    return 1, limit - later, 0, left, limit - later - permits, later + permits, pttl, tonumber(window_arg), ROLLED
  end
  local left = switch - now
  if current + permits > limit then
    if later + permits > limit then
      -- Its next window is full too: back when that one ends, the key gone.
      return 0, limit - current, (pttl + 1) * 1000, left
    end
    return 0, limit - current, left, left, current, later + permits, switch, 'next', limit - later - permits
  end
  return 1, limit - current, 0, left, limit - current - permits, current + permits, switch, tonumber(window_arg), later
end

local function check(key, permits_arg, limit_arg, window_arg)
  local permits, limit = tonumber(permits_arg), tonumber(limit_arg)
  -- Only a plain integer is a counter: anything else is no state (limiter-driver.lua says why), but
  -- a window with requests delayed into the next (reserve, below).
  local value = redis.pcall('GET', key)
  local count, pttl = 0, -2
  if type(value) == 'string' and string.match(value, '^%d+$') then
    count = tonumber(value)
    pttl = redis.call('PTTL', key)
  elseif type(value) == 'string' and string.sub(value, 1, 1) == 'r' then
    local current, later, switch = string.match(value, '^r(%d+):(%d+):(%d+)$')
    if switch then
      return check_reserved(key, permits, limit, tonumber(current), tonumber(later), tonumber(switch), window_arg)
    end
  end
  local left = 0
  if pttl >= 0 then
    left = (pttl + 1) * 1000
  end
  if count + permits > limit then
    return 0, limit - count, left, left, count, pttl, permits, tonumber(window_arg), limit - permits
  end
  return 1, limit - count, 0, left, limit - count - permits, permits_arg, pttl, tonumber(window_arg)
end

local function commit(key, remaining, amount, pttl, window, later)
  if later == ROLLED then
    -- The next window of a delayed request has begun: a plain counter again, with its TTL.
    redis.call('SET', key, amount, 'KEEPTTL')
    return remaining, (pttl + 1) * 1000, clock(ARGS_PER_RULE, 0) + (pttl + 1) * 1000
  elseif later then
    -- Within a window some requests are delayed beyond: `pttl` is the instant it ends (switch).
    redis.call('SET', key, string.format('r%d:%d:%d', amount, later, pttl), 'KEEPTTL')
    return remaining, pttl - clock(ARGS_PER_RULE, 0), pttl
  end
  if pttl < 0 then
    -- A new window (or a counter that lost its TTL, or another algorithm's state): start it,
    -- TTL and value in one command.
    local ttl = math.ceil(window / 1000)
    redis.call('SET', key, amount, 'PX', ttl)
    return remaining, window, clock(ARGS_PER_RULE, 0) + ttl * 1000
  end
  redis.call('INCRBY', key, amount)
  return remaining, (pttl + 1) * 1000, clock(ARGS_PER_RULE, 0) + (pttl + 1) * 1000
end

-- A delayed admission (limiter-penalty.lua): the permits taken for the window that begins when this
-- one ends (its key's expiry, or <switch>), as the same request would be counted then, the first of
-- that window or after those delayed before it. The key then holds both windows ('r...', above) and
-- lives until the next one ends. Only one window ahead: past it the denial stands.
local function reserve(key, wait, count, pttl, permits, window, remaining)
  if not count then
    return nil
  end
  if window == 'next' then
    -- Into the next window of a key that holds two already: its count, the next's, the switch.
    redis.call('SET', key, string.format('r%d:%d:%d', count, pttl, permits), 'KEEPTTL')
    return wait, remaining, (redis.call('PTTL', key) + 1) * 1000, permits
  end
  if pttl < 0 then
    return nil
  end
  local switch = clock(ARGS_PER_RULE, 0) + wait
  redis.call('SET', key, string.format('r%d:%d:%d', count, permits, switch), 'PX', pttl + 1 + math.ceil(window / 1000))
  return wait, remaining, wait + window, switch
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
