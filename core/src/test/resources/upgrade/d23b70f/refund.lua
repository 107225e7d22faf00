-- refund: gives back the permits of one admission, for every rule of the decision, in one call; or
-- charges what it cost beyond them (see Charges below).
--
-- A caller that counts only some outcomes (an HTTP policy with countStatus: only failed logins)
-- takes the permits up front, so that concurrent requests can never overrun the limit, and gives
-- them back once the outcome does not count. Each rule's state is left as if the admission had not
-- happened, as far as the state still holds it:
--   fixed-window     DECRBY, never below 0, only in the admission's window (the receipt is the
--                    window's end: the key's end now must be within half a window of it, since
--                    two windows of one key end at least one window apart).
--   calendar-window  the period's count lowered, only in the admission's period (the receipt).
--   sliding-window   the current window's count lowered, only while the admission's window (the
--                    receipt) is still the current one; once it is the previous window, nothing.
--   sliding-log      the admission's entry (the receipt is its score, unique in the log) removed
--                    and the running totals of the entries after it lowered by its permits: a
--                    response ends quickly, so they are few. A quota lease's entry may give back
--                    part of its permits: it stays with the rest. Nothing once the entry has left
--                    the window (or is gone), or when the entry holds fewer permits (the first
--                    entry after a rebase of a log near 2^52, or the wrong receipt).
--   token-bucket     the tokens back, capped at the capacity: exactly the bucket without the
--                    request, since refill is capped the same way; a bucket in debt (see Charges)
--                    stays in what debt is left. A quota lease's rest (its
--                    receipt is the tokens the lease left) as gcra's, the bucket's time until
--                    full standing for the TAT: never below a bucket fuller than the lease left
--                    it, never closer to full than what was taken after the lease.
--   leaky-bucket     the level lowered by the permits, never below empty.
--   gcra             the TAT moved back by permits x interval, never before now. A quota lease's
--                    rest (its receipt is the TAT the lease wrote) never below a TAT lower than
--                    its own, and never closer to now than what came after it: admissions stacked
--                    on the lease may have been placed at their own instant, up to now, had the
--                    lease not been there. So a rest sent soon goes back whole, and one whose
--                    TAT was passed (a new life began) gives nothing; what stays taken, the TAT
--                    frees as it passes.
-- A quota lease's rest names the algorithm with ' lease <lent_at_us>' after it, and its KEYS end
-- with the client's reset guard (RedisKeys.resetGuard, client-reset.lua): nothing goes back of a
-- lease lent at or before the reset the guard holds.
-- A state of another algorithm or of another format is left alone. Writes keep the key's TTL rule
-- (no longer than its state matters). Idempotence is the caller's: a receipt is sent at most once.
--
-- ARGV[1]: the script's name (the algorithm, or calendar-window; '<algorithm> lease <lent_at_us>'
-- for a quota lease's rest). ARGV[2]: arguments per rule.
-- ARGV per rule: permits, receipt, then the rule's limiter arguments after its permits
-- (Algorithm.scriptArguments: limit and window; or capacity, scale and refill or leak per
-- microsecond; or interval and burst; or only the limit for calendar rules).
-- Returns per rule 1 when something was given back, else 0.
-- Clock: Redis' TIME, unless a last ARGV follows the rules' arguments (tests only).
--
-- Charges (ARGV[1] 'charge <algorithm>'): take the permits an admission turned out to cost beyond
-- what it took up front, for every rule of the decision, in one call (an after-charge: HTTP's
-- chargeAfter, RateLimiter.charge; a usage below what was taken is a refund of the difference).
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
-- A charge takes a refund's arguments, so one receipt serves both: per rule the permits to charge,
-- then the receipt (not read: a charge lands in the client's state now, whichever admission it
-- follows). Returns per rule 1 when something was charged.

local name, per_rule = ARGV[1], tonumber(ARGV[2])
local rules = #KEYS
local charging = string.match(name, '^charge (.+)$')
if charging then
  name = charging
end
local leased, lent_at = string.match(name, '^(.+) lease (%d+)$')
if leased then
  -- A quota lease's rest: the client's reset guard follows its keys. A guard at or after the
  -- instant the lease was lent means some node reset the client since: its state now is a fresh
  -- one, which the rest was never taken from.
  name, rules = leased, #KEYS - 1
  local reset_at = redis.pcall('GET', KEYS[#KEYS])
  if type(reset_at) == 'string' and (tonumber(reset_at) or math.huge) >= tonumber(lent_at) then
    local none = {}
    for i = 1, rules do
      none[i] = 0
    end
    return none
  end
end
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

local function get(key)
  local value = redis.pcall('GET', key)
  if type(value) == 'string' then
    return value
  end
end

-- Stores a bucket's tokens with its TTL (until full), or deletes a full one. Below zero, a debt: zero
-- tokens at `at`, the first whole microsecond by which refill covers it, plus what that microsecond
-- refills past it; token-bucket.lua reads such a state ahead of now as tokens below zero.
local function store_bucket(key, tokens, capacity, refill)
  local at = now
  if tokens < 0 then
    at = now + math.ceil(-tokens / refill)
    tokens = (at - now) * refill + tokens
  end
  if tokens == capacity then
    redis.call('DEL', key)
  else
    redis.call('SET', key, string.format('t%d %d', tokens, at), 'PX',
        math.max(1, math.ceil((at - now + math.ceil((capacity - tokens) / refill)) / 1000)))
  end
end

local function fixed_window(key, permits, window_end, a)
  local value = get(key)
  if not value or not string.match(value, '^%d+$') then
    return 0
  end
  local pttl = redis.call('PTTL', key)
  local window = tonumber(ARGV[a + 3])
  if pttl < 0 or math.abs(now + (pttl + 1) * 1000 - window_end) * 2 >= window then
    return 0
  end
  local back = math.min(permits, tonumber(value))
  if back == 0 then
    return 0
  end
  redis.call('DECRBY', key, back)
  return 1
end

local function calendar_window(key, permits, start)
  local value = get(key)
  local counted_start, counted = string.match(value or '', '^c(%d+):(%d+)$')
  if not counted_start or tonumber(counted_start) ~= start or tonumber(counted) == 0 then
    return 0
  end
  local pttl = redis.call('PTTL', key)
  if pttl <= 0 then
    return 0
  end
  redis.call('SET', key, string.format('c%d:%d', start, math.max(0, tonumber(counted) - permits)), 'PX', pttl)
  return 1
end

local function sliding_window(key, permits, index, a)
  local value = get(key)
  local stored, current, previous = string.match(value or '', '^w(%d+) (%d+) (%d+)$')
  if not stored or tonumber(stored) ~= index or math.floor(now / tonumber(ARGV[a + 3])) > index
      or tonumber(current) == 0 then
    return 0
  end
  local pttl = redis.call('PTTL', key)
  if pttl <= 0 then
    return 0
  end
  redis.call('SET', key, string.format('w%d %d %d', index, math.max(0, tonumber(current) - permits), previous),
      'PX', pttl)
  return 1
end

local function sliding_log(key, permits, stamp, a)
  if stamp <= now - tonumber(ARGV[a + 3]) then
    return 0
  end
  local entry = redis.pcall('ZRANGEBYSCORE', key, int(stamp), int(stamp))
  if entry.err or #entry ~= 1 or not tonumber(entry[1]) then
    return 0
  end
  local total = tonumber(entry[1])
  local before = redis.call('ZREVRANGEBYSCORE', key, '(' .. int(stamp), '-inf', 'LIMIT', 0, 1)
  local held = total - ((before[1] and tonumber(before[1])) or 0)
  if held < permits then
    return 0
  end
  local later = redis.call('ZRANGEBYSCORE', key, '(' .. int(stamp), '+inf', 'WITHSCORES')
  redis.call('ZREM', key, entry[1])
  if held > permits then
    -- A quota lease's unused part: the entry keeps the permits its node did admit.
    redis.call('ZADD', key, int(stamp), int(total - permits))
  end
  -- In ascending order, so that no lowered total meets one not yet lowered.
  for i = 1, #later, 2 do
    redis.call('ZREM', key, later[i])
    redis.call('ZADD', key, later[i + 1], int(tonumber(later[i]) - permits))
  end
  return 1
end

local function token_bucket(key, permits, stamp, a)
  local capacity, scale, refill = tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local counted, at = string.match(get(key) or '', '^t(%d+) (%d+)$')
  if not counted then
    return 0
  end
  local tokens = tonumber(counted)
  -- A state ahead of now is tokens owed: a delayed admission's (token-bucket.lua's reserve) or an
  -- after-charge's debt; the tokens are below zero now.
  local elapsed = now - tonumber(at)
  if elapsed >= math.ceil((capacity - tokens) / refill) then
    return 0
  end
  tokens = tokens + elapsed * refill
  local missing = capacity - tokens
  local back = math.max(0, missing - permits * scale)
  if lent_at then
    -- A lease's rest (its receipt is the tokens the lease left, at the instant it was lent), as
    -- gcra's with the bucket's time until full for the TAT: what was taken after the lease (the
    -- tokens the bucket lacks beyond what the lease left, refill counted) may hold admissions made at
    -- their own instant, up to now; the bucket stays at least that far from full.
    local stacked = (tonumber(at) - tonumber(lent_at)) * refill + stamp - tonumber(counted)
    if stacked < 0 then
      return 0
    end
    back = math.max(back, stacked)
    if back >= missing then
      return 0
    end
  end
  -- A bucket in debt may still be after the refund.
  store_bucket(key, capacity - back, capacity, refill)
  return 1
end

local function leaky_bucket(key, permits, _, a)
  local scale, leak = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local measured, at = string.match(get(key) or '', '^l(%d+) (%d+)$')
  if not measured then
    return 0
  end
  local level = tonumber(measured)
  local elapsed = math.max(0, now - tonumber(at))
  if elapsed >= math.ceil(level / leak) then
    return 0
  end
  level = math.max(0, level - elapsed * leak - permits * scale)
  if level == 0 then
    redis.call('DEL', key)
  else
    redis.call('SET', key, string.format('l%d %d', level, now), 'PX', math.max(1, math.ceil(math.ceil(level / leak) / 1000)))
  end
  return 1
end

local function gcra(key, permits, stamp, a)
  local stored = tonumber(string.match(get(key) or '', '^%-(%d+)$') or '')
  if not stored or stored <= now or stored < stamp then
    return 0
  end
  local tat = math.max(now, stored - permits * tonumber(ARGV[a + 2]))
  if stamp ~= 0 then
    -- A lease's rest: what was stacked after the lease (stored - stamp) may hold admissions placed
    -- at their own instant, up to now; the TAT stays at least that far ahead of now.
    tat = math.max(tat, now + stored - stamp)
    if tat >= stored then
      return 0
    end
  end
  if tat == now then
    redis.call('DEL', key)
  else
    redis.call('SET', key, string.format('-%d', tat), 'PX', math.max(1, math.ceil((tat - now) / 1000)))
  end
  return 1
end

local function charge_fixed_window(key, permits, _, a)
  local value = redis.pcall('GET', key)
  local current, later, switch = string.match(type(value) == 'string' and value or '', '^r(%d+):(%d+):(%d+)$')
  if switch then
    -- A window with requests delayed beyond it (fixed-window.lua): charged to the window now current.
    if now < tonumber(switch) then
      current = tonumber(current) + permits
    else
      later = tonumber(later) + permits
    end
    redis.call('SET', key, string.format('r%d:%d:%s', current, later, switch), 'KEEPTTL')
    return 1
  end
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

local function charge_sliding_log(key, permits, _, a)
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

local function charge_token_bucket(key, permits, _, a)
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
  store_bucket(key, tokens - permits * scale, capacity, refill)
  return 1
end

local function charge_gcra(key, permits, _, a)
  local value = redis.pcall('GET', key)
  local stored = type(value) == 'string' and string.match(value, '^%-(%d+)$')
  if value and not stored then
    return 0
  end
  local tat = math.max(stored and tonumber(stored) or now, now) + permits * tonumber(ARGV[a + 2])
  redis.call('SET', key, string.format('-%d', tat), 'PX', math.max(1, math.ceil((tat - now) / 1000)))
  return 1
end

local refunds = {
  ['fixed-window'] = fixed_window, ['calendar-window'] = calendar_window, ['sliding-window'] = sliding_window,
  ['sliding-log'] = sliding_log, ['token-bucket'] = token_bucket, ['leaky-bucket'] = leaky_bucket, ['gcra'] = gcra
}
local charges = {
  ['fixed-window'] = charge_fixed_window, ['sliding-log'] = charge_sliding_log,
  ['token-bucket'] = charge_token_bucket, ['gcra'] = charge_gcra
}
local settle = (charging and charges or refunds)[name]
if not settle then
  return redis.error_reply('ERR ' .. (charging and 'charge' or 'refund') .. ': no algorithm ' .. tostring(name))
end
local reply = {}
for i = 1, rules do
  local a = 3 + (i - 1) * per_rule
  reply[i] = settle(KEYS[i], tonumber(ARGV[a]), tonumber(ARGV[a + 1]), a)
end
return reply
