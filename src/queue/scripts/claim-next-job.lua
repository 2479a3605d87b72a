--[[
  Claims the oldest claimable run job for each token hash given, in order: pops from the claim
  end of the wait list, holds jobs whose harness is at its cap or whose game jam is already
  being played by the same model (state `pending`, in a per-group set ordered by enqueue
  sequence), and moves the first claimable one to BullMQ's active list as `dispatched` with
  the per-job token's hash. One call carries the claims of every dispatcher the API heard
  from in one turn of its event loop, so Redis pays the script's fixed cost once for them.
  Most holds happen as jobs are queued (add-jobs.lua); a claim holds the jobs queued before
  their group filled up, or before a cap was lowered.

  KEYS[1..8], ARGV[1..8]: the shared run-queue context (run-queue-context.lua).
  ARGV[9]  most wait-list entries this call may look at past the ones it claims (bounds the
           script's run time); claims left when it is spent, or when the wait list is empty,
           find nothing
  ARGV[10] console pub/sub channel: each hold and claim publishes its `state-changed` run
           event here ('r' + JSON), atomically with the move, so the hot path makes no
           second round trip
  ARGV[11..] sha256 of each claim's per-job token, one claim per hash

  Returns { n, then five per claimed job: id, BullMQ job data, run subject, origin | '', seq;
  then heldId, heldSubject, ... } where the first n hashes claimed a job and the rest found
  nothing (seq is the job's enqueue sequence, the SQLite row's key)
]]
-- @include run-queue-context.lua

local budget = tonumber(ARGV[9])
local channel = ARGV[10]
local claimed, held = {}, {}

-- Claims one job for `tokenHash`: true when it found one.
local function claimOne(tokenHash)
  while budget > 0 do
    local id = rcall('RPOP', ctx.wait)
    if not id then return false end
    -- BullMQ once kept '0:<n>' markers in the wait list; they are not jobs.
    if string.sub(id, 1, 2) ~= '0:' then
      local runKey = ctx.runPrefix .. id
      local run = rcall('HMGET', runKey, 'state', 'harness', 'jam', 'seq', 'subject', 'origin')
      if not run[1] then
        rcall('LPUSH', ctx.orphans, id)
      elseif run[1] == 'queued' then
        local group = holdGroupOf(run[2], run[3], false)
        if not group then
          rcall('LPUSH', ctx.active, id)
          rcall('SADD', ctx.inflightPrefix .. 'h:' .. run[2], id)
          if run[3] ~= '' then rcall('SADD', ctx.inflightPrefix .. 'j:' .. run[3], id) end
          rcall('HSET', runKey, 'state', 'dispatched', 'token', tokenHash, 'dispatchedAt', ctx.now)
          local jobKey = ctx.bullJobPrefix .. id
          rcall('HSET', jobKey, 'processedOn', ctx.now)
          rcall('HINCRBY', jobKey, 'ats', 1)
          rcall('XADD', ctx.bullEvents, 'MAXLEN', '~', 10000, '*', 'event', 'active', 'jobId', id, 'prev', 'waiting')
          rcall('PUBLISH', channel, 'r{"kind":"state-changed","state":"dispatched",' .. (run[5] or '') .. '}')
          local n = #claimed
          claimed[n + 1], claimed[n + 2], claimed[n + 3] = id, rcall('HGET', jobKey, 'data') or 'null', run[5] or ''
          claimed[n + 4], claimed[n + 5] = run[6] or '', run[4]
          return true
        end
        hold(id, tonumber(run[4]), group)
        held[#held + 1] = id
        held[#held + 1] = run[5] or ''
        rcall('PUBLISH', channel, 'r{"kind":"state-changed","state":"pending",' .. (run[5] or '') .. '}')
      end
      -- Any other state: a stale entry (its cancel already recorded it); dropping it is the fix.
    end
    budget = budget - 1
  end
  return false
end

for i = 11, #ARGV do
  if not claimOne(ARGV[i]) then break end
end
local reply = { #claimed / 5 }
for _, value in ipairs(claimed) do reply[#reply + 1] = value end
for _, value in ipairs(held) do reply[#reply + 1] = value end
return reply
