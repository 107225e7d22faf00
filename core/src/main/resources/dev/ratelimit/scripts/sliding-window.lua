-- sliding-window: two counters, the previous window's weighted by how much of it still overlaps.
--
-- Windows are aligned to multiples of the window length since the Unix epoch. A hash keeps the
-- current window's number (w), its count (c) and the previous window's count (p). The estimate
-- of permits in the last window-long interval is p * (time left in the current window / window)
-- + c, which assumes the previous window's requests were spread evenly. That is O(1) memory per
-- client instead of O(limit), at the price of exactness: within one window it admits exactly
-- `limit`; in the worst case (the previous window's requests all at its very end) an interval of
-- one window can see up to twice the limit.
--
-- The key lives until the end of the next window, the last moment its count still weighs.
--
-- KEYS[i]: the counters of rule i.  ARGV[1]: '1' to consume, '0' to peek.
-- ARGV per rule (3): permits, limit, window in microseconds.
-- Returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.

local ARGS_PER_RULE = 3
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local consume = ARGV[1] == '1'

local function check(key, permits, limit, window)
  local index = math.floor(now / window)
  local state = redis.call('HMGET', key, 'w', 'c', 'p')
  local stored = tonumber(state[1])
  local current, previous = 0, 0
  if stored == index - 1 then
    previous = tonumber(state[2])
  elseif stored ~= nil and stored >= index then
    -- The same window, or a Redis clock that stepped back: keep counting where we were.
    index = stored
    current, previous = tonumber(state[2]), tonumber(state[3])
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
    return {0, available, math.ceil(retry) + 1, reset}
  end
  local commit = function()
    redis.call('HSET', key, 'w', index, 'c', current + permits, 'p', previous)
    redis.call('PEXPIRE', key, math.ceil((2 * window - elapsed) / 1000))
    return math.floor(limit - estimate - permits), 2 * window - elapsed
  end
  return {1, available, 0, reset, commit}
end

local results, all_allowed = {}, 1
for i = 1, #KEYS do
  local a = 2 + (i - 1) * ARGS_PER_RULE
  results[i] = check(KEYS[i], tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]))
  if results[i][1] == 0 then all_allowed = 0 end
end
local reply = {all_allowed}
for i = 1, #KEYS do
  local r = results[i]
  local remaining, reset = r[2], r[4]
  if all_allowed == 1 and consume then remaining, reset = r[5]() end
  table.insert(reply, r[1]); table.insert(reply, remaining)
  table.insert(reply, r[3]); table.insert(reply, math.ceil(reset))
end
return reply
