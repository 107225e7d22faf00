-- limiter-driver: runs an algorithm's check() and commit() for every rule of one decision.
--
-- Redis scripts cannot include one another, so LuaScript.limiter() appends this file to each
-- algorithm's script when it is loaded; Redis knows the whole by one SHA-1. The algorithm's part
-- defines ARGS_PER_RULE, consume (ARGV[1] == '1'), and:
--   check(key, args...)  reads the rule's state; returns allowed, remaining, retry_after_us,
--                        reset_after_us, then at most five values for commit(). Writes nothing.
--   commit(key, ...)     takes those values, writes, and returns remaining and reset_after_us
--                        after the request, and the admission's receipt: what refund.lua needs to
--                        find this admission's permits again (a window, a period, a log entry's
--                        score; 0 for the buckets and gcra, whose refund needs none).
-- One rule, the common case, builds no table but the reply; nothing anywhere builds closures: both
-- cost Redis CPU on every call. Several rules are all or nothing: every rule is checked before any
-- is committed, and nothing is committed on a peek.
--
-- Returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}, and
-- after an admission that consumed, one receipt per rule at the end (peeks and denials keep the
-- short reply: only an admission can be refunded).
--
-- Quota leases: ARGV[1] = 'L<permits>:<lifetime_us>' consumes as '1' does and, for one key, when the
-- admission leaves room, also takes up to <permits> more for the caller's node, at most a quarter
-- of what is left (so near the limit no lease is taken, and nodes never lease out a limit at
-- once). The algorithm's lease(key, grant, lifetime_us, rule args after permits...) writes them as
-- taken and returns how many it lent (it may lend fewer, to stay exact), how long the node may admit
-- from them, the receipt that gives back what it did not use, and the instant it lent them (which
-- tells refund.lua whether the client was reset since).
-- The reply then ends with {grant, lease_us, lease_receipt, lent_at_us} after the admission's receipt.
--
-- Penalty box (limiter-penalty.lua): with a penalty the call has one rule, its key and then its
-- penalty box. A boxed client, or a denial that boxes it, is answered {PENALIZED or IN_BOX, 0, 0,
-- retry_after_us, reset_after_us} before anything else is decided; several rules with a penalty are
-- refused (RateLimiterBuilder refuses them first).
--
-- Delayed admissions (limiter-penalty.lua): with '1D<max_us>' the call has one rule, and a denial
-- whose permits free up within max_us becomes {DELAYED, 1, remaining, wait_us, reset_after_us,
-- receipt} through the algorithm's reserve(); several rules, or an algorithm without reserve(), are
-- refused (the Java side refuses them first).
--
-- Clock seam, for tests: one ARGV more than 1 + RULE_KEYS * ARGS_PER_RULE (the rules' keys, penalty
-- boxes not counted) is `now` (microseconds), read
-- by the script instead of TIME so a test can run it at exact instants. LuaEvaluator never sends it.
--
-- A policy switched to another algorithm in place finds the old algorithm's state under its keys.
-- Each script knows its own state only (a string tagged "t", "l" or "w" for the buckets and
-- sliding-window, a negative integer for gcra, a plain one for fixed-window, a sorted set for
-- sliding-log) and reads anything else, WRONGTYPE included (hence redis.pcall), as no state;
-- commit() replaces it. So each client starts afresh under the new algorithm, as under a new
-- policy name, instead of every call failing until the old keys expire.

local LEASE_SHARE = 4
local lease_ask, lease_us = string.match(ARGV[1], '^L(%d+):(%d+)$')

if DELAY_MAX and (RULE_KEYS ~= 1 or not reserve) then
  return redis.error_reply('a delayed admission needs one rule of an algorithm that can reserve, but this call has '
    .. RULE_KEYS .. (reserve and ' rules' or ' rules of one that cannot'))
end
if RULE_KEYS == 1 then
  local allowed, remaining, retry, reset, s1, s2, s3, s4, s5 = check(KEYS[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
  if PENALTY_MS then
    local boxed, retry_boxed, reset_boxed = penalty_box(KEYS[2], clock(ARGS_PER_RULE, 0), allowed, retry, reset)
    if boxed then
      return {boxed, 0, 0, retry_boxed, reset_boxed}
    end
  end
  if allowed == 0 and DELAY_MAX and retry <= DELAY_MAX then
    local wait, left, reset_at, receipt = reserve(KEYS[1], retry, s1, s2, s3, s4, s5)
    if wait then
      return {DELAYED, 1, left, wait, reset_at, receipt}
    end
  end
  if allowed == 1 and consume then
    local receipt
    remaining, reset, receipt = commit(KEYS[1], s1, s2, s3, s4, s5)
    if lease_ask then
      local grant = math.min(tonumber(lease_ask), math.floor(remaining / LEASE_SHARE))
      if grant > 0 then
        local granted, lasts, ticket, at = lease(KEYS[1], grant, tonumber(lease_us), unpack(ARGV, 3, 1 + ARGS_PER_RULE))
        if granted > 0 then
          return {allowed, allowed, remaining, retry, reset, receipt, granted, lasts, ticket, at}
        end
      end
    end
    return {allowed, allowed, remaining, retry, reset, receipt}
  end
  return {allowed, allowed, remaining, retry, reset}
end
if PENALTY_MS then
  return redis.error_reply('a penalty applies to one rule per decision, but this call has ' .. RULE_KEYS)
end
local checked, all_allowed = {}, 1
for i = 1, #KEYS do
  local a = 2 + (i - 1) * ARGS_PER_RULE
  checked[i] = {check(KEYS[i], unpack(ARGV, a, a + ARGS_PER_RULE - 1))}
  if checked[i][1] == 0 then all_allowed = 0 end
end
local reply = {all_allowed}
local committing = all_allowed == 1 and consume
for i, r in ipairs(checked) do
  local remaining, reset = r[2], r[4]
  local at = 4 * i - 2
  if committing then
    remaining, reset, reply[1 + 4 * #KEYS + i] = commit(KEYS[i], unpack(r, 5))
  end
  reply[at], reply[at + 1], reply[at + 2], reply[at + 3] = r[1], remaining, r[3], reset
end
return reply
