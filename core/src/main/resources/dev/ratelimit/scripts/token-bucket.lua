-- token-bucket: a bucket of `burst` tokens, refilled at `limit` tokens per window.
--
-- One string keeps the tokens and the time they were counted, "<tokens> <microseconds>"; the
-- refill since then is computed on read, so no timer runs anywhere. (A string, not a hash: GET and
-- SET PX are two commands where HMGET, HSET and PEXPIRE are three, and it is smaller.) A request takes `permits` tokens if the bucket has
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

local function check(key, permits_arg, capacity_arg, scale_arg, refill_arg)
  local capacity, scale, refill = tonumber(capacity_arg), tonumber(scale_arg), tonumber(refill_arg)
  local stored = redis.call('GET', key)
  local tokens = capacity
  if stored then
    local counted, at = string.match(stored, '^(%d+) (%d+)$')
    tokens = tonumber(counted)
    -- Refill only up to full: elapsed * refill could otherwise outgrow exact doubles.
    local elapsed = math.max(0, now - tonumber(at))
    if elapsed >= math.ceil((capacity - tokens) / refill) then
      tokens = capacity
    else
      tokens = tokens + elapsed * refill
    end
  end
  local need = tonumber(permits_arg) * scale
  local available = math.floor(tokens / scale)
  local reset = math.ceil((capacity - tokens) / refill)
  if tokens < need then
    return 0, available, math.ceil((need - tokens) / refill), reset
  end
  local left = tokens - need
  return 1, available, 0, reset, math.floor(left / scale), left, math.ceil((capacity - left) / refill)
end

local function commit(key, remaining, left, refill_time)
  redis.call('SET', key, string.format('%d %d', left, now), 'PX', math.max(1, math.ceil(refill_time / 1000)))
  return remaining, refill_time
end

-- The driver, the same in every limiter script (Redis scripts cannot share code). check() reads a
-- rule's state and returns allowed, remaining, retry_after_us, reset_after_us, then what commit()
-- needs (at most five values); commit() writes and returns remaining and reset_after_us after the
-- request. One rule, the common case, builds no table but the reply, and nothing anywhere builds
-- closures: both cost Redis CPU on every call. Several rules are all or nothing: every rule is
-- checked before any is committed.
if #KEYS == 1 then
  local allowed, remaining, retry, reset, s1, s2, s3, s4, s5 = check(KEYS[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
  if allowed == 1 and consume then remaining, reset = commit(KEYS[1], s1, s2, s3, s4, s5) end
  return {allowed, allowed, remaining, retry, reset}
end
local checked, all_allowed = {}, 1
for i = 1, #KEYS do
  local a = 2 + (i - 1) * ARGS_PER_RULE
  checked[i] = {check(KEYS[i], unpack(ARGV, a, a + ARGS_PER_RULE - 1))}
  if checked[i][1] == 0 then all_allowed = 0 end
end
local reply = {all_allowed}
for i, r in ipairs(checked) do
  local remaining, reset = r[2], r[4]
  if all_allowed == 1 and consume then remaining, reset = commit(KEYS[i], unpack(r, 5)) end
  local at = 4 * i - 2
  reply[at], reply[at + 1], reply[at + 2], reply[at + 3] = r[1], remaining, r[3], reset
end
return reply
