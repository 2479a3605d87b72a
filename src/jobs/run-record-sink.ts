/**
 * Where a terminal status report's run record goes, with the normalized events the driver
 * relayed (JSON text lines, relay order). The runs area owns the real store; it answers the
 * id the job then carries as `recordId`.
 */
export interface RunRecordSink {
  store(jobId: string, record: Record<string, unknown>, events: string[]): Promise<{ recordId: string }>;
}
