-- The process running a probe, `<host>|<pid namespace>/<pid>/<start time>` (see probe-runner.ts), written when
-- a worker takes it; null while it is queued. A boot fails the running probes whose process is gone.
ALTER TABLE model_probes ADD COLUMN runner TEXT;
