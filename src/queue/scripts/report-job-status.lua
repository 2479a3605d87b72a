--[[
  Applies a driver's status report to a run job, with the transition table's rules:
  dispatched -> starting -> running -> succeeded | failed (terminal allowed from any active
  state); `canceled` is the only status accepted on a canceled job (it attaches the record);
  any other report on a canceled job is discarded. Also used by the startup reaper.

  KEYS[1..8], ARGV[1..8]: the shared run-queue context (run-queue-context.lua).
  ARGV[9]  job id
  ARGV[10] reported state: starting | running | succeeded | failed | canceled
  ARGV[11] detail ('' for none)
  ARGV[12] record id ('' for none)
  ARGV[13] BullMQ return value JSON for a success

  Returns { outcome, previousState, subject, releasedId, releasedSubject, ... } where outcome is one of
    applied    the transition happened
    same       the job is already in that state (an idempotent retry); nothing changed
    attached   a `canceled` report attached its record to the canceled job
    discarded  a late report on a canceled job
    backward   a report that would move the job back (e.g. starting after running)
    unclaimed  the job is queued or pending
    terminal   the job already finished
    not-canceled  a `canceled` report on a job that was not canceled
    missing    no such job in Redis
]]
-- @include run-queue-context.lua

local id, target, detail, recordId = ARGV[9], ARGV[10], ARGV[11], ARGV[12]
local runKey = ctx.runPrefix .. id
local run = rcall('HMGET', runKey, 'state', 'harness', 'jam', 'subject')
local state = run[1]
if not state then return { 'missing', '', '' } end
local subject = run[4] or ''

if target == 'canceled' then
  if state ~= 'canceled' then return { 'not-canceled', state, subject } end
  if recordId ~= '' then rcall('HSET', runKey, 'recordId', recordId) end
  return { 'attached', state, subject }
end
if state == 'canceled' then return { 'discarded', state, subject } end
if state == target then return { 'same', state, subject } end
if TERMINAL[state] then return { 'terminal', state, subject } end
if not ACTIVE[state] then return { 'unclaimed', state, subject } end

if target == 'starting' or target == 'running' then
  if target == 'starting' and state ~= 'dispatched' then return { 'backward', state, subject } end
  rcall('HSET', runKey, 'state', target)
  -- The driver's first report starts the maxRuntimeSeconds clock the stale-job sweep reads.
  rcall('HSETNX', runKey, 'startedAt', ctx.now)
  return { 'applied', state, subject }
end

-- succeeded or failed
local released = {}
finishActive(id, run[2], run[3], target, detail, recordId, target == 'succeeded' and ARGV[13] or detail, released)
return { 'applied', state, subject, unpack(released) }
