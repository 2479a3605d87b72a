import { AjvCompiler } from '@fastify/ajv-compiler';

type BuildFromPool = ReturnType<typeof AjvCompiler>;
type RouteSchemaDefinition = { schema: unknown; method: string; url: string; httpPart?: string };

// Ajv's defaults as Fastify ships them, minus stripping unknown fields: a schema that
// refuses them says so (additionalProperties: false) instead of silently dropping them.
const SHARED = { removeAdditional: false, allErrors: false } as const;

/**
 * Validators that coerce only where the wire has no types. A query string or a path
 * parameter is text, so `?limit=20` becomes 20 (and `?tag=a` an array where one is
 * expected); a JSON body carries its own types, so `{"force":"true"}` is refused with
 * the field named rather than read as `true`.
 */
export function requestValidators(...[externalSchemas, options]: Parameters<BuildFromPool>): ReturnType<BuildFromPool> {
  const build = AjvCompiler();
  const plugins = options?.plugins ?? [];
  const coercing = build(externalSchemas, { plugins, customOptions: { ...SHARED, coerceTypes: 'array' } });
  const exact = build(externalSchemas, { plugins, customOptions: { ...SHARED, coerceTypes: false } });
  const compile = (route: RouteSchemaDefinition) =>
    route.httpPart === 'body' ? exact(route as never) : refusingNul(refusingInfinity(coercing(route as never) as Validate));
  return compile as never;
}

type ValidationError = { instancePath: string; schemaPath: string; keyword: string; params: Record<string, unknown>; message: string };
type Validate = ((data: unknown) => boolean) & { errors?: ValidationError[] | null };

/**
 * Ajv coerces `1e309` to Infinity and then skips its numeric bounds (they only test
 * finite numbers), so a coerced Infinity would pass `maximum`. Text parts are flat
 * objects: refuse any infinite value among their fields.
 */
function refusingInfinity(validate: Validate): Validate {
  const checked: Validate = (data) => {
    if (!validate(data)) {
      checked.errors = validate.errors ?? null;
      return false;
    }
    const field = data && typeof data === 'object' ? Object.keys(data).find((key) => isInfinite((data as Record<string, unknown>)[key])) : undefined;
    checked.errors = field === undefined ? null : [{ instancePath: `/${field}`, schemaPath: '#', keyword: 'type', params: {}, message: 'must be a finite number' }];
    return field === undefined;
  };
  return checked;
}

const isInfinite = (value: unknown): boolean =>
  (typeof value === 'number' && !Number.isFinite(value)) || (Array.isArray(value) && value.some(isInfinite));

/**
 * PostgreSQL text cannot hold a NUL character (SQLite's can), so a `%00` in a path parameter
 * or query field would be refused by one store and kept by the other. Both refuse it here,
 * with the field named, before any store sees it. Bodies are not walked: a driver's record
 * may quote any text, and is kept as JSON text, where a NUL is written `\u0000`; a NUL that
 * reaches a column of its own is answered 400 by the error envelope (`nulInText`).
 */
function refusingNul(validate: Validate): Validate {
  const checked: Validate = (data) => {
    if (!validate(data)) {
      checked.errors = validate.errors ?? null;
      return false;
    }
    const path = nulAt(data, '');
    checked.errors = path === null ? null : [{ instancePath: path, schemaPath: '#', keyword: 'pattern', params: {}, message: 'must not contain a NUL character (\\u0000)' }];
    return path === null;
  };
  return checked;
}

/** The JSON pointer of the first string (or object key) holding a NUL, or null. */
function nulAt(value: unknown, at: string): string | null {
  if (typeof value === 'string') return value.includes('\0') ? at : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulAt(value[i], `${at}/${i}`);
      if (found !== null) return found;
    }
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [key, member] of Object.entries(value)) {
    const here = `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (key.includes('\0')) return here;
    const found = nulAt(member, here);
    if (found !== null) return found;
  }
  return null;
}
