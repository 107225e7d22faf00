-- refund: gives back the permits of one admission, for every rule of the decision, in one call; or
-- charges what it cost beyond them (see Charges below).
--
-- A caller that counts only some outcomes (an HTTP policy with countStatus: only failed logins)
-- takes the permits up front, so that concurrent requests can never overrun the limit, and gives
-- them back once the outcome does not count. Each rule's state is left as if the admission had not
-- happened, as far as the state still holds it:
--   fixed-window     DECRBY, never below 0, only in the admission's window (the receipt is the
--                    window's end: the key's end now must be within half a window of it, since
--                    two windows of one key end at least one window apart). A key holding
--                    delayed requests ('r<count>:<next>:<switch>') lowers the count of the
--                    window the receipt ends: this one (until <switch>) or the next.
--   calendar-window  the period's count lowered, only in the admission's period (the receipt) and
--                    in the life of the count it was taken from.
--   sliding-window   the current window's count lowered, only while the admission's window (the
--                    receipt) is still the current one; once it is the previous window, nothing.
--   sliding-log      the admission's entry (the receipt is its score, unique in the log) removed
--                    and the running totals of the entries after it lowered by its permits: a
--                    response ends quickly, so they are few. A quota lease's entry may give back
--                    part of its permits: it stays with the rest. Nothing once the entry has left
--                    the window (or is gone), or when the entry holds fewer permits (the first
--                    entry after a rebase of a log near 2^52, or the wrong receipt).
--   token-bucket,    the same rule for a plain refund, a quota lease's rest and a delayed
--   gcra             request whose wait was cancelled, read below for gcra (for the bucket the
--                    tokens it lacks stand for TAT - now, its capacity for the tolerance, and
--                    the receipt's frame is its own: token-bucket.lua's header). Nothing goes
--                    back into a life other than the receipt's (gcra.lua's header: a reset, a
--                    restart that lost the data, a TAT that passed), nor into a state written
--                    before lives. The receipt less the state's shift is where the give-back's
--                    permits end; what lies above it in the state, `stacked` (TAT - that place),
--                    was taken after them and may hold admissions placed at their own instant,
--                    up to now, had they not been there. So the TAT goes back by permits x
--                    interval but stays at least `stacked` ahead of now: never closer to now
--                    than one place would keep it. Nothing goes back when
--                      - stacked < 0: the permits are no longer in the state (given back
--                        already, or the TAT passed them);
--                      - stacked > 0 while a delayed request waits (the state's <reserved> is
--                        ahead): those waiting stand above at instants that cannot move, and a
--                        TAT moved back would book the next request onto the last one's instant
--                        (a cancelled wait with others behind it). A debt (see Charges) was
--                        taken at its own instant, as an admission is, and does not stop it.
--                    A give-back below something stacked moves what is above it down, by up to
--                    what it gave: the state's shift adds that up, so that a later give-back
--                    finds its place no higher than it may now be (two rests of one client, the
--                    second placed as if the first had been below it). Worst case: a give-back
--                    that cannot be placed is dropped, and the client waits up to its permits x
--                    interval longer than one place would; a TAT (or bucket) passing ends it.
--   leaky-bucket     the level lowered by the permits, never below empty.
-- A give-back's KEYS end with the client's reset guard (RedisKeys.resetGuard, client-reset.lua): the
-- instant of the client's last reset, for a few seconds. Nothing goes back of a quota lease's rest
-- (named '<algorithm> lease <lent_at_us>') lent at or before it, nor of a fixed-window or sliding-log
-- admission taken at or before it (the life those receipts carry is the instant they were taken).
-- A state of another algorithm or of another format is left alone. Writes keep the key's TTL rule
-- (no longer than its state matters). Idempotence is the caller's: a receipt is sent at most once.
--
-- KEYS: each rule's key, then (not for a charge) the client's reset guard.
-- ARGV[1]: the script's name (the algorithm, or calendar-window; '<algorithm> lease <lent_at_us>'
-- for a quota lease's rest). ARGV[2]: arguments per rule.
-- ARGV per rule: permits, receipt, the life the receipt was taken in (0 where the algorithm keeps
-- none), then the rule's limiter arguments after its permits
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
--                    't<k> <at> <life>...' with `at` ahead of now, the instant it would hold k tokens had
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
-- then the receipt and life (not read: a charge lands in the client's state now, whichever admission it
-- follows). Returns per rule 1 when something was charged.

local name, per_rule = ARGV[1], tonumber(ARGV[2])
local rules = #KEYS
local charging = string.match(name, '^charge (.+)$')
if charging then
  name = charging
end
local leased, lent_at = string.match(name, '^(.+) lease (%d+)$')
-- A give-back has the client's reset guard after its keys (a charge has none): the instant some node
-- last reset the client, for a few seconds. Its state now is a fresh one, which nothing taken at or
-- before that instant came from: a lease's rest (lent at lent_at), or a fixed-window or sliding-log
-- admission (whose life is the instant it was taken; the other algorithms' states keep lives of
-- their own).
local reset_at
if not charging then
  rules = #KEYS - 1
  local guard = redis.pcall('GET', KEYS[#KEYS])
  reset_at = type(guard) == 'string' and (tonumber(guard) or math.huge) or nil
end
if leased then
  name = leased
  if reset_at and reset_at >= tonumber(lent_at) then
    local none = {}
    for i = 1, rules do
      none[i] = 0
    end
    return none
  end
end
-- Whether a fixed-window or sliding-log admission taken at `taken` predates the client's last reset.
local function before_reset(taken)
  return reset_at ~= nil and taken > 0 and reset_at >= taken
end
local now
-- How far a fixed window's receipt may be from the key's end read now: PTTL's whole milliseconds,
-- and what passes between a script's PTTL and its TIME, here and in the admission's script (in
-- opposite order), which is more than a millisecond when Redis is descheduled between them on a
-- busy host (3 ms kept 2 of 3,000 refunds with the host's cores loaded). A restart that lost the
-- key takes longer than 10 ms, so a window begun after it still ends later than that. A test's
-- clock (the last ARGV) is not the one Redis counts TTLs on: then half a window, since two windows
-- of one key end a window apart.
local EXPIRY_SLACK = 10000
if #ARGV > 2 + rules * per_rule then
  now = tonumber(ARGV[#ARGV])
  EXPIRY_SLACK = math.huge
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

-- A token bucket's state (token-bucket.lua): tokens, when counted, life (0 before lives) and shift.
local function bucket_state(key)
  local value = get(key) or ''
  local counted, at, life, shift, reserved = string.match(value, '^t(%d+) (%d+) (%d+) ?(%d*) ?(%d*)$')
  if not counted then
    counted, at = string.match(value, '^t(%d+) (%d+)$')
    life = 0
  end
  if counted then
    return tonumber(counted), tonumber(at), tonumber(life), tonumber(shift) or 0, tonumber(reserved) or 0
  end
end

-- A gcra state (gcra.lua): TAT, life (0 before lives), shift and the instant booked last.
local function gcra_state(key)
  local value = get(key) or ''
  local tat, life, shift, reserved = string.match(value, '^%-(%d+) (%d+) ?(%d*) ?(%d*)$')
  if not tat then
    tat, life = string.match(value, '^%-(%d+)$'), 0
  end
  if tat then
    return tonumber(tat), tonumber(life), tonumber(shift) or 0, tonumber(reserved) or 0
  end
end

-- The fields gcra.lua and token-bucket.lua write after the life: the shift, and the instant booked
-- last while it is ahead.
local function tail(shift, reserved)
  if reserved > now then
    return string.format(' %d %d', shift, reserved)
  elseif shift > 0 then
    return string.format(' %d', shift)
  end
  return ''
end

-- Stores a bucket's tokens with its TTL (until full), or deletes a full one (its life ends). Below
-- zero, a debt: zero tokens at `at`, the first whole microsecond by which refill covers it, plus
-- what that microsecond refills past it; token-bucket.lua reads such a state ahead of now as tokens
-- below zero. A bucket without a (known) life begins one now.
local function store_bucket(key, tokens, capacity, refill, life, shift, reserved)
  local at = now
  if tokens < 0 then
    at = now + math.ceil(-tokens / refill)
    tokens = (at - now) * refill + tokens
  end
  if not life or life == 0 then
    life, shift = now, 0
  end
  if tokens == capacity then
    redis.call('DEL', key)
  else
    local text = string.format('t%d %d %d', tokens, at, life) .. tail(shift, reserved or 0)
    redis.call('SET', key, text, 'PX', math.max(1, math.ceil((at - now + math.ceil((capacity - tokens) / refill)) / 1000)))
  end
end

-- gcra's TAT with its life and shift, or none when it reached now (the key is empty then).
local function store_gcra(key, tat, life, shift, reserved)
  if tat <= now then
    redis.call('DEL', key)
  else
    redis.call('SET', key, string.format('-%d %d', tat, life) .. tail(shift, reserved), 'PX',
        math.max(1, math.ceil((tat - now) / 1000)))
  end
end

-- Where a give-back of gcra or token-bucket may put the state: `top` how far the state runs ahead of
-- now (gcra: TAT - now; the bucket: the tokens it lacks), `placed` the give-back's receipt less the
-- shift and `top_at` the state's own place in the same frame, `back` what it gave (permits x
-- interval, or their tokens), `reserved` the instant a delayed request was booked for last. Returns
-- the new `top` and whether it moved what was stacked above, or nil to give nothing.
local function place(top, top_at, placed, back, reserved)
  local stacked = top_at - placed
  if stacked < 0 or (stacked > 0 and reserved > now) then
    return nil
  end
  local new = math.max(top - back, stacked)
  if new >= top then
    return nil
  end
  return new, stacked > 0
end

local function fixed_window(key, permits, window_end, taken, r)
  if before_reset(taken) then
    return 0
  end
  local value = get(key)
  local pttl = value and redis.call('PTTL', key) or -2
  if pttl < 0 then
    return 0
  end
  -- The receipt is the end of the admission's window, read as the key's expiry is read here: within
  -- 10 ms of it (EXPIRY_SLACK), or half a window where that is less. A window begun after a restart
  -- ends later than that (after a reset, the guard above says so): its end is the window's life.
  local window, expiry = tonumber(ARGV[r + 1]), now + (pttl + 1) * 1000
  local slack = math.min(window / 2, EXPIRY_SLACK)
  local count = string.match(value, '^(%d+)$')
  if count then
    local back = math.min(permits, tonumber(count))
    if back == 0 or math.abs(expiry - window_end) >= slack then
      return 0
    end
    redis.call('DECRBY', key, back)
    return 1
  end
  -- A window with requests delayed beyond it (fixed-window.lua): this window ends at <switch>, the
  -- next at the key's expiry.
  local current, later, switch = string.match(value, '^r(%d+):(%d+):(%d+)$')
  if not switch then
    return 0
  end
  current, later, switch = tonumber(current), tonumber(later), tonumber(switch)
  if now < switch and math.abs(switch - window_end) < slack and current > 0 then
    current = current - math.min(permits, current)
  elseif math.abs(expiry - window_end) < slack and later > 0 then
    later = later - math.min(permits, later)
  else
    return 0
  end
  redis.call('SET', key, string.format('r%d:%d:%d', current, later, switch), 'KEEPTTL')
  return 1
end

local function calendar_window(key, permits, start, life)
  local value = get(key)
  local counted_start, counted, born = string.match(value or '', '^c(%d+):(%d+):(%d+)$')
  if not counted_start or tonumber(counted_start) ~= start or tonumber(born) ~= life or tonumber(counted) == 0 then
    return 0
  end
  local pttl = redis.call('PTTL', key)
  if pttl <= 0 then
    return 0
  end
  redis.call('SET', key, string.format('c%d:%d:%d', start, math.max(0, tonumber(counted) - permits), life), 'PX', pttl)
  return 1
end

local function sliding_window(key, permits, index, life, r)
  local value = get(key)
  local stored, current, previous, born = string.match(value or '', '^w(%d+) (%d+) (%d+) (%d+)$')
  if not stored or tonumber(born) ~= life or tonumber(stored) ~= index
      or math.floor(now / tonumber(ARGV[r + 1])) > index or tonumber(current) == 0 then
    return 0
  end
  local pttl = redis.call('PTTL', key)
  if pttl <= 0 then
    return 0
  end
  redis.call('SET', key, string.format('w%d %d %d %d', index, math.max(0, tonumber(current) - permits), previous, life),
      'PX', pttl)
  return 1
end

local function sliding_log(key, permits, stamp, taken, r)
  if before_reset(taken) then
    return 0
  end
  if stamp <= now - tonumber(ARGV[r + 1]) then
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
  -- Its TTL, to put back: removing an entry may empty the set for a moment (one entry after it),
  -- which deletes the key with its TTL, and the ZADD that follows would make it again without one.
  local pttl = redis.call('PTTL', key)
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
  if pttl > 0 and redis.call('PTTL', key) ~= pttl then
    redis.call('PEXPIRE', key, pttl)
  end
  return 1
end

local function token_bucket(key, permits, stamp, life, r)
  local capacity, scale, refill = tonumber(ARGV[r]), tonumber(ARGV[r + 1]), tonumber(ARGV[r + 2])
  local tokens, at, born, shift, reserved = bucket_state(key)
  if not tokens or born == 0 or born ~= life then
    return 0
  end
  -- A state ahead of now is tokens owed: a delayed admission's (token-bucket.lua's reserve) or an
  -- after-charge's debt; the tokens are below zero now, and the bucket lacks more than it holds.
  local elapsed = now - at
  if elapsed >= math.ceil((capacity - tokens) / refill) then
    return 0
  end
  local missing = capacity - (tokens + elapsed * refill)
  local lacks, moved = place(missing, (now - born) * refill + missing, stamp - shift, permits * scale, reserved)
  if not lacks then
    return 0
  end
  if moved then
    shift = shift + missing - lacks
  end
  store_bucket(key, capacity - lacks, capacity, refill, born, shift, reserved)
  return 1
end

local function leaky_bucket(key, permits, stamp, life, r)
  local scale, leak = tonumber(ARGV[r + 1]), tonumber(ARGV[r + 2])
  local measured, at, born, shift = string.match(get(key) or '', '^l(%d+) (%d+) (%d+) ?(%d*)$')
  if not measured or tonumber(born) ~= life then
    return 0
  end
  shift = tonumber(shift) or 0
  local level = tonumber(measured) - math.max(0, now - tonumber(at)) * leak
  if level <= 0 then
    return 0
  end
  local lowered, moved = place(level, (now - life) * leak + level, stamp - shift, permits * scale, 0)
  if not lowered then
    return 0
  end
  if moved then
    shift = shift + level - lowered
  end
  if lowered == 0 then
    redis.call('DEL', key)
  else
    redis.call('SET', key, string.format('l%d %d %d', lowered, now, life) .. tail(shift, 0), 'PX',
        math.max(1, math.ceil(math.ceil(lowered / leak) / 1000)))
  end
  return 1
end

local function gcra(key, permits, stamp, life, r)
  local stored, born, shift, reserved = gcra_state(key)
  if not stored or stored <= now or born == 0 or born ~= life then
    return 0
  end
  local interval = tonumber(ARGV[r])
  local ahead, moved = place(stored - now, stored, stamp - shift, permits * interval, reserved)
  if not ahead then
    return 0
  end
  if moved then
    shift = shift + stored - now - ahead
  end
  store_gcra(key, now + ahead, born, shift, reserved)
  return 1
end

local function charge_fixed_window(key, permits, _, _, r)
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
        math.ceil(tonumber(ARGV[r + 1]) / 1000))
  else
    redis.call('INCRBY', key, permits)
  end
  return 1
end

local function charge_sliding_log(key, permits, _, _, r)
  local window = tonumber(ARGV[r + 1])
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
    -- Trimmed as sliding-log.lua's writes are, to the anchor (the newest entry at or before
    -- now - window, which the running totals count from): a delayed request never commits, so
    -- without this nothing would trim a log of delayed requests and their charges.
    local gone = redis.call('ZCOUNT', key, '-inf', int(now - window))
    if gone > 1 then
      redis.call('ZREMRANGEBYRANK', key, 0, gone - 2)
    end
  else
    -- Every entry has left the window: the log starts again, as sliding-log.lua's commit does.
    redis.call('DEL', key)
  end
  redis.call('ZADD', key, int(stamp), int(total))
  redis.call('PEXPIRE', key, math.ceil((stamp + window - now) / 1000))
  return 1
end

local function charge_token_bucket(key, permits, _, _, r)
  local capacity, scale, refill = tonumber(ARGV[r]), tonumber(ARGV[r + 1]), tonumber(ARGV[r + 2])
  local value = redis.pcall('GET', key)
  local tokens, at, life, shift, reserved = bucket_state(key)
  if value and not tokens then
    return 0
  end
  if not tokens then
    tokens = capacity
  else
    -- Refill only up to full, as token-bucket.lua's check(); a state ahead of now is debt.
    local elapsed = now - at
    if elapsed >= math.ceil((capacity - tokens) / refill) then
      tokens, life = capacity, nil
    else
      tokens = tokens + elapsed * refill
    end
  end
  store_bucket(key, tokens - permits * scale, capacity, refill, life, shift, reserved)
  return 1
end

local function charge_gcra(key, permits, _, _, r)
  local value = redis.pcall('GET', key)
  local stored, life, shift, reserved = gcra_state(key)
  if value and not stored then
    return 0
  end
  if not stored or stored <= now or life == 0 then
    stored, life, shift, reserved = now, now, 0, 0
  end
  store_gcra(key, stored + permits * tonumber(ARGV[r]), life, shift, reserved)
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
  reply[i] = settle(KEYS[i], tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), a + 3)
end
return reply
