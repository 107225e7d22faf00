-- limiter-penalty: the penalty box (Rule.penalty), the mode every limiter script reads, and what a
-- delayed admission (maxDelay) is told.
--
-- LuaScript.limiter() puts this file first, before limiter-clock.lua, so that the clock, the
-- algorithm and the driver read the call's mode from here: ARGV[1] is '1' to consume, '0' to peek,
-- 'L<permits>:<lifetime_us>' to consume and lease (limiter-driver.lua), for a rule with a
-- penalty '1P<ms>' to consume and '0P<ms>' to peek, or '1D<max_us>' to consume or, when the request
-- is over the limit but its permits free up within <max_us>, reserve them for that instant (below). With a penalty the call carries, after the keys
-- of its decisions, as many keys again: KEYS[RULE_KEYS + i] is the penalty box of KEYS[i]
-- (RedisKeys.penaltyBox, '<key>:{penalty}', in the key's hash slot).
--
-- The box: a denial that finds the client over its limit while consuming puts it in the box for
-- <ms>: the box holds the instant the penalty ends (microseconds, on the script's clock) and expires
-- then (PX). Every decision of a boxed client is denied until that instant, writing nothing, so a
-- denial in the box does not extend it; its retry-after is the penalty left, or the algorithm's own
-- retry-after when that is later (then the client, back at the end of its penalty, would be over
-- its limit again and boxed anew). The denial that opens the box is the one case where a denial
-- writes. A peek reads the box and writes nothing.
--
-- penalty_box() answers with the decision's first reply value: PENALIZED for the denial that put
-- the client in the box, IN_BOX for one while it is there (Java counts them apart), or nil when the
-- box has no say and the algorithm decides as without a penalty.

local PENALTY_MS = tonumber(string.match(ARGV[1], '^[01]P(%d+)$'))
-- A delayed admission (RateLimiter.tryAcquire(key, maxDelay)): a request over the limit whose
-- permits free up within DELAY_MAX microseconds is not denied. The call that finds it over the limit
-- takes them for the instant they free up, written exactly as the admission of the same request at
-- that instant would write them, and answers {DELAYED, 1, remaining, wait_us, reset_after_us,
-- receipt}: the caller must not act on it before wait_us has passed. The algorithm's
-- reserve(key, retry_us, denial values of check()...) does the writing and returns wait_us (at least
-- retry_us; nil when that is past DELAY_MAX: the denial stands), remaining and reset_after_us as they
-- are at that instant, and the receipt a refund needs. Only algorithms that define reserve() take it.
local DELAY_MAX = tonumber(string.match(ARGV[1], '^1D(%d+)$'))
local reserve
-- The keys of decisions (or rules): all of KEYS but the penalty boxes that follow them.
local RULE_KEYS = PENALTY_MS and #KEYS / 2 or #KEYS
-- Whether the call takes permits: '1', '1P...' and 'L...' do, '0' and '0P...' only look.
local CONSUMES = string.sub(ARGV[1], 1, 1) ~= '0'
local PENALIZED, IN_BOX, DELAYED = 2, 3, 4

local function penalty_box(box, now, allowed, retry, reset)
  local ends = tonumber(redis.call('GET', box))
  if ends and ends > now then
    local left = ends - now
    return IN_BOX, math.max(left, allowed == 1 and 0 or retry), math.max(left, reset)
  end
  if allowed == 0 and CONSUMES then
    local penalty = PENALTY_MS * 1000
    redis.call('SET', box, string.format('%d', now + penalty), 'PX', PENALTY_MS)
    return PENALIZED, math.max(penalty, retry), math.max(penalty, reset)
  end
  return nil
end
