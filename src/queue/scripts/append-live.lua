--[[
  Appends driver-relayed event lines to a run's live backlog and keeps the backlog within
  its caps: at most ctx.liveCap entries and at most ARGV[10] bytes of event text, the
  oldest entries going first. The byte count lives in the run state hash (`liveBytes`),
  so it expires with the run's state.

  KEYS[1..8], ARGV[1..8]: the shared run-queue context (run-queue-context.lua).
  ARGV[9]   run id
  ARGV[10]  byte cap of the backlog's event text
  ARGV[11..] event lines (JSON text)

  Returns the number of entries trimmed, or -1 when the run has no state (unknown or expired).
]]
-- @include run-queue-context.lua

local id, byteCap = ARGV[9], tonumber(ARGV[10])
local runKey = ctx.runPrefix .. id
if rcall('EXISTS', runKey) == 0 then return -1 end
local liveKey = runKey .. ':live'
local added = 0
for i = 11, #ARGV do
  rcall('XADD', liveKey, '*', 'e', ARGV[i])
  added = added + #ARGV[i]
end
local bytes = rcall('HINCRBY', runKey, 'liveBytes', added)
local length = rcall('XLEN', liveKey)
if bytes <= byteCap and length <= ctx.liveCap then return 0 end

-- Walk from the oldest entry until what is left fits, then trim up to the first kept id.
local trimmed, cursor, keep = 0, '-', nil
while not keep do
  local page = rcall('XRANGE', liveKey, cursor, '+', 'COUNT', 100)
  if #page == 0 then break end
  for _, entry in ipairs(page) do
    if bytes <= byteCap and length - trimmed <= ctx.liveCap then
      keep = entry[1]
      break
    end
    local fields = entry[2]
    if fields[1] == 'e' then bytes = bytes - #fields[2] end
    trimmed = trimmed + 1
  end
  cursor = '(' .. page[#page][1]
end
if keep then
  rcall('XTRIM', liveKey, 'MINID', keep)
else
  rcall('DEL', liveKey)
  bytes = 0
end
rcall('HSET', runKey, 'liveBytes', bytes)
return trimmed
