-- sliding-log: remember every admitted request for exactly one window.
--
-- A sorted set holds one member per admitted request, whatever its cost, scored by its admission
-- time in microseconds. The member is the running total of permits admitted up to and including
-- that request, so memory grows with requests, not with permits, and no request's cost needs
-- summing: the permits in the window are the newest total minus the total of the newest entry at or
-- before the window's start (the anchor; 0 when there is none). Commits trim everything older than
-- the anchor and keep the anchor itself.
--
-- Scores strictly increase with the totals: a request is stamped now, or one microsecond after the
-- newest entry when that is not earlier (two admissions in one microsecond, or a clock that stepped
-- back after a failover). So a member name is never taken twice, time order is total order, and the
-- limit holds across a clock step.
--
-- When a request is denied, k = count + permits - limit permits must leave first: the entry at
-- which the running total passes anchor + k is the one whose departure makes room, so retry-after
-- is its score + window - now. Exact, whatever the traffic was. Finding it is one ZRANGE when the
-- oldest request in the window suffices (costs of 1), otherwise a binary search by rank; both only
-- on a denial. The admitted path is TIME, two reads of one entry, ZREMRANGEBYSCORE, ZADD and
-- PEXPIRE. The key's TTL is one window from the newest admission.
--
-- Answers are never short of the truth, even past the window: an entry stamped after now leaves the
-- window that much later than now + window, and retry-after and reset-after say so, as its TTL does.
-- Several admissions in one microsecond (a coalesced batch reads TIME once) stamp the newest at most
-- limit - 1 microseconds ahead; a clock that stepped back, by the step; a quota lease's entry, by the
-- lease's life. So a 60 s window may answer 60 s and a few microseconds (61 s in whole seconds), and
-- a client back exactly at its retry-after is admitted. Capping at the window would tell it a time
-- at which it is denied.
--
-- Totals are exact in Lua's doubles below 2^53. A log whose window runs empty starts again from 0;
-- one that never empties (limits near the 2^50 bound) is rebased, every total lowered by the
-- anchor's, before its newest total would pass 2^52.
--
-- KEYS[i]: the log of rule i.  ARGV[1]: '1' to consume, '0' to peek, 'L...' to consume and lease
-- (limiter-driver.lua).
-- ARGV per rule (3): permits, limit, window in microseconds.
-- check() and commit() are run by limiter-driver.lua, appended when the script is loaded; it
-- returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.
-- Clock: Redis' TIME, unless a last ARGV follows the rules' arguments: then that is now, in
-- microseconds since the epoch. Only tests send it; see limiter-driver.lua.

local ARGS_PER_RULE = 3
local now = clock(ARGS_PER_RULE, 0)
local consume = CONSUMES
local REBASE_AT = 4503599627370496 -- 2^52
local ADD_BATCH = 1000

-- string.format, not '..' or a bare number: concatenation prints 16-digit values as %.14g.
local function int(value)
  return string.format('%d', value)
end

-- The log's newest total and score, and the anchor's total and score (0, false without one).
-- Returns nothing when the key holds something else: another algorithm's state, WRONGTYPE
-- included, or a log of an older format, is no state (limiter-driver.lua says why).
local function read(key, window)
  local newest = redis.pcall('ZRANGE', key, -1, -1, 'WITHSCORES')
  if newest.err then
    return
  end
  if #newest == 0 then
    return 0, false, 0, false
  end
  local total = tonumber(newest[1])
  if not total then
    return
  end
  local anchor = redis.call('ZREVRANGEBYSCORE', key, int(now - window), '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
  local base, anchor_at = 0, false
  if #anchor == 2 then
    base, anchor_at = tonumber(anchor[1]), tonumber(anchor[2])
    if not base then
      return
    end
  end
  return total, tonumber(newest[2]), base, anchor_at
end

-- The score of the oldest entry in the window whose running total reaches `target`.
local function reaching(key, target, window)
  local lo = redis.call('ZCOUNT', key, '-inf', int(now - window))
  local first = redis.call('ZRANGE', key, lo, lo, 'WITHSCORES')
  if tonumber(first[1]) >= target then
    return tonumber(first[2])
  end
  lo = lo + 1
  local hi = redis.call('ZCARD', key) - 1
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if tonumber(redis.call('ZRANGE', key, mid, mid)[1]) >= target then
      hi = mid
    else
      lo = mid + 1
    end
  end
  return tonumber(redis.call('ZRANGE', key, lo, lo, 'WITHSCORES')[2])
end

local function check(key, permits_arg, limit_arg, window_arg)
  local permits, limit, window = tonumber(permits_arg), tonumber(limit_arg), tonumber(window_arg)
  local total, newest_at, base, anchor_at = read(key, window)
  local count = 0
  if total and newest_at and newest_at > now - window then
    count = total - base
  end
  local reset = 0
  if count > 0 and (not consume or count + permits > limit) then
    -- Only a peek or a denial reports the reset before this request; an admission reports its own.
    reset = newest_at + window - now
  end
  if count + permits > limit then
    -- A request larger than the limit never fits; the caller refuses it before asking (RateLimiter).
    local retry = reset
    if count > 0 and permits <= limit then
      retry = reaching(key, base + count + permits - limit, window) + window - now
    end
    return 0, math.max(0, limit - count), retry, reset, total, newest_at, permits, window
  end
  if count == 0 then
    -- An empty window, a foreign key or none: the log starts again from a total of 0.
    return 1, limit - count, 0, reset, limit - permits, permits, window, now, false
  end
  return 1, limit - count, 0, reset, limit - count - permits, total + permits, window,
      math.max(now, newest_at + 1), anchor_at or 0
end

-- Rewrites the log with every total lowered by the anchor's (its first entry, once trimmed),
-- dropping the anchor; returns the amount subtracted.
local function rebase(key)
  local entries = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local base = tonumber(entries[1])
  redis.call('DEL', key)
  local members = {}
  for i = 3, #entries, 2 do
    members[#members + 1] = entries[i + 1]
    members[#members + 1] = int(tonumber(entries[i]) - base)
    if #members == 2 * ADD_BATCH or i + 2 > #entries then
      redis.call('ZADD', key, unpack(members))
      members = {}
    end
  end
  return base
end

-- trim: false to start a new log, 0 when there is no anchor, else the anchor's score.
local function commit(key, remaining, new_total, window, stamp, trim)
  if not trim then
    redis.call('DEL', key)
  elseif trim ~= 0 then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. int(trim))
  end
  if trim and trim ~= 0 and new_total > REBASE_AT then
    new_total = new_total - rebase(key)
  end
  redis.call('ZADD', key, int(stamp), int(new_total))
  local left = stamp + window - now
  redis.call('PEXPIRE', key, math.ceil(left / 1000))
  -- The receipt is the entry's score, unique in the log: refund.lua removes that entry.
  return remaining, left, stamp
end

-- A delayed admission (limiter-penalty.lua): an entry of the request's permits stamped at the instant
-- it is admitted, now + retry (or just after the newest entry, should that be later), which is the
-- entry the same request would add then. Entries ahead of now count in the window at once, so
-- every later request waits behind this one. The receipt is the entry's score, as an admission's.
local function reserve(key, retry, total, newest_at, permits, window)
  local stamp = math.max(now + retry, newest_at + 1)
  if stamp - now > DELAY_MAX or total + permits > REBASE_AT then
    return nil
  end
  redis.call('ZADD', key, int(stamp), int(total + permits))
  redis.call('PEXPIRE', key, math.ceil((stamp + window - now) / 1000))
  return stamp - now, 0, stamp + window - now, stamp
end

-- A quota lease of `grant` permits for the caller's node: one entry of those permits, stamped at the
-- end of the lease (now + lifetime, or after the newest entry), not now. The node admits from it
-- before that instant, so each permit it admits leaves the log no earlier than it would have,
-- decided one by one: the log may count a leased permit a little longer, never shorter. The
-- receipt is the entry's score: refund.lua takes back what the node did not use.
local function lease(key, grant, lifetime, _, window_arg)
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  local stamp = math.max(now + lifetime, tonumber(newest[2]) + 1)
  redis.call('ZADD', key, int(stamp), int(tonumber(newest[1]) + grant))
  redis.call('PEXPIRE', key, math.ceil((stamp + tonumber(window_arg) - now) / 1000))
  return grant, lifetime, stamp, now
end
