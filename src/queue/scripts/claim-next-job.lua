--[[
  Claims the oldest claimable run job: pops from the claim end of the wait list, holds jobs
  whose harness is at its cap or whose game jam is already being played by the same model
  (state `pending`, in a per-group set ordered by enqueue sequence), and moves the first
  claimable one to BullMQ's active list as `dispatched` with the per-job token's hash.
  Most holds happen as jobs are queued (add-jobs.lua); a claim holds the jobs queued before
  their group filled up, or before a cap was lowered.

  KEYS[1..8], ARGV[1..8]: the shared run-queue context (run-queue-context.lua).
  ARGV[9]  sha256 of the per-job token minted for this claim
  ARGV[10] most jobs this call may hold before it gives up (bounds the script's run time)
  ARGV[11] console pub/sub channel: each hold and the claim publish their `state-changed`
           run event here ('r' + JSON), atomically with the move, so the hot path makes no
           second round trip

  Returns { claimedId | '', BullMQ job data | '', run subject | '', origin | '', seq | '', heldId, heldSubject, ... }
  (seq is the job's enqueue sequence, the SQLite row's key)
]]
-- @include run-queue-context.lua

local held = {}
for _ = 1, tonumber(ARGV[10]) do
  local id = rcall('RPOP', ctx.wait)
  if not id then break end
  -- BullMQ once kept '0:<n>' markers in the wait list; they are not jobs.
  if string.sub(id, 1, 2) ~= '0:' then
    local runKey = ctx.runPrefix .. id
    local run = rcall('HMGET', runKey, 'state', 'harness', 'jam', 'seq', 'subject', 'origin')
    if not run[1] then
      rcall('LPUSH', ctx.orphans, id)
    elseif run[1] == 'queued' then
      local group = holdGroupOf(run[2], run[3], false)
      if group then
        hold(id, tonumber(run[4]), group)
        held[#held + 1] = id
        held[#held + 1] = run[5] or ''
        rcall('PUBLISH', ARGV[11], 'r{"kind":"state-changed","state":"pending",' .. (run[5] or '') .. '}')
      else
        rcall('LPUSH', ctx.active, id)
        rcall('SADD', ctx.inflightPrefix .. 'h:' .. run[2], id)
        if run[3] ~= '' then rcall('SADD', ctx.inflightPrefix .. 'j:' .. run[3], id) end
        rcall('HSET', runKey, 'state', 'dispatched', 'token', ARGV[9], 'dispatchedAt', ctx.now)
        local jobKey = ctx.bullJobPrefix .. id
        rcall('HSET', jobKey, 'processedOn', ctx.now)
        rcall('HINCRBY', jobKey, 'ats', 1)
        rcall('XADD', ctx.bullEvents, 'MAXLEN', '~', 10000, '*', 'event', 'active', 'jobId', id, 'prev', 'waiting')
        rcall('PUBLISH', ARGV[11], 'r{"kind":"state-changed","state":"dispatched",' .. (run[5] or '') .. '}')
        return { id, rcall('HGET', jobKey, 'data') or 'null', run[5] or '', run[6] or '', run[4], unpack(held) }
      end
    end
    -- Any other state: a stale entry (its cancel already recorded it); dropping it is the fix.
  end
end
return { '', '', '', '', '', unpack(held) }
