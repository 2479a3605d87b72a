/** Duration units in milliseconds: write `15 * SECOND`, not `15000`. */
export const MILLISECOND = 1;
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
