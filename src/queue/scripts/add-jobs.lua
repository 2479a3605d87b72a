--[[
  Queues new run jobs, atomically per call: each job's BullMQ job hash (the fields BullMQ's
  own add writes, so BullMQ's API and the queue dashboard read it as one of its jobs), its
  run state, and its place: the wait list when it may be claimed,
  else held (`pending`) at once in the group it waits in, so claims never walk past it.
  A job whose BullMQ hash already exists is left alone, as BullMQ's add does.

  KEYS[1..7], ARGV[1..8]: the shared run-queue context (run-queue-context.lua).
  ARGV[9..]  eight per job: id, seq, harness, jam, run subject, origin ('' for none),
             maxRuntime seconds ('' when unknown), BullMQ job data (JSON text)

  Returns { heldId, heldSubject, ... } for the jobs held as they were queued.
]]
-- @include run-queue-context.lua

local held = {}
for i = 9, #ARGV, 8 do
  local id, seq, harness, jam, subject, origin, maxRuntime, data = unpack(ARGV, i, i + 7)
  local jobKey = ctx.bullJobPrefix .. id
  if rcall('EXISTS', jobKey) == 0 then
    rcall('HSET', jobKey, 'name', 'run', 'data', data, 'opts', '{"attempts":0}', 'timestamp', ctx.now, 'delay', 0, 'priority', 0)
    local runKey = ctx.runPrefix .. id
    rcall('HSET', runKey, 'state', 'queued', 'harness', harness, 'jam', jam, 'seq', seq, 'subject', subject, 'origin', origin)
    if maxRuntime ~= '' then rcall('HSET', runKey, 'maxRuntime', maxRuntime) end
    local group = holdGroupOf(harness, jam, true)
    if group then
      hold(id, tonumber(seq), group)
      held[#held + 1] = id
      held[#held + 1] = subject
    else
      rcall('LPUSH', ctx.wait, id)
    end
  end
end
return held
