// date-time of RFC 3339 section 5.6; the separator may also be a space or lower case (its note allows both).
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * An RFC 3339 timestamp as the UTC instant it names (`toISOString`, millisecond precision),
 * or null when the text is not one: wrong shape, or a field out of range (month 13,
 * February 30, hour 24, an offset beyond 23:59). Normalized times order correctly as text.
 */
export function rfc3339ToUtc(text: string): string | null {
  const match = RFC3339.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction = '', zone] = match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const offset = zone!.toUpperCase() === 'Z' ? 0 : offsetMinutes(zone!);
  if (offset === null || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const local = Date.UTC(y, mo - 1, d, h, mi, s, Math.floor(Number(`0${fraction || '.0'}`) * 1000));
  // Date.UTC rolls February 30 over into March; a day that does not exist is refused instead.
  if (new Date(local).getUTCDate() !== d) return null;
  return new Date(local - offset * 60_000).toISOString();
}

function offsetMinutes(zone: string): number | null {
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (hours > 23 || minutes > 59) return null;
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}
