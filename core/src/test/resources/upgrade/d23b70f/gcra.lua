-- gcra: the generic cell rate algorithm, a token bucket stored as a single timestamp.
--
-- Requests are spaced by an emission interval T = window / limit (rounded up to a whole
-- microsecond, so the rate is never faster than configured). The key holds the theoretical
-- arrival time (TAT): when the client would be "caught up" had it sent at exactly the rate.
-- A request of n permits moves TAT to max(TAT, now) + n*T, and is admitted if the new TAT is no
-- more than burst*T ahead of now. So a fresh client may send `burst` at once, then one per T.
-- Retry-after is the instant the new TAT would be exactly burst*T ahead, which makes a retry at
-- that instant admitted. The rounding is in the answers too: burst*T may pass burst*window/limit
-- by up to burst - 1 microseconds (7 per 60 s: T = 8,571,429, a full burst clears in 60,000,003),
-- and reset and retry-after say that exact instant, never the shorter one a client would be denied
-- at (over HTTP, t=61). One number, O(1), and the TTL is simply TAT - now: when it is reached the
-- client is fully caught up and the key carries no information. The TAT is stored negated: Redis
-- still keeps it as an 8-byte integer, and no other algorithm's state looks like a negative
-- number (fixed-window's count never is), so neither can be taken for the other.
--
-- KEYS[i]: the TAT of rule i.  ARGV[1]: '1' to consume, '0' to peek, 'L...' to consume and lease
-- (limiter-driver.lua).
-- ARGV per rule (3): permits, emission interval in microseconds, burst.
-- check() and commit() are run by limiter-driver.lua, appended when the script is loaded; it
-- returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.
-- Clock: Redis' TIME, unless a last ARGV follows the rules' arguments: then that is now, in
-- microseconds since the epoch. Only tests send it; see limiter-driver.lua.

local ARGS_PER_RULE = 3
local now = clock(ARGS_PER_RULE, 0)
local consume = CONSUMES

local function check(key, permits_arg, interval_arg, burst_arg)
  local permits, interval = tonumber(permits_arg), tonumber(interval_arg)
  local value = redis.pcall('GET', key)
  local stored = type(value) == 'string' and string.match(value, '^%-(%d+)$')
  local tat = now
  if stored then
    tat = math.max(tonumber(stored), now)
  end
  local tolerance = tonumber(burst_arg) * interval
  local new_tat = tat + permits * interval
  local available = math.max(0, math.floor((tolerance - (tat - now)) / interval))
  if new_tat - now > tolerance then
    return 0, available, new_tat - tolerance - now, tat - now, new_tat
  end
  return 1, available, 0, tat - now, math.floor((tolerance - (new_tat - now)) / interval), new_tat
end

local function commit(key, remaining, new_tat)
  redis.call('SET', key, string.format('-%d', new_tat), 'PX', math.max(1, math.ceil((new_tat - now) / 1000)))
  return remaining, new_tat - now, 0
end

-- A delayed admission (limiter-penalty.lua): the TAT the same request would write at the instant it
-- is admitted, now + retry. Then max(TAT, instant) is the TAT (a request no larger than the burst is
-- admitted before the TAT passes), so it writes new_tat, found by check(); the TAT may now run
-- further ahead than the burst, and every later request waits behind it. The receipt is 0 as an
-- admission's: refund.lua moves the TAT back.
local function reserve(key, retry, new_tat)
  redis.call('SET', key, string.format('-%d', new_tat), 'PX', math.max(1, math.ceil((new_tat - now) / 1000)))
  return retry, 0, new_tat - now, 0
end

-- A quota lease of up to `grant` permits for the caller's node, taken as if each were taken at the
-- lease's end: TAT' = max(TAT, now + lifetime) + n*T. The node admits from it before then, and
-- one-by-one admissions at those instants would have moved the TAT no further, so no later
-- decision is ever less strict than it would have been. It lends only what keeps TAT' within the
-- burst (each leased permit would have been admitted), so possibly fewer than asked, or none.
-- The cost: while the TAT is within a lease's life of now (the bucket nearly full), that much of
-- the burst waits. Its receipt is the TAT it wrote: refund.lua moves the TAT back by the rest
-- only while it is still that one.
local function lease(key, grant, lifetime, interval_arg, burst_arg)
  local interval = tonumber(interval_arg)
  local tat = tonumber(string.match(redis.call('GET', key), '^%-(%d+)$'))
  local from = math.max(tat, now + lifetime)
  local granted = math.min(grant, math.floor((tonumber(burst_arg) * interval - (from - now)) / interval))
  if granted <= 0 then
    return 0
  end
  local new_tat = from + granted * interval
  redis.call('SET', key, string.format('-%d', new_tat), 'PX', math.max(1, math.ceil((new_tat - now) / 1000)))
  return granted, lifetime, new_tat, now
end
