--[[
  Queues new run jobs, atomically per call: each job's BullMQ job hash (the fields BullMQ's
  own add writes, so BullMQ's API and the queue dashboard read it as one of its jobs), its
  run state, and its place: the wait list when it may be claimed,
  else held (`pending`) at once in the group it waits in, so claims never walk past it.
  Idempotent by job id: a job Redis holds a run state for (queued, held, in flight, or
  finished and not yet expired) is left alone, so an add retried after a lost reply, or the
  same lost job queued again by two processes at once, queues it once. A BullMQ hash left
  without a run state (a finished job's, kept past its state) is stale, and replaced.

  KEYS[1..8], ARGV[1..8]: the shared run-queue context (run-queue-context.lua).
  ARGV[9..]  eight per job: id, seq, harness, jam, run subject, origin ('' for none),
             maxRuntime seconds ('' when unknown), BullMQ job data (JSON text)

  Returns { heldId, heldSubject, ... } for the jobs held as they were queued.
]]
-- @include run-queue-context.lua

local held = {}
for i = 9, #ARGV, 8 do
  local id, seq, harness, jam, subject, origin, maxRuntime, data = unpack(ARGV, i, i + 7)
  local runKey = ctx.runPrefix .. id
  if rcall('HEXISTS', runKey, 'state') == 0 then
    local jobKey = ctx.bullJobPrefix .. id
    if rcall('DEL', jobKey) == 1 then
      rcall('ZREM', ctx.completed, id)
      rcall('ZREM', ctx.failed, id)
    end
    rcall('HSET', jobKey, 'name', 'run', 'data', data, 'opts', '{"attempts":0}', 'timestamp', ctx.now, 'delay', 0, 'priority', 0)
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
