-- fixed-window: one counter per client, living exactly one window.
--
-- The first admitted request creates the counter with a TTL of one window (SET ... PX), so the
-- window starts with the client's first request and ends when Redis expires the key; there is no
-- separate "window start" to drift. A request is admitted while count + permits <= limit. Its
-- retry-after is read from the key's PTTL: Redis deletes a key once its clock has passed the
-- expiry millisecond, so PTTL + 1 ms is the first instant the window is certainly gone.
-- That expiry is Redis' clock, so this script needs no TIME call: one command less per decision.
--
-- KEYS[i]: the counter of rule i.  ARGV[1]: '1' to consume, '0' to peek.
-- ARGV per rule (3): permits, limit, window in microseconds.
-- Returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.

local ARGS_PER_RULE = 3
local consume = ARGV[1] == '1'

local function check(key, permits, limit, window)
  local count = tonumber(redis.call('GET', key) or '0')
  local pttl = redis.call('PTTL', key)
  local left = 0
  if pttl >= 0 then
    left = (pttl + 1) * 1000
  end
  if count + permits > limit then
    return {0, limit - count, left, left}
  end
  local commit = function()
    if pttl < 0 then
      -- A new window (or a counter that lost its TTL): start it, TTL and value in one command.
      redis.call('SET', key, permits, 'PX', math.ceil(window / 1000))
      left = window
    else
      redis.call('INCRBY', key, permits)
    end
    return limit - count - permits, left
  end
  return {1, limit - count, 0, left, commit}
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
  table.insert(reply, r[3]); table.insert(reply, reset)
end
return reply
