--[[
  The store's rows now hold these runs' outcomes: each leaves the not-yet-copied set, and its
  state and live backlog expire after the finished-run TTL (ARGV[7]). An id not in the set
  (confirmed already, by this process or another) is left alone.
  ARGV[9..]: job ids. Returns how many left the set.
]]
-- @include run-queue-context.lua
local confirmed = 0
for i = 9, #ARGV do
  local id = ARGV[i]
  if rcall('ZREM', ctx.uncopied, id) == 1 then
    rcall('EXPIRE', ctx.runPrefix .. id, ctx.ttl)
    rcall('EXPIRE', ctx.runPrefix .. id .. ':live', ctx.ttl)
    confirmed = confirmed + 1
  end
end
return confirmed
