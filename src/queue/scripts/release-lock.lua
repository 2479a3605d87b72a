--[[
  Releases a lock, only when the caller still holds it (an expired lock another process took
  since is left to that process).

  KEYS[1] lock key
  ARGV[1] the holder's token

  Returns 1 when released, 0 when the caller no longer held it.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
