-- token-bucket: a bucket of `burst` tokens, refilled at `limit` tokens per window.
--
-- One string keeps the tokens and the time they were counted, "t<tokens> <microseconds>"; the
-- refill since then is computed on read, so no timer runs anywhere. (A string, not a hash: GET and
-- SET PX are two commands where HMGET, HSET and PEXPIRE are three, and it is smaller.) A request takes `permits` tokens if the bucket has
-- them. Tokens are integers in units of 1/scale of a permit, with scale = window / gcd(limit,
-- window) and refill = limit / gcd per microsecond: every quantity is an exact integer, so a
-- request retried exactly at its retry-after finds exactly enough tokens (no float drift).
-- A missing key is a full bucket, so the key needs to live only until the bucket would be full
-- again: that is its TTL.
--
-- Lives and give-backs, as in gcra.lua with the time until the bucket is full for the TAT. The
-- state is 't<tokens> <at> <life>', then '<shift>' and '<reserved>' as gcra's: the instant its life
-- began (a client with no state, or a full bucket), what give-backs placed below something taken
-- after them have moved it by, in token units, and the latest instant a delayed request is booked for. A receipt is an admission's place in a frame that neither
-- time nor give-backs move: the tokens the bucket lacked once it was written, plus the refill from
-- the state's birth until then (tokens times microseconds, both exact integers), plus the shift.
-- refund.lua gives a receipt back only into its own life, and only as far as what was taken after
-- it lets it (its header has the rule). A life whose frame would pass 2^50 ends at the next write,
-- as does one that was written before lives ('t<tokens> <at>', read as ever): nothing taken before
-- goes back into it. Worst case: a give-back that cannot be placed exactly is dropped, and the
-- client waits at most its permits' refill longer than one place would have it wait; never less.
--
-- KEYS[i]: the bucket of rule i.  ARGV[1]: '1' to consume, '0' to peek, 'L...' to consume and lease
-- (limiter-driver.lua).
-- ARGV per rule (4): permits, capacity (burst * scale), scale, refill per microsecond.
-- check() and commit() are run by limiter-driver.lua, appended when the script is loaded; it
-- returns {all_allowed, then per rule: allowed, remaining, retry_after_us, reset_after_us}.
-- A denial (by any rule) writes nothing.
-- Clock: Redis' TIME, unless a last ARGV follows the rules' arguments: then that is now, in
-- microseconds since the epoch. Only tests send it; see limiter-driver.lua.

local ARGS_PER_RULE = 4
local now = clock(ARGS_PER_RULE, 0)
local consume = CONSUMES

-- Past this the frame of a life's receipts would stop being exact Lua numbers: a new life begins.
local FRAME_LIMIT = 1125899906842624 -- 2^50

-- The bucket: its tokens, when they were counted, its life (0 before lives) and shift; nil for no
-- state or another algorithm's (limiter-driver.lua says why).
local function read(key)
  local value = redis.pcall('GET', key)
  if type(value) ~= 'string' then
    return nil
  end
  local counted, at, life, shift, reserved = string.match(value, '^t(%d+) (%d+) (%d+) ?(%d*) ?(%d*)$')
  if not counted then
    counted, at = string.match(value, '^t(%d+) (%d+)$')
    life = 0
  end
  if not counted then
    return nil
  end
  return tonumber(counted), tonumber(at), tonumber(life), tonumber(shift) or 0, tonumber(reserved) or 0
end

-- Writes `tokens` counted at `at` in the life (which begins now where there is none, none known, or
-- its frame grew too large) and returns the receipt of the state written and its life.
local function store(key, tokens, at, life, shift, reserved, capacity, refill, ttl_us)
  if not life or life == 0 or (at - life) * refill + shift > FRAME_LIMIT then
    life, shift = now, 0
  end
  local text
  if reserved > now then
    text = string.format('t%d %d %d %d %d', tokens, at, life, shift, reserved)
  elseif shift > 0 then
    text = string.format('t%d %d %d %d', tokens, at, life, shift)
  else
    text = string.format('t%d %d %d', tokens, at, life)
  end
  redis.call('SET', key, text, 'PX', math.max(1, math.ceil(ttl_us / 1000)))
  return (at - life) * refill + capacity - tokens + shift, life
end

local function check(key, permits_arg, capacity_arg, scale_arg, refill_arg)
  local capacity, scale, refill = tonumber(capacity_arg), tonumber(scale_arg), tonumber(refill_arg)
  local counted, at, life, shift, reserved = read(key)
  local tokens = capacity
  if counted then
    tokens = counted
    -- Refill only up to full: elapsed * refill could otherwise outgrow exact doubles.
    local elapsed = now - at
    if elapsed >= math.ceil((capacity - tokens) / refill) then
      -- Full again: that life is over.
      tokens, life, shift, reserved = capacity, nil, 0, 0
    else
      tokens = tokens + elapsed * refill
    end
  end
  local need = tonumber(permits_arg) * scale
  local available = math.max(0, math.floor(tokens / scale))
  local reset = math.ceil((capacity - tokens) / refill)
  reserved = reserved or 0
  if tokens < need then
    return 0, available, math.ceil((need - tokens) / refill), reset, tokens - need, life, shift, reserved, capacity,
        scale, refill
  end
  local left = tokens - need
  return 1, available, 0, reset, math.floor(left / scale), left, life, shift, reserved, capacity, refill
end

local function commit(key, remaining, left, life, shift, reserved, capacity, refill)
  local refill_time = math.ceil((capacity - left) / refill)
  local receipt
  receipt, life = store(key, left, now, life, shift, reserved, capacity, refill, refill_time)
  return remaining, refill_time, receipt, life
end

-- A delayed admission (limiter-penalty.lua): the bucket as the same request would leave it at the
-- instant it is admitted, now + wait: what it holds then, less the request, counted at that instant.
-- The state's time is then ahead of now: check() reads it as tokens owed (elapsed is negative), so
-- every later request waits behind this one. The receipt is an admission's: refund.lua gives it
-- back only as far as those queued behind it allow.
local function reserve(key, wait, short, life, shift, reserved, capacity, scale, refill)
  local left = short + wait * refill
  local refill_time = wait + math.ceil((capacity - left) / refill)
  local receipt
  receipt, life = store(key, left, now + wait, life, shift, math.max(reserved, now + wait), capacity, refill,
      refill_time)
  return wait, math.floor(left / scale), refill_time, receipt, life
end

-- A quota lease of up to `grant` permits for the caller's node, taken as if each were taken at the
-- lease's end with no refill credited until then: the bucket keeps at most what it would hold then
-- had it been full, min(tokens, capacity - lifetime * refill), less the lease. The node admits from
-- it before then, and one-by-one admissions at those instants would have left no more tokens, so
-- no later decision is ever less strict than it would have been. It lends only what the bucket
-- holds so counted (possibly fewer than asked, or none). The cost: a bucket within a lease's
-- refill of full waits that refill. Its receipt is an admission's, in the admission's life:
-- refund.lua places its rest as any give-back.
local function lease(key, grant, lifetime, capacity_arg, scale_arg, refill_arg)
  local capacity, scale, refill = tonumber(capacity_arg), tonumber(scale_arg), tonumber(refill_arg)
  local counted, _, life, shift, reserved = read(key)
  local tokens = math.min(counted, capacity - lifetime * refill)
  local granted = math.min(grant, math.floor(tokens / scale))
  if granted <= 0 then
    return 0
  end
  local left = tokens - granted * scale
  local receipt = store(key, left, now, life, shift, reserved, capacity, refill, math.ceil((capacity - left) / refill))
  return granted, lifetime, receipt, now
end
