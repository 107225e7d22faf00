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
-- at (over HTTP, t=61). O(1), and the TTL is simply TAT - now: when it is reached the client is
-- fully caught up and the key carries no information. The state starts with '-': no other
-- algorithm's does (fixed-window's count is never negative), so neither is taken for the other.
--
-- Lives and give-backs. A state knows which life of the key it is: the instant it was born (a
-- client with no state, or one whose TAT had passed), kept by every later write, and every receipt
-- carries it, so that a give-back (refund.lua: countStatus, a lease's rest, a cancelled wait) lands
-- only in the life it was taken from, never in one a reset, a restart that lost the data or the
-- TAT passing began since. The state is '-<tat> <life>', then '<shift>' once a give-back has been
-- placed below something stacked after it (everything stacked above may have moved down by up to
-- what it gave: <shift> adds up those moves), then '<reserved>' while a delayed request waits: the
-- latest instant one was booked for. Below it nothing given back may move the TAT: those waiting
-- stand at instants that cannot move. A receipt is the TAT its
-- write left plus the shift then (its position in a frame no give-back moves): refund.lua finds
-- where it stands now as receipt - shift, counting every later move as if it were below it (an
-- overestimate, so it errs toward less given back); refund.lua's header gives the rule. A state
-- written before lives ('-<tat>') decides as ever; the next write gives it a life of its own, and
-- nothing taken before goes back into it.
-- Worst case: a give-back that cannot be placed exactly is dropped, and the client waits at most
-- its permits x interval longer than one place would have it wait; never less.
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
-- Past this much shift a state starts a new life: receipts stay exact Lua numbers.
local SHIFT_LIMIT = 1125899906842624 -- 2^50

-- The state's TAT, life and shift; nil for no state or another algorithm's (limiter-driver.lua),
-- life 0 for a state written before lives. A TAT that has passed is no state: its life is over.
local function read(key)
  local value = redis.pcall('GET', key)
  if type(value) ~= 'string' then
    return nil
  end
  local tat, life, shift, reserved = string.match(value, '^%-(%d+) (%d+) ?(%d*) ?(%d*)$')
  if not tat then
    tat, life = string.match(value, '^%-(%d+)$'), 0
  end
  tat = tonumber(tat)
  if not tat or tat <= now then
    return nil
  end
  return tat, tonumber(life), tonumber(shift) or 0, tonumber(reserved) or 0
end

-- Writes the TAT with its life, which begins now where there was none (or none known), the shift and
-- the instant booked last while it is ahead; the key lives until the TAT.
local function store(key, tat, life, shift, reserved)
  if not life or life == 0 or shift >= SHIFT_LIMIT then
    life, shift = now, 0
  end
  local text
  if reserved > now then
    text = string.format('-%d %d %d %d', tat, life, shift, reserved)
  elseif shift > 0 then
    text = string.format('-%d %d %d', tat, life, shift)
  else
    text = string.format('-%d %d', tat, life)
  end
  redis.call('SET', key, text, 'PX', math.max(1, math.ceil((tat - now) / 1000)))
  return life, shift
end

local function check(key, permits_arg, interval_arg, burst_arg)
  local permits, interval = tonumber(permits_arg), tonumber(interval_arg)
  local stored, life, shift, reserved = read(key)
  local tat = stored or now
  local tolerance = tonumber(burst_arg) * interval
  local new_tat = tat + permits * interval
  local available = math.max(0, math.floor((tolerance - (tat - now)) / interval))
  if new_tat - now > tolerance then
    return 0, available, new_tat - tolerance - now, tat - now, new_tat, life, shift or 0, reserved or 0
  end
  return 1, available, 0, tat - now, math.floor((tolerance - (new_tat - now)) / interval), new_tat, life, shift or 0,
      reserved or 0
end

-- The receipt: the TAT written plus the shift, and the life.
local function commit(key, remaining, new_tat, life, shift, reserved)
  life, shift = store(key, new_tat, life, shift, reserved)
  return remaining, new_tat - now, new_tat + shift, life
end

-- A delayed admission (limiter-penalty.lua): the TAT the same request would write at the instant it
-- is admitted, now + retry. Then max(TAT, instant) is the TAT (a request no larger than the burst is
-- admitted before the TAT passes), so it writes new_tat, found by check(); the TAT may now run
-- further ahead than the burst, and every later request waits behind it. The receipt is an
-- admission's: refund.lua moves the TAT back only as far as those queued behind it allow.
local function reserve(key, retry, new_tat, life, shift, reserved)
  life, shift = store(key, new_tat, life, shift, math.max(reserved, now + retry))
  return retry, 0, new_tat - now, new_tat + shift, life
end

-- A quota lease of up to `grant` permits for the caller's node, taken as if each were taken at the
-- lease's end: TAT' = max(TAT, now + lifetime) + n*T. The node admits from it before then, and
-- one-by-one admissions at those instants would have moved the TAT no further, so no later
-- decision is ever less strict than it would have been. It lends only what keeps TAT' within the
-- burst (each leased permit would have been admitted), so possibly fewer than asked, or none.
-- The cost: while the TAT is within a lease's life of now (the bucket nearly full), that much of
-- the burst waits. Its receipt is an admission's (the TAT it wrote plus the shift, in the
-- admission's life): refund.lua places the rest as any give-back.
local function lease(key, grant, lifetime, interval_arg, burst_arg)
  local interval = tonumber(interval_arg)
  local tat, life, shift, reserved = read(key)
  local from = math.max(tat, now + lifetime)
  local granted = math.min(grant, math.floor((tonumber(burst_arg) * interval - (from - now)) / interval))
  if granted <= 0 then
    return 0
  end
  local new_tat = from + granted * interval
  store(key, new_tat, life, shift, reserved)
  return granted, lifetime, new_tat + shift, now
end
