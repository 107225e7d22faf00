-- concurrency-release: gives back a lease that concurrency.lua handed out, when its request ends.
--
-- One ZREM per key (a limiter's keys share a hash tag, so Cluster routes them together). Releasing
-- twice, or a lease that already expired, removes nothing and is no error: callers may release on
-- every path a request can end by. The key's TTL is left as it is: it already covers the longest
-- lease still held, and an emptied sorted set is deleted by Redis itself.
--
-- KEYS: the leases of each rule.  ARGV[1]: the lease id.
-- Returns {leases removed}.

local removed = 0
for i = 1, #KEYS do
  local ok = redis.pcall('ZREM', KEYS[i], ARGV[1])
  if type(ok) == 'number' then
    removed = removed + ok
  end
end
return {removed}
