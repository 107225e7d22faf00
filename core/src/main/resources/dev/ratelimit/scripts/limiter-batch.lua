-- limiter-batch: several independent decisions of one rule each, in one script call.
--
-- LuaScript.limiter() appends this file, instead of limiter-driver.lua, to an algorithm's script
-- for its batch form. When decisions of one algorithm wait for Redis at the same moment, the client
-- sends them as one call of this form (see BatchedCalls): Redis then pays once what every call
-- costs (running a script, reading the clock, building the reply) and per decision only the
-- reads and writes of its key. The arguments are those of one call with several rules, so the
-- algorithm's part and clock() read them unchanged: KEYS[i] is decision i's key, ARGV[1] '1' to
-- consume or '0' to peek (the same for the whole batch), then ARGS_PER_RULE values per key.
--
-- Unlike limiter-driver.lua's rules, the decisions are independent: each is checked and, when
-- admitted and consuming, committed before the next is checked, so two decisions of one key in a
-- batch meet as two calls one after the other would. A denial writes nothing.
--
-- With a penalty (limiter-penalty.lua) the penalty boxes follow the decisions' keys, one per decision,
-- and each decision meets its box as a one-rule call of limiter-driver.lua does: a boxed decision's
-- reply starts with PENALIZED or IN_BOX instead of its allowed.
--
-- Returns, per decision, the length of its reply and then the reply limiter-driver.lua gives a
-- one-rule call: {allowed, allowed, remaining, retry_after_us, reset_after_us[, receipt, life]}. A
-- decision whose check() or commit() raises an error (calendar-window.lua refuses period starts that
-- do not hold Redis' time; a write refused under maxmemory) gets {-1, then the error's bytes} in its
-- place, and the others go on: each decision fails alone, as its own call would have, instead of the
-- error failing every decision of the batch, those before it already counted. The bytes are
-- integers as the reply's other values are (at most 240 of them), since the gateway reads integers.

local SCRIPT_ERROR, MAX_ERROR_BYTES = -1, 240
local reply, n = {}, 0
local function failed(err)
  local text = type(err) == 'table' and (err.err or err.message) or err
  text = string.sub(tostring(text), 1, MAX_ERROR_BYTES)
  reply[n + 1], reply[n + 2] = 1 + #text, SCRIPT_ERROR
  for b = 1, #text do
    reply[n + 2 + b] = string.byte(text, b)
  end
  n = n + 2 + #text
end
for i = 1, RULE_KEYS do
  local a = 2 + (i - 1) * ARGS_PER_RULE
  local ok, allowed, remaining, retry, reset, s1, s2, s3, s4, s5, s6, s7 =
    pcall(check, KEYS[i], unpack(ARGV, a, a + ARGS_PER_RULE - 1))
  local boxed, retry_boxed, reset_boxed
  if ok and PENALTY_MS then
    ok, boxed, retry_boxed, reset_boxed = pcall(penalty_box, KEYS[RULE_KEYS + i], clock(ARGS_PER_RULE, 0), allowed,
      retry, reset)
    if not ok then
      allowed = boxed
    end
  end
  if not ok then
    failed(allowed)
  elseif boxed then
    reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5], reply[n + 6] =
      5, boxed, 0, 0, retry_boxed, reset_boxed
    n = n + 6
  elseif allowed == 1 and consume then
    local committed, remaining_after, reset_after, receipt, life = pcall(commit, KEYS[i], s1, s2, s3, s4, s5, s6, s7)
    if not committed then
      failed(remaining_after)
    else
      reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5], reply[n + 6], reply[n + 7], reply[n + 8] =
        7, allowed, allowed, remaining_after, retry, reset_after, receipt, life or 0
      n = n + 8
    end
  else
    reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5], reply[n + 6] =
      5, allowed, allowed, remaining, retry, reset
    n = n + 6
  end
end
return reply
