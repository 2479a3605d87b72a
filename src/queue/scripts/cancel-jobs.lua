--[[
  Cancels run jobs atomically, from any non-terminal state the scope allows. A canceled job
  leaves the wait list, its hold group or the active list, frees its in-flight slots (which
  may release held jobs), and lands in BullMQ's failed set with reason `canceled`.

  KEYS[1..7], ARGV[1..8]: the shared run-queue context (run-queue-context.lua).
  ARGV[9]  scope: waiting (queued, pending) | active (dispatched, starting, running) | any
  ARGV[10] detail recorded on each canceled job
  ARGV[11] source: `ids` (ARGV[13...] are job ids) or `wait` (pop ARGV[12] ids from the
           wait list's claim end; how a sweep drains the waiting queue in bounded steps)
  ARGV[12] how many to pop when the source is `wait`
  ARGV[13...] job ids when the source is `ids`

  Returns { { canceledId, previousState, subject, ... }, { releasedId, subject, ... }, { skippedId, state, ... } }
  where a skipped job was terminal, out of scope, or unknown ('missing').
]]
-- @include run-queue-context.lua

local scope, detail, source = ARGV[9], ARGV[10], ARGV[11]
local canceled, released, skipped = {}, {}, {}

-- The enqueue sequence of the wait list's entry at `index` (0 the newest end, -1 the claim
-- end), or nil; read once per call.
local ends = nil
local function seqAt(index)
  local id = rcall('LINDEX', ctx.wait, index)
  return id and tonumber(rcall('HGET', ctx.runPrefix .. id, 'seq') or '')
end

-- Takes a queued job off the wait list by its id. The list runs in enqueue order, so the
-- job is looked for from whichever end its sequence is nearer: from the claim end, halting
-- the 500 newest jobs behind 100,000 older ones walked past all of them for each (1.1 s of
-- Redis per call); from the newest end, past at most the 500.
local function leaveWait(id, seq)
  if ends == nil then ends = { newest = seqAt(0), oldest = seqAt(-1) } end
  local fromNewest = seq and ends.newest and ends.oldest and ends.newest - seq < seq - ends.oldest
  rcall('LREM', ctx.wait, fromNewest and 1 or -1, id)
end

local function inScope(state)
  if scope == 'any' then return not TERMINAL[state] end
  if scope == 'waiting' then return state == 'queued' or state == 'pending' end
  return ACTIVE[state] == true
end

local function cancel(id, poppedFromWait)
  local runKey = ctx.runPrefix .. id
  local run = rcall('HMGET', runKey, 'state', 'harness', 'jam', 'heldBy', 'subject', 'seq')
  local state = run[1]
  if not state then
    skipped[#skipped + 1] = id
    skipped[#skipped + 1] = 'missing'
    return
  end
  if not inScope(state) then
    if poppedFromWait and state == 'queued' then rcall('RPUSH', ctx.wait, id) end
    skipped[#skipped + 1] = id
    skipped[#skipped + 1] = state
    return
  end
  if state == 'queued' then
    if not poppedFromWait then leaveWait(id, tonumber(run[6] or '')) end
  elseif state == 'pending' then
    local group = run[4]
    rcall('ZREM', ctx.pendingPrefix .. group, id)
    if rcall('ZCARD', ctx.pendingPrefix .. group) == 0 then rcall('SREM', ctx.pendingGroups, group) end
  else
    rcall('LREM', ctx.active, -1, id)
    leaveInflight(id, run[2], run[3], released)
  end
  rcall('HSET', runKey, 'state', 'canceled', 'detail', detail)
  finishBullJob(id, false, 'canceled: ' .. detail)
  closeRun(id, 'canceled')
  canceled[#canceled + 1] = id
  canceled[#canceled + 1] = state
  canceled[#canceled + 1] = run[5] or ''
end

if source == 'wait' then
  for _ = 1, tonumber(ARGV[12]) do
    local id = rcall('RPOP', ctx.wait)
    if not id then break end
    if string.sub(id, 1, 2) ~= '0:' then cancel(id, true) end
  end
else
  for i = 13, #ARGV do cancel(ARGV[i], false) end
end
return { canceled, released, skipped }
