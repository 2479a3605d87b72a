/** Format of the resolved records this build writes into and reads from the definition store. */
export const RESOLVED_RECORD_FORMAT = 1;
