--[[
  Sets (or removes) a harness's parallelism cap and releases the held jobs the new cap
  admits, oldest first.

  KEYS[1..8], ARGV[1..8]: the shared run-queue context (run-queue-context.lua).
  ARGV[9]  harness slug
  ARGV[10] maxParallelism, or '' to remove the cap

  Returns { releasedId, subject, ... }
]]
-- @include run-queue-context.lua

local harness, cap = ARGV[9], tonumber(ARGV[10])
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
