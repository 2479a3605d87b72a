--[[
  Takes a schedule lock, or, when it is busy and the caller asks, leaves a mark that the
  holder tops up again before it lets go. One script, so a holder releasing between a failed
  take and the mark can never miss it (schedule-lock-release.lua reads the mark in the same
  step as it deletes the lock).

  KEYS[1] the lock key
  KEYS[2] the owner's top-up-again mark
  ARGV[1] the caller's token
  ARGV[2] the lock's TTL in milliseconds
  ARGV[3] the mark's TTL in milliseconds; 0 leaves no mark

  Returns 1 when taken, 0 when busy (marked when ARGV[3] > 0).
]]
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then
  return 1
end
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
end
return 0
