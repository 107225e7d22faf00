-- calendar-window: one counter per client and calendar period (a day, a week, a month in a time zone).
--
-- Time zones and their daylight-saving rules are Java's, not Lua's: the client sends four
-- consecutive period starts around its own clock (previous, current, next, following, in
-- microseconds), and the script counts in the period that holds Redis' time, so the application
-- servers' clocks only need to be right to within a period. The counter is the string
-- 'c<period start>:<count>', expiring when its period ends; a counter of another period (or any
-- other value: another algorithm's state) is no count. A request is admitted while
-- count + permits <= limit; a denial's retry-after, and any reset, is the end of the period.
--
-- KEYS[i]: the counter of rule i.  ARGV[1]: '1' to consume, '0' to peek.
-- ARGV per rule (3): permits, limit, 'b0,b1,b2,b3' (period starts in microseconds).
-- check() and commit() are run by limiter-driver.lua, appended when the script is loaded; it
-- returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.
-- Clock: Redis' TIME, unless a last ARGV follows the rules' arguments: then that is now, in
-- microseconds since the epoch. Only tests send it; see limiter-driver.lua.

local ARGS_PER_RULE = 3
local now = clock(ARGS_PER_RULE, 0)
local consume = CONSUMES

-- The start and end of the period holding now, from the client's period starts.
local function period(starts)
  local previous
  for start in string.gmatch(starts, '%d+') do
    local at = tonumber(start)
    if previous and now >= previous and now < at then
      return previous, at
    end
    previous = at
  end
  error({err = 'ERR calendar periods ' .. starts .. ' do not hold Redis time ' .. string.format('%d', now)
      .. ': the application server clock is off by more than a period'})
end

local function check(key, permits_arg, limit_arg, starts)
  local permits, limit = tonumber(permits_arg), tonumber(limit_arg)
  local start, finish = period(starts)
  local count = 0
  local value = redis.pcall('GET', key)
  if type(value) == 'string' then
    local counted_start, counted = string.match(value, '^c(%d+):(%d+)$')
    if counted_start and tonumber(counted_start) == start then
      count = tonumber(counted)
    end
  end
  local left = finish - now
  local reset = 0
  if count > 0 then
    reset = left
  end
  if count + permits > limit then
    return 0, limit - count, left, reset
  end
  return 1, limit - count, 0, reset, limit - count - permits, count + permits, start, left
end

local function commit(key, remaining, count, start, left)
  -- string.format: concatenation would print 16-digit microseconds as %.14g.
  redis.call('SET', key, string.format('c%d:%d', start, count), 'PX', math.ceil(left / 1000))
  -- The receipt is the period: refund.lua gives back only within it.
  return remaining, left, start
end
