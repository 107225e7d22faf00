-- sliding-window: two counters, the previous window's weighted by how much of it still overlaps.
--
-- Windows are aligned to multiples of the window length since the Unix epoch. One string keeps
-- the current window's number, its count and the previous window's count, "w<w> <c> <p>" (GET
-- and SET PX: two commands, where a hash needs three). The estimate of permits in the last
-- window-long interval is p * (time left in the current window / window) + c, which assumes the
-- previous window's requests were spread evenly. That is O(1) memory per client instead of
-- O(limit), at the price of exactness: within one window it admits exactly `limit`; in the worst
-- case (the previous window's requests all at its very end) an interval of one window can see up
-- to twice the limit.
--
-- The key lives until the end of the next window, the last moment its count still weighs.
--
-- KEYS[i]: the counters of rule i.  ARGV[1]: '1' to consume, '0' to peek.
-- ARGV per rule (3): permits, limit, window in microseconds.
-- check() and commit() are run by limiter-driver.lua, appended when the script is loaded; it
-- returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.
-- Clock: Redis' TIME, unless a last ARGV follows the rules' arguments: then that is now, in
-- microseconds since the epoch. Only tests send it; see limiter-driver.lua.

local ARGS_PER_RULE = 3
local now = clock(ARGS_PER_RULE, 0)
local consume = CONSUMES

local function check(key, permits_arg, limit_arg, window_arg)
  local permits, limit, window = tonumber(permits_arg), tonumber(limit_arg), tonumber(window_arg)
  local index = math.floor(now / window)
  local stored, stored_count, stored_previous
  local value = redis.pcall('GET', key)
  if type(value) == 'string' then
    stored, stored_count, stored_previous = string.match(value, '^w(%d+) (%d+) (%d+)$')
    stored = tonumber(stored)
  end
  local current, previous = 0, 0
  if stored == index - 1 then
    previous = tonumber(stored_count)
  elseif stored ~= nil and stored >= index then
    -- The same window, or a Redis clock that stepped back: keep counting where we were.
    index = stored
    current, previous = tonumber(stored_count), tonumber(stored_previous)
  end
  local elapsed = math.max(0, now - index * window)
  local estimate = previous * (window - elapsed) / window + current
  local reset = 0
  if current > 0 then
    reset = 2 * window - elapsed
  elseif previous > 0 then
    reset = window - elapsed
  end
  local available = math.floor(limit - estimate)
  if estimate + permits > limit then
    local retry
    if current + permits <= limit then
      -- Later in this window the previous count weighs little enough.
      retry = window - (limit - current - permits) * window / previous - elapsed
    else
      -- Only in the next window, when this window's count becomes the weighted previous one.
      retry = (window - elapsed) + window - (limit - permits) * window / current
    end
    -- One microsecond on top: the estimate is a fraction and must be past the bound, not at it.
    return 0, available, math.ceil(retry) + 1, math.ceil(reset)
  end
  return 1, available, 0, math.ceil(reset), math.floor(limit - estimate - permits),
    math.ceil(2 * window - elapsed), index, current + permits, previous
end

local function commit(key, remaining, reset, index, current, previous)
  redis.call('SET', key, string.format('w%d %d %d', index, current, previous), 'PX', math.ceil(reset / 1000))
  -- The receipt is the window's number: refund.lua gives back only while it is current.
  return remaining, reset, index
end
