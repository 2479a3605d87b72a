/**
 * Orders version names numerically: `v1.10.0` after `v1.9.0`, and `v1.2` equal in rank to
 * `v1.2.0` (missing parts count as 0; the spelling then breaks the tie so order is total).
 */
export function compareVersions(a: string, b: string): number {
  const left = parts(a);
  const right = parts(b);
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function parts(version: string): number[] {
  return version.replace(/^v/, '').split('.').map((part) => Number.parseInt(part, 10) || 0);
}
