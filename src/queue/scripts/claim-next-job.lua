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
  KEYS[9]  set of ids whose wait-list entries a cancel left in place (cancel-jobs.lua)
  ARGV[9]  most jobs this call may hold on its way (bounds the script's run time); it may
           drop up to DROPS_PER_HOLD times as many stale entries, which cost one read each.
           Claims left when either is spent, or when the wait list is empty, find nothing
  ARGV[10] console pub/sub channel: the `state-changed` run events of the call's holds and
           claims, in order, go here as one message ('r' + their JSON joined by newlines),
           atomically with the moves, so the hot path makes no second round trip; none
           when no process is subscribed
  ARGV[11] deadline, ms since epoch by Redis's clock (TIME): a call that runs later touches
           nothing. A call held in a cut-off connection runs when the link heals, after
           its caller has answered 503; claiming then would leave a job dispatched to nobody
  ARGV[12..] sha256 of each claim's per-job token, one claim per hash

  Returns { n, Redis's clock (ms), then four per claimed job: id, BullMQ job data, origin | '', seq;
  then heldId, heldSubject, ... } where the first n hashes claimed a job and the rest found
  nothing (seq is the job's enqueue sequence, the SQLite row's key); n is -1 when the
  deadline had passed, and nothing was read or written
]]
-- @include run-queue-context.lua

-- Redis 7 replicates a script's effects, not the script, so reading the clock is allowed here.
local clock = rcall('TIME')
local redisNow = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
if redisNow > tonumber(ARGV[11]) then return { -1, redisNow } end

local leftBehind = KEYS[9]
local budget = tonumber(ARGV[9])
-- A halt leaves its canceled jobs' entries in the wait list (cancel-jobs.lua), thousands in
-- a row; at the hold budget alone the claims would answer nothing for hundreds of calls.
local DROPS_PER_HOLD = 16
local drops = DROPS_PER_HOLD * budget
local channel = ARGV[10]
-- The run events are written only while some process listens (a console is open): a
-- claim's event text cost a sixth of the script's time, for nobody.
local listened = rcall('PUBSUB', 'NUMSUB', channel)[2] > 0
local claimed, held, events, activated = {}, {}, {}, {}
-- Wait-list entries taken but not looked at yet, the next one last.
local taken = {}

-- The next wait-list entry, taking as many at once as there are claims left to make: one
-- LRANGE and LTRIM in place of an RPOP per claim. No more are taken than claims are left
-- or either budget allows, and each claim, hold or drop uses one, so the call never ends
-- holding an entry it took.
local function nextWaiting(wanted)
  if #taken == 0 then
    local count = math.min(wanted, budget, drops)
    taken = rcall('LRANGE', ctx.wait, -count, -1)
    if #taken == 0 then
      -- No entries, so none left behind (and none counted for an entry that was lost).
      rcall('DEL', leftBehind)
      return nil
    end
    rcall('LTRIM', ctx.wait, 0, -#taken - 1)
  end
  local id = taken[#taken]
  taken[#taken] = nil
  return id
end

-- Claims one job for `tokenHash`: true when it found one. `wanted` claims are left, this one's included.
local function claimOne(tokenHash, wanted)
  while budget > 0 and drops > 0 do
    local id = nextWaiting(wanted)
    if not id then return false end
    local dropped = true
    -- BullMQ once kept '0:<n>' markers in the wait list; they are not jobs.
    if string.sub(id, 1, 2) ~= '0:' then
      local runKey = ctx.runPrefix .. id
      local run = rcall('HMGET', runKey, 'state', 'harness', 'jam', 'seq', 'subject', 'origin')
      if not run[1] then
        -- No state: a left-behind entry that outlived its run's state, or an orphan.
        if rcall('SREM', leftBehind, id) == 0 then rcall('LPUSH', ctx.orphans, id) end
      elseif run[1] == 'queued' then
        local group = holdGroupOf(run[2], run[3], false)
        if not group then
          activated[#activated + 1] = id
          rcall('SADD', ctx.inflightPrefix .. 'h:' .. run[2], id)
          if run[3] ~= '' then rcall('SADD', ctx.inflightPrefix .. 'j:' .. run[3], id) end
          rcall('HSET', runKey, 'state', 'dispatched', 'token', tokenHash, 'dispatchedAt', ctx.now)
          local jobKey = ctx.bullJobPrefix .. id
          -- A job is claimed once (a re-queued one starts from a fresh hash), so its first start.
          rcall('HSET', jobKey, 'processedOn', ctx.now, 'ats', 1)
          if listened then events[#events + 1] = '{"kind":"state-changed","state":"dispatched",' .. (run[5] or '') .. '}' end
          local n = #claimed
          claimed[n + 1], claimed[n + 2] = id, rcall('HGET', jobKey, 'data') or 'null'
          claimed[n + 3], claimed[n + 4] = run[6] or '', run[4]
          return true
        end
        hold(id, tonumber(run[4]), group)
        dropped = false
        held[#held + 1] = id
        held[#held + 1] = run[5] or ''
        if listened then events[#events + 1] = '{"kind":"state-changed","state":"pending",' .. (run[5] or '') .. '}' end
      else
        -- Any other state: an entry a cancel left behind, or another stale one (its end is
        -- recorded already); dropping it is the fix.
        rcall('SREM', leftBehind, id)
      end
    end
    if dropped then drops = drops - 1 else budget = budget - 1 end
  end
  return false
end

for i = 12, #ARGV do
  if not claimOne(ARGV[i], #ARGV - i + 1) then break end
end
-- Every claim's move to BullMQ's active list, and every run event, in one command each.
if #activated > 0 then rcall('LPUSH', ctx.active, unpack(activated)) end
if #events > 0 then rcall('PUBLISH', channel, 'r' .. table.concat(events, '\n')) end
local reply = { #claimed / 4, redisNow }
for _, value in ipairs(claimed) do reply[#reply + 1] = value end
for _, value in ipairs(held) do reply[#reply + 1] = value end
return reply
