--[[
  Fails the in-flight run jobs whose driver went quiet, each as a failed report would end it
  (slots freed, held jobs released, BullMQ's job failed, live backlog closed):
  - a `dispatched` job with no driver report within the dispatch lease (the claim's answer
    never reached a dispatcher, or its driver never started);
  - a `starting` or `running` job past its maxRuntimeSeconds, counted from the driver's
    first report, plus a grace period.
  Jobs whose state hash predates these fields (no dispatchedAt, startedAt or maxRuntime)
  are left alone.

  KEYS[1..7], ARGV[1..8]: the shared run-queue context (run-queue-context.lua).
  ARGV[9]  dispatch lease (ms); 0 turns the lease off
  ARGV[10] grace beyond a job's maxRuntimeSeconds (ms)
  ARGV[11] detail recorded on a job whose lease ran out
  ARGV[12] detail recorded on a job past its run time; `{max}` is replaced by its maxRuntimeSeconds

  Returns { { failedId, previousState, subject, detail, ... }, { releasedId, subject, ... } }
]]
-- @include run-queue-context.lua

local now, lease, grace = tonumber(ctx.now), tonumber(ARGV[9]), tonumber(ARGV[10])
local failed, released = {}, {}

for _, id in ipairs(rcall('LRANGE', ctx.active, 0, -1)) do
  local run = rcall('HMGET', ctx.runPrefix .. id, 'state', 'harness', 'jam', 'subject', 'dispatchedAt', 'startedAt', 'maxRuntime')
  local state, dispatchedAt, startedAt, maxRuntime = run[1], tonumber(run[5] or ''), tonumber(run[6] or ''), tonumber(run[7] or '')
  local detail = nil
  if state == 'dispatched' then
    if lease > 0 and dispatchedAt and now - dispatchedAt > lease then detail = ARGV[11] end
  elseif state == 'starting' or state == 'running' then
    if startedAt and maxRuntime and now - startedAt > maxRuntime * 1000 + grace then
      detail = string.gsub(ARGV[12], '{max}', tostring(maxRuntime))
    end
  end
  if detail then
    finishActive(id, run[2], run[3], 'failed', detail, '', detail, released)
    failed[#failed + 1] = id
    failed[#failed + 1] = state
    failed[#failed + 1] = run[4] or ''
    failed[#failed + 1] = detail
  end
end
return { failed, released }
