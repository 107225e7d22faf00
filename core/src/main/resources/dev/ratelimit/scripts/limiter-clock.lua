-- limiter-clock: the time a limiter script counts in, in microseconds since the epoch.
--
-- LuaScript.limiter() puts this file before each algorithm's script, which calls clock() once
-- (fixed-window only on admissions). Redis' own clock, TIME, unless the caller sent one argument
-- more than the script takes: ARGV[1], then args_per_rule for each key, then `extra` (a lease id
-- for concurrency). That last ARGV is then now. Only tests send it, to run the production script
-- at exact instants; see limiter-driver.lua.
local function clock(args_per_rule, extra)
  if #ARGV > 1 + extra + #KEYS * args_per_rule then
    return tonumber(ARGV[#ARGV])
  end
  local t = redis.call('TIME')
  return t[1] * 1000000 + t[2]
end
