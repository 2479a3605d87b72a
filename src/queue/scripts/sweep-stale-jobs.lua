--[[
  Fails the in-flight run jobs whose driver went quiet, each as a failed report would end it
  (slots freed, held jobs released, BullMQ's job failed, live backlog closed):
  - a `dispatched` job with no driver report within the dispatch lease (the claim's answer
    never reached a dispatcher, or its driver never started);
  - a `starting` or `running` job past its maxRuntimeSeconds, counted from the driver's
    first report, plus a grace period.
  Jobs whose state hash predates these fields (no dispatchedAt, startedAt or maxRuntime)
  are left alone.

  It looks at one window of BullMQ's active list per call, oldest claims first (the tail),
  so one call holds Redis for a bounded time however many jobs are in flight; the caller
  walks the list window by window. The jobs it fails leave the list in one pass at the end:
  each is overwritten in place with a marker, then every marker is removed at once (one
  LREM per job scanned the list once per job, quadratic: 10,000 stale jobs held Redis for
  0.8 s, 40,000 for longer than any client waits).

  KEYS[1..8], ARGV[1..8]: the shared run-queue context (run-queue-context.lua).
  ARGV[9]  dispatch lease (ms); 0 turns the lease off
  ARGV[10] grace beyond a job's maxRuntimeSeconds (ms)
  ARGV[11] detail recorded on a job whose lease ran out
  ARGV[12] detail recorded on a job past its run time; `{max}` is replaced by its maxRuntimeSeconds
  ARGV[13] how many entries to look at (the window)
  ARGV[14] how many entries at the tail to pass over (those earlier windows kept)

  Returns { { failedId, previousState, subject, detail, ... }, { releasedId, subject, ... },
  entries looked at, entries kept }
]]
-- @include run-queue-context.lua

local now, lease, grace = tonumber(ctx.now), tonumber(ARGV[9]), tonumber(ARGV[10])
local window, skip = tonumber(ARGV[13]), tonumber(ARGV[14])
local SWEPT = '\0swept'
local failed, released = {}, {}
local ids = rcall('LRANGE', ctx.active, -(skip + window), -(skip + 1))
local kept = 0

-- ids[#ids] is the tail's entry `skip` in from the end: index -(skip + 1).
for i = #ids, 1, -1 do
  local id = ids[i]
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
    rcall('LSET', ctx.active, -(skip + #ids - i + 1), SWEPT)
    finishActive(id, run[2], run[3], 'failed', detail, '', detail, released, false)
    failed[#failed + 1] = id
    failed[#failed + 1] = state
    failed[#failed + 1] = run[4] or ''
    failed[#failed + 1] = detail
  else
    kept = kept + 1
  end
end
if #failed > 0 then rcall('LREM', ctx.active, 0, SWEPT) end
return { failed, released, #ids, skip + kept }
