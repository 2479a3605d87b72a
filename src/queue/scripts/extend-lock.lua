--[[
  Extends a lock's time to live, only while the caller still holds it.

  KEYS[1] lock key
  ARGV[1] the holder's token
  ARGV[2] new time to live (ms)

  Returns 1 when extended, 0 when the lock expired or another holder took it.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
