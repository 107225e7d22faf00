-- charge: takes the permits an admission turned out to cost beyond what it took up front, for every
-- rule of the decision, in one call (an after-charge: HTTP's chargeAfter).
--
-- The application learns a request's real cost only while it serves it (tokens generated, rows
-- exported). The admission took the rule's cost up front, so that concurrent requests can never
-- overrun the limit; once the response ends, the caller charges the difference here. A charge is
-- taken whatever is left, past the limit too: the client then owes a debt, and is denied until
-- it is paid, as each algorithm pays it:
--   fixed-window     INCRBY on the window's counter, which may pass the limit; charged to the
--                    window current now (a counter that is gone starts a window, with its TTL).
--                    The debt is forgotten when that window ends.
--   sliding-log      one entry of the charged permits, stamped now (or just after the newest
--                    entry), as an admission of that many would be: the client is denied until
--                    enough permits have left the window. A log whose window ran empty starts
--                    again with that entry alone.
--   token-bucket     the tokens taken, below zero too: a bucket short of tokens is stored as
--                    't<k> <at>' with `at` ahead of now, the instant it would hold k tokens had
--                    refill run from zero then (token-bucket.lua reads a state ahead of now as
--                    debt: its tokens then are k - (at - now) * refill). The debt is owed refill
--                    time, exactly: k is below one microsecond of refill.
--   gcra             the TAT moved forward by permits x interval from max(TAT, now); it may pass
--                    the burst tolerance, and the client is denied until it is back within it.
-- Other algorithms are refused before a charge is ever made (ChargeRules); a state of another
-- algorithm or format under the key is left alone (0). Writes keep the key's TTL rule: no longer
-- than the state matters, so a debt lives exactly until it is paid (gcra, token-bucket), its log
-- entry leaves the window (sliding-log), or its window ends (fixed-window).
--
-- Arguments as refund.lua's, so one receipt serves both. ARGV[1]: the algorithm. ARGV[2]: arguments
-- per rule. ARGV per rule: permits to charge, the admission's receipt (not read: a charge lands in
-- the client's state now, whichever admission it follows), then the rule's limiter arguments after
-- its permits (Algorithm.scriptArguments).
-- Returns per rule 1 when something was charged, else 0.
-- Clock: Redis' TIME, unless a last ARGV follows the rules' arguments (tests only).

local name, per_rule = ARGV[1], tonumber(ARGV[2])
local rules = #KEYS
local now
if #ARGV > 2 + rules * per_rule then
  now = tonumber(ARGV[#ARGV])
else
  local t = redis.call('TIME')
  now = t[1] * 1000000 + t[2]
end

local function int(value)
  return string.format('%d', value)
end

local function fixed_window(key, permits, a)
  local value = redis.pcall('GET', key)
  if value and (type(value) ~= 'string' or not string.match(value, '^%d+$')) then
    return 0
  end
  local pttl = value and redis.call('PTTL', key) or -2
  if pttl < 0 then
    redis.call('SET', key, int((value and tonumber(value) or 0) + permits), 'PX',
        math.ceil(tonumber(ARGV[a + 3]) / 1000))
  else
    redis.call('INCRBY', key, permits)
  end
  return 1
end

local function sliding_log(key, permits, a)
  local window = tonumber(ARGV[a + 3])
  local newest = redis.pcall('ZRANGE', key, -1, -1, 'WITHSCORES')
  if newest.err or (#newest > 0 and not tonumber(newest[1])) then
    return 0
  end
  local total, stamp = permits, now
  if #newest > 0 and tonumber(newest[2]) > now - window then
    total, stamp = tonumber(newest[1]) + permits, math.max(now, tonumber(newest[2]) + 1)
    if total > 4503599627370496 then
      -- Past 2^52 only sliding-log.lua's rebase keeps totals exact: nothing is charged.
      return 0
    end
  else
    -- Every entry has left the window: the log starts again, as sliding-log.lua's commit does.
    redis.call('DEL', key)
  end
  redis.call('ZADD', key, int(stamp), int(total))
  redis.call('PEXPIRE', key, math.ceil((stamp + window - now) / 1000))
  return 1
end

local function token_bucket(key, permits, a)
  local capacity, scale, refill = tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local value = redis.pcall('GET', key)
  local tokens = capacity
  if value then
    local counted, at = string.match(type(value) == 'string' and value or '', '^t(%d+) (%d+)$')
    if not counted then
      return 0
    end
    -- Refill only up to full, as token-bucket.lua's check(); a state ahead of now is debt.
    local elapsed = now - tonumber(at)
    tokens = tonumber(counted)
    if elapsed >= math.ceil((capacity - tokens) / refill) then
      tokens = capacity
    else
      tokens = tokens + elapsed * refill
    end
  end
  tokens = tokens - permits * scale
  local at, counted = now, tokens
  if tokens < 0 then
    -- Short of tokens: zero at `at`, the first whole microsecond by which refill covers the debt,
    -- less what that microsecond refills past it.
    local owed = math.ceil(-tokens / refill)
    at, counted = now + owed, owed * refill + tokens
  end
  redis.call('SET', key, string.format('t%d %d', counted, at), 'PX',
      math.max(1, math.ceil((at - now + math.ceil((capacity - counted) / refill)) / 1000)))
  return 1
end

local function gcra(key, permits, a)
  local value = redis.pcall('GET', key)
  local stored = type(value) == 'string' and string.match(value, '^%-(%d+)$')
  if value and not stored then
    return 0
  end
  local tat = math.max(stored and tonumber(stored) or now, now) + permits * tonumber(ARGV[a + 2])
  redis.call('SET', key, string.format('-%d', tat), 'PX', math.max(1, math.ceil((tat - now) / 1000)))
  return 1
end

local charges = {
  ['fixed-window'] = fixed_window, ['sliding-log'] = sliding_log, ['token-bucket'] = token_bucket, ['gcra'] = gcra
}
local charge = charges[name]
if not charge then
  return redis.error_reply('ERR charge: no algorithm ' .. tostring(name))
end
local reply = {}
for i = 1, rules do
  local a = 3 + (i - 1) * per_rule
  reply[i] = charge(KEYS[i], tonumber(ARGV[a]), a)
end
return reply
