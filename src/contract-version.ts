/** Version of the HTTP contract this build serves, reported by GET /healthz. */
export const CONTRACT_VERSION = '1.0.0';
