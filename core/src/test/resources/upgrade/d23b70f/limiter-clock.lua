-- limiter-clock: the time a limiter script counts in, in microseconds since the epoch.
--
-- LuaScript.limiter() puts this file before each algorithm's script, which calls clock() once
-- (fixed-window only on admissions). Redis' own clock, TIME, unless the caller sent one argument
-- more than the script takes: ARGV[1], then args_per_rule for each key, then `extra` (a lease id
-- for concurrency). That last ARGV is then now. Only tests send it, to run the production script
-- at exact instants; see limiter-driver.lua.
-- With a penalty, the penalty boxes after the rules' keys do not count (RULE_KEYS, limiter-penalty.lua).
-- Read once per script call: the decisions of a batch (limiter-batch.lua) share one instant, as
-- the rules of one decision do, and fixed-window's admissions read no TIME after the first.
local clock_now
local function clock(args_per_rule, extra)
  if clock_now then
    return clock_now
  end
  if #ARGV > 1 + extra + RULE_KEYS * args_per_rule then
    clock_now = tonumber(ARGV[#ARGV])
  else
    local t = redis.call('TIME')
    clock_now = t[1] * 1000000 + t[2]
  end
  return clock_now
end
