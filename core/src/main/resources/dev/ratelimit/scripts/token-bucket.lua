-- token-bucket: a bucket of `burst` tokens, refilled at `limit` tokens per window.
--
-- A hash keeps the tokens (t) and the time they were counted (ts); the refill since then is
-- computed on read, so no timer runs anywhere. A request takes `permits` tokens if the bucket has
-- them. Tokens are integers in units of 1/scale of a permit, with scale = window / gcd(limit,
-- window) and refill = limit / gcd per microsecond: every quantity is an exact integer, so a
-- request retried exactly at its retry-after finds exactly enough tokens (no float drift).
-- A missing key is a full bucket, so the key needs to live only until the bucket would be full
-- again: that is its TTL.
--
-- KEYS[i]: the bucket of rule i.  ARGV[1]: '1' to consume, '0' to peek.
-- ARGV per rule (4): permits, capacity (burst * scale), scale, refill per microsecond.
-- Returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.

local ARGS_PER_RULE = 4
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local consume = ARGV[1] == '1'

local function check(key, permits, capacity, scale, refill)
  local state = redis.call('HMGET', key, 't', 'ts')
  local tokens = capacity
  if state[1] then
    tokens = tonumber(state[1])
    -- Refill only up to full: elapsed * refill could otherwise outgrow exact doubles.
    local elapsed = math.max(0, now - tonumber(state[2]))
    if elapsed >= math.ceil((capacity - tokens) / refill) then
      tokens = capacity
    else
      tokens = tokens + elapsed * refill
    end
  end
  local need = permits * scale
  local available = math.floor(tokens / scale)
  local reset = math.ceil((capacity - tokens) / refill)
  if tokens < need then
    return {0, available, math.ceil((need - tokens) / refill), reset}
  end
  local commit = function()
    local left = tokens - need
    local refill_time = math.ceil((capacity - left) / refill)
    redis.call('HSET', key, 't', left, 'ts', now)
    redis.call('PEXPIRE', key, math.max(1, math.ceil(refill_time / 1000)))
    return math.floor(left / scale), refill_time
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
