-- event-counter: how many events a client had in the last window, in O(slots) memory.
--
-- The window is cut into `slots` slots of equal length, aligned to the Unix epoch; a hash maps
-- each slot's number to its count. The count is the sum over the current slot and the slots - 1
-- before it, so it covers between window - slot and window of history: precise to one slot,
-- however many events there are (a sorted set of events would be exact but grow with traffic).
-- Stale slots are deleted on each increment; the key expires when its newest slot has left the
-- window. Counting (ARGV[1] = 0) reads and writes nothing else.
--
-- Replays are idempotent: each write names its writer (one per counter instance) and a write id,
-- and the hash keeps, per writer, the field 'w:<writer>' = '<slot of its last write>:<the ids of
-- its last IDS_KEPT writes, newest first>'. A client whose write timed out cannot know whether it
-- ran, so it sends it again later, with the same id, as a replay; a replay whose id is listed adds
-- nothing. A replay's id older than every id of a full list is too old to tell and is taken as
-- counted: an event that timed out may then be missed, never counted twice. (A first send always
-- counts: concurrent writes of one writer arrive out of order.) A writer's field leaves with the
-- slot of its last write.
--
-- KEYS[1]: the hash.  ARGV: events to add (0 to only count), slot length in microseconds, slots,
-- then for a write: writer, write id (a number in base 36, growing per writer), and 'replay' when
-- the write is sent again.
-- Returns {count in the window after adding}.

local IDS_KEPT = 8
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local key = KEYS[1]
local add = tonumber(ARGV[1])
local slot_length = tonumber(ARGV[2])
local slots = tonumber(ARGV[3])
local writer_field = ARGV[4] and ('w:' .. ARGV[4])
local write_id = ARGV[5]
local replay = ARGV[6] == 'replay'

local current = math.floor(now / slot_length)
local oldest = current - slots + 1
local fields = redis.call('HGETALL', key)
local total, stale, written = 0, {}, nil
for i = 1, #fields, 2 do
  local slot = tonumber(fields[i])
  if slot then
    if slot < oldest then
      table.insert(stale, fields[i])
    else
      total = total + tonumber(fields[i + 1])
    end
  else
    local last_slot, ids = string.match(fields[i + 1], '^(%d+):(.*)$')
    if not last_slot or tonumber(last_slot) < oldest then
      table.insert(stale, fields[i])
    elseif fields[i] == writer_field then
      written = ids
    end
  end
end

-- Whether the write id was counted already (or is too old to tell): see the header.
local function counted(ids, id)
  if not ids then
    return false
  end
  local n, listed, lowest = tonumber(id, 36), 0, nil
  for listed_id in string.gmatch(ids, '[^,]+') do
    local value = tonumber(listed_id, 36)
    if value == n then
      return true
    end
    listed = listed + 1
    lowest = lowest and math.min(lowest, value) or value
  end
  return listed >= IDS_KEPT and n < lowest
end

if add > 0 and not (replay and counted(written, write_id)) then
  if #stale > 0 then
    redis.call('HDEL', key, unpack(stale))
  end
  redis.call('HINCRBY', key, string.format('%d', current), add)
  if write_id then
    local ids = write_id
    if written then
      local kept = {}
      for listed_id in string.gmatch(written, '[^,]+') do
        table.insert(kept, listed_id)
      end
      for j = 1, math.min(#kept, IDS_KEPT - 1) do
        ids = ids .. ',' .. kept[j]
      end
    end
    redis.call('HSET', key, writer_field, string.format('%d:', current) .. ids)
  end
  redis.call('PEXPIRE', key, math.ceil(slots * slot_length / 1000))
  total = total + add
end
return {total}
