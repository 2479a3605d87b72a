--[[
  Sets (or removes) a harness's parallelism cap and releases the held jobs the new cap
  admits, oldest first. A write carries the revision SQLite gave it; one older than the
  revision Redis last applied for the harness lost a race with a newer write and changes
  nothing, so Redis ends up with the cap SQLite stored last.

  KEYS[1..8], ARGV[1..8]: the shared run-queue context (run-queue-context.lua).
  KEYS[9]  hash harness slug -> revision of the cap applied
  ARGV[9]  harness slug
  ARGV[10] maxParallelism, or '' to remove the cap
  ARGV[11] revision of this write, or '' to apply it whatever Redis holds (boot reconcile of
           a cap SQLite no longer has)

  Returns { releasedId, subject, ... } (empty for a stale write)
]]
-- @include run-queue-context.lua

local harness, cap, revision = ARGV[9], tonumber(ARGV[10]), tonumber(ARGV[11])
local applied = tonumber(rcall('HGET', KEYS[9], harness) or '')
if revision and applied and revision < applied then return {} end
if revision then rcall('HSET', KEYS[9], harness, revision) else rcall('HDEL', KEYS[9], harness) end

local group = 'h:' .. harness
local released = {}
local free = rcall('ZCARD', ctx.pendingPrefix .. group)
if cap then
  rcall('HSET', ctx.caps, harness, cap)
  free = math.min(free, cap - rcall('SCARD', ctx.inflightPrefix .. group))
else
  rcall('HDEL', ctx.caps, harness)
end
releaseHeld(group, free, released)
return released
