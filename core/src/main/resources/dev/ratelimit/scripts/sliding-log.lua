-- sliding-log: remember every admitted permit for exactly one window.
--
-- A sorted set holds one member per admitted permit, scored by its admission time in
-- microseconds. The permits in the window are those scored after now - window, counted with
-- ZCOUNT so that a denial reads and writes nothing. When a request is denied, the k-th oldest
-- entry in the window (k = count + permits - limit) is the one that must leave before the request
-- fits, so retry-after is its score + window - now: exact, whatever the traffic was.
--
-- Members never repeat, so the log can never under-count: a permit is named "<stamp>-<n>" and
-- added with ZADD NX. Redis' clock gives every script its own microsecond, so the stamp is simply
-- now; if a name is taken anyway (the clock stepped back after a failover), NX reports it and the
-- missing permits are stamped after the newest entry instead. Reading the newest entry only then,
-- and on denials, keeps the admitted path at TIME, ZCOUNT, ZREMRANGEBYSCORE, ZADD and PEXPIRE.
-- Expired members are trimmed on each admission, so memory stays O(limit), and the key's TTL is
-- one window from the newest admission.
--
-- KEYS[i]: the log of rule i.  ARGV[1]: '1' to consume, '0' to peek.
-- ARGV per rule (3): permits, limit, window in microseconds.
-- check() and commit() are run by limiter-driver.lua, appended when the script is loaded; it
-- returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.
-- Clock: Redis' TIME, unless a last ARGV follows the rules' arguments: then that is now, in
-- microseconds since the epoch. Only tests send it; see limiter-driver.lua.

local ARGS_PER_RULE = 3
local now
if #ARGV > 1 + #KEYS * ARGS_PER_RULE then
  now = tonumber(ARGV[#ARGV])
else
  local t = redis.call('TIME')
  now = t[1] * 1000000 + t[2]
end
local consume = ARGV[1] == '1'
local ADD_BATCH = 1000

local function newest(key)
  return tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
end

-- Adds `permits` members stamped `stamp`; returns how many were new.
local function add(key, stamp, permits)
  -- string.format, not '..': concatenation would print 16-digit stamps as %.14g and lose them.
  if permits == 1 then
    return redis.call('ZADD', key, 'NX', stamp, string.format('%d-1', stamp))
  end
  -- In batches: unpack() of more than a few thousand values fails (Lua's C stack), so one ZADD
  -- per batch of at most ADD_BATCH members keeps any cost exact.
  local added, first = 0, 1
  while first <= permits do
    local last = math.min(permits, first + ADD_BATCH - 1)
    local members = {}
    for n = first, last do
      local at = 2 * (n - first)
      members[at + 1], members[at + 2] = stamp, string.format('%d-%d', stamp, n)
    end
    added = added + redis.call('ZADD', key, 'NX', unpack(members))
    first = last + 1
  end
  return added
end

local function check(key, permits_arg, limit_arg, window_arg)
  local permits, limit, window = tonumber(permits_arg), tonumber(limit_arg), tonumber(window_arg)
  local oldest_kept = string.format('(%d', now - window)
  -- WRONGTYPE is another algorithm's state: no permits logged (limiter-driver.lua says why).
  local count = redis.pcall('ZCOUNT', key, oldest_kept, '+inf')
  local foreign = type(count) ~= 'number'
  if foreign then
    count = 0
  end
  local reset = 0
  if count > 0 and (not consume or count + permits > limit) then
    -- Only a peek or a denial reports the reset before this request; an admission reports its own.
    reset = newest(key) + window - now
  end
  if count + permits > limit then
    local k = count + permits - limit
    local entry = redis.call('ZRANGEBYSCORE', key, oldest_kept, '+inf', 'WITHSCORES', 'LIMIT', k - 1, 1)
    return 0, limit - count, tonumber(entry[2]) + window - now, reset
  end
  return 1, limit - count, 0, reset, limit - count - permits, permits, window, foreign
end

local function commit(key, remaining, permits, window, foreign)
  if foreign then
    redis.call('DEL', key)
  else
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  end
  local stamp = now
  local added = add(key, stamp, permits)
  if added < permits then
    stamp = math.max(now, newest(key) + 1)
    add(key, stamp, permits - added)
  end
  local left = stamp + window - now
  redis.call('PEXPIRE', key, math.ceil(left / 1000))
  return remaining, left
end
