/** `max_runtime_hours` → `maxRuntimeHours`; keys that are not snake_case pass unchanged. */
export function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * Deep copy with every table key camelCased, for per-kind blocks served as authored.
 * TOML dates become ISO strings so the result is plain JSON.
 */
export function camelCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCaseKeys);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [camelCase(key), camelCaseKeys(inner)]));
  }
  return value;
}
