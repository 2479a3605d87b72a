--[[
  Shared head of every run-queue script (spliced in where a script says `-- @include`).

  Every run-queue script takes the same leading KEYS and ARGV, so the caller builds them once:
    KEYS[1] wait list (BullMQ)         KEYS[5] harness caps hash
    KEYS[2] active list (BullMQ)       KEYS[6] set of hold groups holding jobs
    KEYS[3] completed zset (BullMQ)    KEYS[7] orphan list
    KEYS[4] failed zset (BullMQ)       KEYS[8] finished runs not yet copied to the store (zset, by when)
    ARGV[1] BullMQ job key prefix      ARGV[5] now (ms since epoch)
    ARGV[2] run state key prefix       ARGV[6] finished BullMQ jobs kept per set
    ARGV[3] in-flight set key prefix   ARGV[7] seconds a finished run's state and backlog are kept once copied
    ARGV[4] held zset key prefix       ARGV[8] approximate cap of a live backlog stream
  Script-specific ARGV start at ARGV[9].

  The wait list is BullMQ's: new jobs are LPUSHed, the claim end is the right.
  BullMQ's event stream is not written: nothing here reads it (the console channel carries
  every transition), and an entry per claim cost a tenth of the claim script's time.
  A run state hash holds: state, harness, jam ('' unless a game jam), seq, origin, subject
  (pre-encoded run-event JSON members), token (sha256 of the per-job token), heldBy,
  recordId, detail, maxRuntime (seconds, absent when unknown), dispatchedAt (ms, set by the
  claim) and startedAt (ms, the first driver report). Scripts return `id, subject` pairs so callers publish run events
  without reading anything back.
]]
local rcall = redis.call
local ctx = {
  wait = KEYS[1], active = KEYS[2], completed = KEYS[3], failed = KEYS[4],
  caps = KEYS[5], pendingGroups = KEYS[6], orphans = KEYS[7], uncopied = KEYS[8],
  bullJobPrefix = ARGV[1], runPrefix = ARGV[2], inflightPrefix = ARGV[3], pendingPrefix = ARGV[4],
  now = ARGV[5], keep = tonumber(ARGV[6]), ttl = tonumber(ARGV[7]), liveCap = tonumber(ARGV[8]),
}

local ACTIVE = { dispatched = true, starting = true, running = true }
local TERMINAL = { succeeded = true, failed = true, canceled = true }

-- A harness's cap, or nil when it has none; read once per call, since no script but the
-- cap's own changes it.
local capsRead = {}
local function capOf(harness)
  local cap = capsRead[harness]
  if cap == nil then
    cap = tonumber(rcall('HGET', ctx.caps, harness) or '') or false
    capsRead[harness] = cap
  end
  return cap or nil
end

-- The hold group a queued job must wait in now, or nil when it may be claimed: its harness
-- is at its cap, or a job of the same game jam and model is in flight. A group that already
-- holds jobs takes newcomers behind them (`queueing`: the job is being queued, not claimed),
-- so a freed slot goes to the oldest.
local function holdGroupOf(harness, jam, queueing)
  local harnessGroup = 'h:' .. harness
  local cap = capOf(harness)
  if cap and (rcall('SCARD', ctx.inflightPrefix .. harnessGroup) >= cap
      or (queueing and rcall('EXISTS', ctx.pendingPrefix .. harnessGroup) == 1)) then
    return harnessGroup
  end
  if jam ~= '' then
    local jamGroup = 'j:' .. jam
    if rcall('SCARD', ctx.inflightPrefix .. jamGroup) > 0 or (queueing and rcall('EXISTS', ctx.pendingPrefix .. jamGroup) == 1) then
      return jamGroup
    end
  end
  return nil
end

-- Holds a queued job in `group` (state `pending`), ordered by its enqueue sequence.
local function hold(id, seq, group)
  rcall('ZADD', ctx.pendingPrefix .. group, seq, id)
  rcall('SADD', ctx.pendingGroups, group)
  rcall('HSET', ctx.runPrefix .. id, 'state', 'pending', 'heldBy', group)
end

-- Moves up to `count` of the oldest jobs held in `group` back to the claim end of the wait
-- list, the oldest nearest the end, and appends `id, subject` pairs to `released`.
local function releaseHeld(group, count, released)
  local pendingKey = ctx.pendingPrefix .. group
  if count > 0 then
    local popped = rcall('ZPOPMIN', pendingKey, count)
    for i = #popped - 1, 1, -2 do
      local id = popped[i]
      rcall('RPUSH', ctx.wait, id)
      rcall('HSET', ctx.runPrefix .. id, 'state', 'queued', 'heldBy', '')
      released[#released + 1] = id
      released[#released + 1] = rcall('HGET', ctx.runPrefix .. id, 'subject') or ''
    end
  end
  if rcall('ZCARD', pendingKey) == 0 then rcall('SREM', ctx.pendingGroups, group) end
end

-- Takes an in-flight job out of its hold groups and releases what the freed slots allow.
local function leaveInflight(id, harness, jam, released)
  local harnessGroup = 'h:' .. harness
  local harnessSet = ctx.inflightPrefix .. harnessGroup
  rcall('SREM', harnessSet, id)
  local cap = capOf(harness)
  local free = rcall('ZCARD', ctx.pendingPrefix .. harnessGroup)
  if cap then free = math.min(free, cap - rcall('SCARD', harnessSet)) end
  releaseHeld(harnessGroup, free, released)
  if jam and jam ~= '' then
    local jamSet = ctx.inflightPrefix .. 'j:' .. jam
    rcall('SREM', jamSet, id)
    if rcall('SCARD', jamSet) == 0 then releaseHeld('j:' .. jam, 1, released) end
  end
end

-- Records a terminal outcome on BullMQ's job hash and sets, as BullMQ's own moveToFinished
-- would, and trims the oldest finished jobs beyond `keep` (SQLite keeps the durable record).
local function finishBullJob(id, succeeded, value)
  local jobKey = ctx.bullJobPrefix .. id
  if rcall('EXISTS', jobKey) == 0 then return end
  local set, field = ctx.failed, 'failedReason'
  if succeeded then set, field = ctx.completed, 'returnvalue' end
  rcall('ZADD', set, ctx.now, id)
  rcall('HSET', jobKey, field, value, 'finishedOn', ctx.now)
  rcall('HINCRBY', jobKey, 'atm', 1)
  local excess = rcall('ZCARD', set) - ctx.keep
  if excess > 0 then
    local old = rcall('ZPOPMIN', set, math.min(excess, 16))
    for i = 1, #old, 2 do
      rcall('DEL', ctx.bullJobPrefix .. old[i], ctx.bullJobPrefix .. old[i] .. ':logs')
    end
  end
end

-- Marks the end of a run's live backlog (followers close on it) and lists the run as not yet
-- copied: its state and backlog are kept until the store's row holds the outcome
-- (confirm-copied.lua then lets them expire), so an outcome whose copy failed is never lost.
local function closeRun(id, state)
  local liveKey = ctx.runPrefix .. id .. ':live'
  rcall('XADD', liveKey, 'MAXLEN', '~', ctx.liveCap, '*', 'end', state)
  rcall('ZADD', ctx.uncopied, ctx.now, id)
end

-- Ends an active job (dispatched, starting or running) as succeeded or failed: it leaves the
-- active list and its hold groups (appending what that releases to `released`), and its
-- outcome is recorded on the run and on BullMQ's job. `value` is BullMQ's return value or
-- failed reason. `listed` false: the caller takes it off the active list itself.
local function finishActive(id, harness, jam, target, detail, recordId, value, released, listed)
  if listed ~= false then rcall('LREM', ctx.active, -1, id) end
  leaveInflight(id, harness, jam, released)
  rcall('HSET', ctx.runPrefix .. id, 'state', target, 'detail', detail, 'recordId', recordId)
  finishBullJob(id, target == 'succeeded', value)
  closeRun(id, target)
end
