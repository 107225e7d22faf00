-- wrk script of the HTTP benchmark (HttpLoad writes it to a temporary file and runs
-- `wrk -s <file> <url> -- <clients>`).
--
-- Every request carries the header X-Client, cycling through <clients> distinct values, so that a
-- limiter keyed on that header sees that many clients. The requests are formatted once per thread
-- in init(): request() only hands out a prebuilt string, which keeps wrk's per-request Lua cost to
-- one table read (a wrk.format() per request would make the generator, not the server, the
-- bottleneck). Each thread starts at its own offset, so two threads do not walk the same clients
-- in step. wrk loads this script once per thread, each in a Lua state of its own, so the locals
-- below are per thread.
--
-- done() prints one line that HttpBench parses, the same line as its Java generator prints:
--   requests=<n> seconds=<s> p50us=<µs> p99us=<µs> errors=<n>
-- errors counts socket errors, timeouts and answers with a status of 400 or more.

local threads = {}
local prebuilt, client_count, next_client

function setup(thread)
   thread:set("thread_index", #threads)
   table.insert(threads, thread)
end

function init(args)
   local clients = tonumber(args[1])
   if clients == nil or clients < 1 then
      error("usage: wrk -s rotating-client.lua <url> -- <clients>")
   end
   prebuilt = {}
   for i = 1, clients do
      prebuilt[i] = wrk.format(nil, nil, { ["X-Client"] = "client-" .. (i - 1) })
   end
   client_count = clients
   -- thread_index is set by setup() before init() runs in the thread. The offset is a prime stride,
   -- not clients / threads: wrk starts each thread right after its setup(), so a thread cannot know
   -- how many will follow it.
   next_client = (thread_index * 7919) % clients + 1
end

function request()
   local prepared = prebuilt[next_client]
   next_client = next_client + 1
   if next_client > client_count then
      next_client = 1
   end
   return prepared
end

function done(summary, latency, requests)
   local failed = summary.errors.connect + summary.errors.read + summary.errors.write
         + summary.errors.status + summary.errors.timeout
   io.write(string.format("requests=%d seconds=%.3f p50us=%d p99us=%d errors=%d\n", summary.requests,
         summary.duration / 1e6, latency:percentile(50), latency:percentile(99), failed))
end
