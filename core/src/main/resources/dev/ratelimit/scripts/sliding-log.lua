-- sliding-log: remember every admitted permit for exactly one window.
--
-- A sorted set holds one member per admitted permit, scored by its admission time in
-- microseconds. The permits in the window are those scored after now - window, counted with
-- ZCOUNT so that a denial reads and writes nothing. When a request is denied, the k-th oldest
-- entry in the window (k = count + permits - limit) is the one that must leave before the request
-- fits, so retry-after is its score + window - now: exact, whatever the traffic was.
--
-- Scores never go backwards and members never repeat: a permit is stamped
-- max(now, newest + 1) and named "<stamp>-<n>", so two requests in one microsecond (or a Redis
-- clock that stepped back after a failover) cannot overwrite each other and under-count.
-- Expired members are trimmed on each admission, so memory stays O(limit), and the key's TTL is
-- the time until its newest member leaves the window.
--
-- KEYS[i]: the log of rule i.  ARGV[1]: '1' to consume, '0' to peek.
-- ARGV per rule (3): permits, limit, window in microseconds.
-- Returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.

local ARGS_PER_RULE = 3
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local consume = ARGV[1] == '1'

local function check(key, permits, limit, window)
  -- string.format, not '..': concatenation would print 16-digit stamps as %.14g and lose them.
  local oldest_kept = string.format('(%d', now - window)
  local count = redis.call('ZCOUNT', key, oldest_kept, '+inf')
  local newest = 0
  local reset = 0
  if count > 0 then
    newest = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
    reset = newest + window - now
  end
  if count + permits > limit then
    local k = count + permits - limit
    local entry = redis.call('ZRANGEBYSCORE', key, oldest_kept, '+inf', 'WITHSCORES', 'LIMIT', k - 1, 1)
    return {0, limit - count, tonumber(entry[2]) + window - now, reset}
  end
  local commit = function()
    local stamp = math.max(now, newest + 1)
    local members = {}
    for n = 1, permits do
      table.insert(members, stamp)
      table.insert(members, string.format('%d-%d', stamp, n))
    end
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
    redis.call('ZADD', key, unpack(members))
    local left = stamp + window - now
    redis.call('PEXPIRE', key, math.ceil(left / 1000))
    return limit - count - permits, left
  end
  return {1, limit - count, 0, reset, commit}
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
