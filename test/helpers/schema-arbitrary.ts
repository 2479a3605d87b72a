import fc from 'fast-check';

/** The JSON Schema subset TypeBox emits for our routes. */
export interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

const MAX_DEPTH = 5;
const junk = fc.jsonValue({ maxDepth: 3 });

/**
 * Stands for a value nested thousands of levels deep wherever a schema takes any JSON
 * (`{}`, open objects). Building such a value would overflow the stack that serializes it,
 * so the request's text replaces this marker (see `withDeepNesting`).
 */
export const DEEP_MARKER = '\u0000deep-nesting\u0000';
const anyJson = fc.oneof({ weight: 4, arbitrary: junk }, { weight: 1, arbitrary: fc.constant(DEEP_MARKER) });

/** JSON text of `value` with every DEEP_MARKER replaced by nesting `levels` deep (arrays or objects). */
export function withDeepNesting(value: unknown, levels: number, arrays: boolean): string {
  const nested = arrays ? `${'['.repeat(levels)}${']'.repeat(levels)}` : `${'{"a":'.repeat(levels)}{}${'}'.repeat(levels)}`;
  return JSON.stringify(value).replaceAll(JSON.stringify(DEEP_MARKER), nested);
}

/**
 * Values a schema accepts (most of the time: bounds on lengths and numbers are honoured,
 * formats only roughly), to send as they are or after `mutated` breaks them.
 */
export function valueOf(schema: JsonSchema, depth = 0, open: fc.Arbitrary<unknown> = anyJson): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map((member) => valueOf(member, depth + 1, open)));
  if (schema.allOf?.length) return valueOf(schema.allOf[0]!, depth + 1, open);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return open;
  return fc.oneof(...types.map((type) => ofType(type, schema, depth, open)));
}

/** A value of the schema with DEEP_MARKER wherever it takes any JSON, so nesting reaches past validation. */
export const deepValueOf = (schema: JsonSchema) => valueOf(schema, 0, fc.constant(DEEP_MARKER));

function ofType(type: string, schema: JsonSchema, depth: number, open: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1_000_000);
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000);
      return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) });
    }
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? valueOf(schema.items, depth + 1, open) : open, {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4)),
      });
    case 'object':
      return objectOf(schema, depth, open);
    default:
      return junk;
  }
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 24, 24));
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((date) => date.toISOString());
  if (schema.format === 'date') return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((date) => date.toISOString().slice(0, 10));
  if (schema.pattern) {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length >= minLength && text.length <= (schema.maxLength ?? Infinity));
  }
  return fc.string({ minLength, maxLength, unit: fc.oneof(fc.constantFrom('a', 'b', '-', '.', '1', '@', '/'), fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' })) });
}

function objectOf(schema: JsonSchema, depth: number, open: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const model = Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, valueOf(property, depth + 1, open)]));
  const known = fc.record(model, { requiredKeys: (schema.required ?? []).filter((key) => key in properties) });
  const rest = schema.patternProperties
    ? Object.values(schema.patternProperties)[0]
    : schema.additionalProperties === true ? {} : typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  if (!rest) return known;
  return fc.tuple(known, fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), valueOf(rest, depth + 1, open), { minKeys: rest === schema.additionalProperties || Object.keys(rest).length === 0 ? 1 : 0, maxKeys: 3 }))
    .map(([fields, extra]) => ({ ...extra, ...(fields as object) }));
}

/** A value of the schema with one part replaced by arbitrary JSON, or arbitrary JSON outright. */
export function mutated(schema: JsonSchema): fc.Arbitrary<unknown> {
  return fc.oneof(
    junk,
    fc.tuple(valueOf(schema), junk, fc.nat()).map(([value, replacement, pick]) => {
      if (!value || typeof value !== 'object') return replacement;
      const keys = Object.keys(value);
      if (keys.length === 0) return replacement;
      return Array.isArray(value)
        ? value.map((item, index) => (index === pick % keys.length ? replacement : item))
        : { ...value, [keys[pick % keys.length]!]: replacement };
    }),
  );
}

/** Valid-ish or broken, about half each. */
export const inputOf = (schema: JsonSchema | undefined): fc.Arbitrary<unknown> =>
  schema ? fc.oneof(valueOf(schema), mutated(schema)) : fc.oneof(fc.constant(undefined), junk);
