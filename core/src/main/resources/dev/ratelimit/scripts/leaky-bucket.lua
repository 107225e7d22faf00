-- leaky-bucket: a bucket of size `burst` that drains at `limit` permits per window (as a meter).
--
-- Each admitted permit pours one unit in; the bucket leaks continuously; a request that would
-- overflow is denied and pours nothing. A hash keeps the level (l) and when it was measured (ts);
-- the leak since then is computed on read. This is the policing form of the leaky bucket: it
-- decides at once rather than queueing, so callers that want the smoothing form wait for
-- retry-after (RateLimiter.acquire does).
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

local function check(key, permits, capacity, scale, leak)
  local state = redis.call('HMGET', key, 'l', 'ts')
  local level = 0
  if state[1] then
    level = tonumber(state[1])
    local elapsed = math.max(0, now - tonumber(state[2]))
    if elapsed >= math.ceil(level / leak) then
      level = 0
    else
      level = level - elapsed * leak
    end
  end
  local pour = permits * scale
  local available = math.floor((capacity - level) / scale)
  local reset = math.ceil(level / leak)
  if level + pour > capacity then
    return {0, available, math.ceil((level + pour - capacity) / leak), reset}
  end
  local commit = function()
    local filled = level + pour
    local drain_time = math.ceil(filled / leak)
    redis.call('HSET', key, 'l', filled, 'ts', now)
    redis.call('PEXPIRE', key, math.max(1, math.ceil(drain_time / 1000)))
    return math.floor((capacity - filled) / scale), drain_time
  end
  return {1, available, 0, reset, commit}
end

local results, all_allowed = {}, 1
for i = 1, #KEYS do
  local a = 2 + (i - 1) * ARGS_PER_RULE
  results[i] = check(KEYS[i], tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]),
    tonumber(ARGV[a + 3]))
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
