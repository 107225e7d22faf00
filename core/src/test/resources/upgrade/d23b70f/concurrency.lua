-- concurrency: at most `limit` requests of one client in flight at once, on every node together.
--
-- A sorted set holds one member per request being served: its lease id (made by the limiter,
-- "lease:<node>:<n>", unique across nodes), scored by the instant in microseconds at which the
-- lease expires, admission + window. The window is not a rate here but the lease timeout: a node
-- that crashed or hangs never releases, so its leases stop counting once they expire.
-- concurrency-release.lua (ZREM) gives a lease back when its request ends.
--
-- An acquire drops the expired leases, counts the rest and adds its own if there is room; the key's
-- TTL is then the longest lease's, so a client that stops sending leaves nothing behind once every
-- lease it held has expired. A denial writes nothing. Its retry-after is the earliest lease's expiry
-- (then a place is certainly free) but at least one second: requests usually end long before their
-- lease would expire, and a client told "retry in 0" would only knock again at once. So unlike the
-- rate algorithms, a retry at retry-after is not promised to be the first instant that is admitted.
-- remaining is limit - leases held; reset_after is the time until the last lease expires.
--
-- Each request holds exactly one lease (Rule and RateLimiter refuse other costs and permits), and
-- a limiter holds one concurrency rule (RateLimiterBuilder says why).
--
-- KEYS[i]: the leases of rule i.  ARGV[1]: '1' to acquire, '0' to peek.
-- ARGV per rule (3): permits (1), limit, lease timeout (window) in microseconds.
-- After the rules: the lease id to add (ignored by a peek).
-- check() and commit() are run by limiter-driver.lua, appended when the script is loaded; it
-- returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- Clock: Redis' TIME, unless one more ARGV follows the lease id: then that is now, in microseconds
-- since the epoch. Only tests send it; see limiter-driver.lua.
--
-- Another algorithm's state under the key (a string, or sliding-log's sorted set of totals, whose
-- members are numbers, never "lease:...") is no state; an acquire replaces it.

local ARGS_PER_RULE = 3
local lease = ARGV[2 + #KEYS * ARGS_PER_RULE]
local now = clock(ARGS_PER_RULE, 1)
local consume = CONSUMES
local MIN_RETRY = 1000000

-- string.format, not '..' or a bare number: concatenation prints 16-digit values as %.14g.
local function int(value)
  return string.format('%d', value)
end

-- Leases still held at now, the earliest and the latest expiry among them (0 when none), and
-- whether the key holds something else, to be replaced.
local function read(key)
  local latest = redis.pcall('ZRANGE', key, -1, -1, 'WITHSCORES')
  if latest.err then
    return 0, 0, 0, true
  end
  if #latest == 0 then
    return 0, 0, 0, false
  end
  if string.sub(latest[1], 1, 6) ~= 'lease:' then
    return 0, 0, 0, true
  end
  local last = tonumber(latest[2])
  if last <= now then
    return 0, 0, 0, false
  end
  local held = redis.call('ZCOUNT', key, '(' .. int(now), '+inf')
  local first = redis.call('ZRANGEBYSCORE', key, '(' .. int(now), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  return held, tonumber(first[2]), last, false
end

local function check(key, permits_arg, limit_arg, window_arg)
  local permits, limit, window = tonumber(permits_arg), tonumber(limit_arg), tonumber(window_arg)
  local held, first, last, foreign = read(key)
  local reset = 0
  if held > 0 then
    reset = last - now
  end
  if held + permits > limit then
    return 0, limit - held, math.max(MIN_RETRY, first - now), reset
  end
  return 1, limit - held, 0, reset, limit - held - permits, now + window, math.max(last, now + window), foreign
end

-- expires: when the new lease expires; longest: when the longest lease, the new one included, does.
local function commit(key, remaining, expires, longest, foreign)
  if foreign then
    redis.call('DEL', key)
  else
    redis.call('ZREMRANGEBYSCORE', key, '-inf', int(now))
  end
  redis.call('ZADD', key, int(expires), lease)
  redis.call('PEXPIRE', key, math.ceil((longest - now) / 1000))
  return remaining, longest - now
end
