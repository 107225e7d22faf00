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
-- Returns, per decision, the length of its reply and then the reply limiter-driver.lua gives a
-- one-rule call: {allowed, allowed, remaining, retry_after_us, reset_after_us[, receipt]}.

local reply, n = {}, 0
for i = 1, #KEYS do
  local a = 2 + (i - 1) * ARGS_PER_RULE
  local allowed, remaining, retry, reset, s1, s2, s3, s4, s5 = check(KEYS[i], unpack(ARGV, a, a + ARGS_PER_RULE - 1))
  if allowed == 1 and consume then
    local receipt
    remaining, reset, receipt = commit(KEYS[i], s1, s2, s3, s4, s5)
    reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5], reply[n + 6], reply[n + 7] =
      6, allowed, allowed, remaining, retry, reset, receipt
    n = n + 7
  else
    reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5], reply[n + 6] =
      5, allowed, allowed, remaining, retry, reset
    n = n + 6
  end
end
return reply
