--[[
  Releases a schedule lock only if the caller still holds it, so a holder whose claim
  expired never deletes the claim a later holder took.

  KEYS[1] the lock key
  ARGV[1] the holder's token

  Returns 1 when released, 0 when the lock was not (or no longer) the caller's.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
