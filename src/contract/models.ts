import { Type, type NumberOptions, type StringOptions, type TSchema } from '@sinclair/typebox';
import { Nullable } from './common.js';

/**
 * A write field that takes null. Fastify's Ajv coerces types, and in a `anyOf [T, null]` it
 * would turn a null into 0, "" or false on the first branch; with `type: [T, "null"]` a
 * null is already of an allowed type and is kept.
 */
const orNull = <T>(schema: TSchema) => Type.Unsafe<T | null>({ ...schema, type: [schema.type as string, 'null'] });
const NullableText = (options: StringOptions = {}) => orNull<string>(Type.String(options));
const NullableNumber = (options: NumberOptions = {}) => orNull<number>(Type.Number(options));

const Rate = { minimum: 0, maximum: 1_000_000, description: 'USD per million tokens' };
const Day = { pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' };
export const ModelSlug = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:~-]*(/[A-Za-z0-9._:~-]+)*$',
  description: 'model id as launches and run records name it, usually author/name',
});

const Alias = Type.Object(
  { slug: Type.String({ minLength: 1, maxLength: 200 }), harnessFamily: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

const PerTokenOut = Type.Object({
  uncachedInput: Nullable(Type.Number()),
  cachedInput: Nullable(Type.Number()),
  output: Nullable(Type.Number()),
}, { description: 'USD per token' });

const ProviderName = Type.String({ maxLength: 200 });
const Ceiling = { maximum: 1_000_000, description: 'USD per million tokens, > 0' };
const ProviderList = orNull<string[]>(Type.Array(ProviderName, { maxItems: 200 }));

const writeFields = {
  name: Type.Optional(NullableText({ maxLength: 200 })),
  provider: Type.Optional(NullableText({ maxLength: 200 })),
  description: Type.Optional(NullableText({ maxLength: 10_000 })),
  aliases: Type.Optional(Type.Array(Alias, { maxItems: 100 })),
  openrouterSlug: Type.Optional(NullableText({ maxLength: 200, description: 'the model id at the routing provider, author/name' })),
  providerPin: Type.Optional(NullableText({ maxLength: 200 })),
  nativeQuantization: Type.Optional(NullableText({ maxLength: 16, description: 'fp32, bf16, fp16, fp8, int8, fp6, fp4 or int4' })),
  quantizationFilter: Type.Optional(orNull<boolean>(Type.Boolean())),
  maxInputPrice: Type.Optional(NullableNumber(Ceiling)),
  maxOutputPrice: Type.Optional(NullableNumber(Ceiling)),
  bannedProviders: Type.Optional(ProviderList),
  unknownQuantizationProviders: Type.Optional(ProviderList),
  logo: Type.Optional(NullableText({ maxLength: 1_000_000, description: 'logo URL or data: URI' })),
  logoSvg: Type.Optional(NullableText({ maxLength: 500_000, description: 'SVG markup, sanitized before it is stored' })),
  providerLogoUrl: Type.Optional(NullableText({ maxLength: 2000, description: 'a logo in the logo library, fetched when logoSvg is empty' })),
  listPriceInputPerMtok: Type.Optional(NullableNumber(Rate)),
  listPriceCachedInputPerMtok: Type.Optional(NullableNumber(Rate)),
  listPriceOutputPerMtok: Type.Optional(NullableNumber(Rate)),
  listPriceAsOf: Type.Optional(NullableText(Day)),
};

export const ModelCreateBody = Type.Object({ slug: ModelSlug, ...writeFields }, { additionalProperties: false });
export const ModelUpdateBody = Type.Object({ slug: Type.Optional(ModelSlug), ...writeFields }, { additionalProperties: false });

/** The write fields as an entry (and the seed form) reads them back: every one present, null when unset. */
const formFields = {
  slug: Type.String(),
  name: Nullable(Type.String()),
  provider: Nullable(Type.String()),
  description: Nullable(Type.String()),
  aliases: Type.Array(Alias),
  openrouterSlug: Nullable(Type.String()),
  providerPin: Nullable(Type.String()),
  logo: Nullable(Type.String()),
  listPriceInputPerMtok: Nullable(Type.Number()),
  listPriceCachedInputPerMtok: Nullable(Type.Number()),
  listPriceOutputPerMtok: Nullable(Type.Number()),
};

export const ModelEntryOut = Type.Object(
  {
    ...formFields,
    openrouterUrl: Nullable(Type.String()),
    providerPinSetByHand: Type.Boolean(),
    nativeQuantization: Nullable(Type.String()),
    quantizationFilter: Type.Boolean(),
    maxInputPrice: Nullable(Type.Number()),
    maxOutputPrice: Nullable(Type.Number()),
    bannedProviders: Type.Array(Type.String()),
    unknownQuantizationProviders: Type.Array(Type.String()),
    logoSvg: Nullable(Type.String()),
    providerLogoUrl: Nullable(Type.String()),
    listPrice: Nullable(PerTokenOut),
    listPriceAsOf: Nullable(Type.String()),
    listPriceSource: Nullable(Type.Union([Type.Literal('hand'), Type.Literal('router')])),
    price: Nullable(PerTokenOut),
    priceHistory: Type.Array(Type.Object({
      observedAt: Type.String(),
      inputPerMtok: Nullable(Type.Number()),
      cachedInputPerMtok: Nullable(Type.Number()),
      outputPerMtok: Nullable(Type.Number()),
      source: Type.String(),
    })),
    curated: Type.Boolean(),
    runCount: Type.Integer(),
  },
  { $id: 'ModelEntry' },
);

export const ModelList = Type.Object({ models: Type.Array(ModelEntryOut) });

export const SlugWildcardParams = Type.Object({ '*': ModelSlug });

export const SeedQuery = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

export const SeedForm = Type.Object({
  ...formFields,
  listPriceAsOf: Nullable(Type.String()),
  harness: Nullable(Type.String({ description: 'the harness of the run the form was seeded from' })),
});

export const RouterQuery = Type.Object({ slug: ModelSlug }, { additionalProperties: false });

export const RouterListingOut = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  provider: Type.String(),
  description: Type.String(),
  inputPerMtok: Nullable(Type.Number()),
  cachedInputPerMtok: Nullable(Type.Number()),
  outputPerMtok: Nullable(Type.Number()),
});

/** Exactly one of the two (the route says which is missing). */
export const LogoBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'logo name in the configured logo library, e.g. anthropic' })),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: "the console's form: an SVG's full URL under LOGO_BASE_URL" })),
  },
  { additionalProperties: false },
);

export const LogoOut = Type.Union([
  Type.Object({
    logo: Type.String({ description: 'data:image/png;base64,… ready to store in an entry’s logo field' }),
    width: Type.Integer(),
    height: Type.Integer(),
    sourceUrl: Type.String(),
  }),
  Type.Object({ logoSvg: Type.String({ description: 'for a `{ url }` body: the sanitized SVG markup' }) }),
]);
