--[[
  Releases a schedule lock only if the caller still holds it, so a holder whose claim
  expired never deletes the claim a later holder took. A holder that acts on marks
  (ARGV[2] = 1) and finds one left by a caller that found the lock busy keeps the lock
  (renewed) and clears the mark instead, so it can top up again first; a holder that does
  not act on marks leaves the mark for the next one that does.

  KEYS[1] the lock key
  KEYS[2] the owner's top-up-again mark
  ARGV[1] the holder's token
  ARGV[2] 1 when the holder acts on the mark, else 0
  ARGV[3] the lock's TTL in milliseconds (renewed when the holder keeps it)

  Returns 1 when released, 2 when kept because of a mark (now cleared), 0 when the lock was
  not (or no longer) the caller's.
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
if ARGV[2] == '1' and redis.call('DEL', KEYS[2]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 2
end
redis.call('DEL', KEYS[1])
return 1
