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
    route.httpPart === 'body' ? refusingNulText(exact(route as never) as Validate, route.schema) : refusingNul(refusingInfinity(coercing(route as never) as Validate));
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

/** The 400 of a NUL at `path`, in Ajv's shape, so the envelope names the field. */
const nulError = (path: string): ValidationError[] => [{ instancePath: path, schemaPath: '#', keyword: 'pattern', params: {}, message: 'must not contain a NUL character (\\u0000)' }];

const isInfinite = (value: unknown): boolean =>
  (typeof value === 'number' && !Number.isFinite(value)) || (Array.isArray(value) && value.some(isInfinite));

/**
 * PostgreSQL text cannot hold a NUL character (SQLite's can), so a `%00` in a path parameter
 * or query field would be refused by one store and kept by the other. Both refuse it here,
 * with the field named, before any store sees it. Bodies are walked by their schema
 * (`refusingNulText`).
 */
function refusingNul(validate: Validate): Validate {
  const checked: Validate = (data) => {
    if (!validate(data)) {
      checked.errors = validate.errors ?? null;
      return false;
    }
    const path = nulAt(data, '');
    checked.errors = path === null ? null : nulError(path);
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

/**
 * A body's text fields, the strings its schema declares (a name, a writeup, a note), go to
 * columns of their own, which PostgreSQL refuses a NUL in and SQLite keeps: both engines
 * refuse one here, 400 naming the field. What the schema leaves free (a driver's record or
 * events, `Type.Unknown`, an object open to any member) is kept as JSON text, where a NUL is
 * written `\u0000`, so it is not walked.
 */
function refusingNulText(validate: Validate, schema: unknown): Validate {
  const checked: Validate = (data) => {
    if (!validate(data)) {
      checked.errors = validate.errors ?? null;
      return false;
    }
    const path = nulInText(data, schema as Schema, '');
    checked.errors = path === null ? null : nulError(path);
    return path === null;
  };
  return checked;
}

interface Schema {
  type?: string | string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema | Schema[];
}

const pointer = (at: string, key: string | number) => `${at}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** The JSON pointer of the first string the schema declares as text that holds a NUL, or null. */
function nulInText(value: unknown, schema: Schema | undefined, at: string): string | null {
  if (!schema || typeof schema !== 'object') return null;
  for (const branches of [schema.anyOf, schema.oneOf, schema.allOf]) {
    for (const branch of branches ?? []) {
      const found = nulInText(value, branch, at);
      if (found !== null) return found;
    }
  }
  const types = typeof schema.type === 'string' ? [schema.type] : schema.type ?? [];
  if (typeof value === 'string') return types.includes('string') && value.includes('\0') ? at : null;
  if (Array.isArray(value)) {
    const { items } = schema;
    if (!items || Array.isArray(items)) return null;
    for (let i = 0; i < value.length; i++) {
      const found = nulInText(value[i], items, pointer(at, i));
      if (found !== null) return found;
    }
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  const patterned = Object.values(schema.patternProperties ?? {});
  const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  for (const [key, member] of Object.entries(value)) {
    const declared = schema.properties?.[key];
    // A record's keys are text too (a slot name); a declared member's key is the schema's own.
    if (!declared && (patterned.length > 0 || extra) && key.includes('\0')) return pointer(at, key);
    for (const memberSchema of declared ? [declared] : [...patterned, ...(extra ? [extra] : [])]) {
      const found = nulInText(member, memberSchema, pointer(at, key));
      if (found !== null) return found;
    }
  }
  return null;
}
