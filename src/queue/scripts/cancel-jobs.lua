--[[
  Cancels run jobs atomically, from any non-terminal state the scope allows. A canceled job
  leaves the wait list, its hold group or the active list, frees its in-flight slots (which
  may release held jobs), and lands in BullMQ's failed set with reason `canceled`.

  KEYS[1..8], ARGV[1..8]: the shared run-queue context (run-queue-context.lua).
  KEYS[9]  set of ids whose wait-list entries a cancel left in place (see leaveWait)
  ARGV[9]  scope: waiting (queued, pending) | active (dispatched, starting, running) | any
  ARGV[10] detail recorded on each canceled job
  ARGV[11] most wait-list entries looked at from each end for a canceled queued job
  ARGV[12] source: `ids` (ARGV[14...] are job ids) or `wait` (pop ARGV[13] ids from the
           wait list's claim end; how a sweep drains the waiting queue in bounded steps)
  ARGV[13] how many to pop when the source is `wait`
  ARGV[14...] job ids when the source is `ids`

  Returns { { canceledId, previousState, subject, ... }, { releasedId, subject, ... }, { skippedId, state, ... } }
  where a skipped job was terminal, out of scope, or unknown ('missing').
]]
-- @include run-queue-context.lua

local leftBehind = KEYS[9]
local scope, detail, reach, source = ARGV[9], ARGV[10], tonumber(ARGV[11]), ARGV[12]
local canceled, released, skipped = {}, {}, {}

-- Takes a canceled queued job off the wait list when it sits within `reach` entries of
-- either end: LPOS finds it there, and LREM from that end stops at it. Further in, its entry
-- stays, and its id goes in the left-behind set: the claims drop the entry when they reach
-- it, and the waiting count leaves it out. An LREM walks the list to its entry, 9 ms at the
-- middle of a million jobs, so a halt's step of 500 held Redis for 4.5 s.
local function leaveWait(id)
  if rcall('LPOS', ctx.wait, id, 'RANK', -1, 'MAXLEN', reach) then
    rcall('LREM', ctx.wait, -1, id)
  elseif rcall('LPOS', ctx.wait, id, 'MAXLEN', reach) then
    rcall('LREM', ctx.wait, 1, id)
  else
    rcall('SADD', leftBehind, id)
  end
end

local function inScope(state)
  if scope == 'any' then return not TERMINAL[state] end
  if scope == 'waiting' then return state == 'queued' or state == 'pending' end
  return ACTIVE[state] == true
end

local function cancel(id, poppedFromWait)
  local runKey = ctx.runPrefix .. id
  local run = rcall('HMGET', runKey, 'state', 'harness', 'jam', 'heldBy', 'subject')
  local state = run[1]
  -- A popped entry of a job no longer queued is one a cancel left behind: it is gone now.
  if poppedFromWait and state ~= 'queued' then rcall('SREM', leftBehind, id) end
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
    if not poppedFromWait then leaveWait(id) end
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
  for _ = 1, tonumber(ARGV[13]) do
    local id = rcall('RPOP', ctx.wait)
    if not id then
      -- No entries, so none left behind (and none counted for an entry that was lost).
      rcall('DEL', leftBehind)
      break
    end
    if string.sub(id, 1, 2) ~= '0:' then cancel(id, true) end
  end
else
  for i = 14, #ARGV do cancel(ARGV[i], false) end
end
return { canceled, released, skipped }
