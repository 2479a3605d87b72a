--[[
  Renews a schedule lock's TTL only if the caller still holds it.

  KEYS[1] the lock key
  ARGV[1] the holder's token
  ARGV[2] the new TTL in milliseconds

  Returns 1 when renewed, 0 when the lock was not (or no longer) the caller's.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
