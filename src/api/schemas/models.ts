import { Type } from '@sinclair/typebox';
import { Nullable } from './common.js';

const Rate = Type.Number({ minimum: 0, maximum: 1_000_000, description: 'USD per million tokens' });
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' });
export const ModelSlug = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:~-]*(/[A-Za-z0-9._:~-]+)*$',
  description: 'model id as launches and run records name it, usually author/name',
});

const Alias = Type.Object({ alias: Type.String({ minLength: 1, maxLength: 200 }), harnessFamily: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });

const RatesOut = Type.Object({
  inputPerMtok: Nullable(Type.Number()),
  cachedInputPerMtok: Nullable(Type.Number()),
  outputPerMtok: Nullable(Type.Number()),
});

const writeFields = {
  name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  provider: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  aliases: Type.Optional(Type.Array(Alias, { maxItems: 100 })),
  providerPin: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  logo: Type.Optional(Nullable(Type.String({ maxLength: 1_000_000, description: 'logo URL or data: URI' }))),
  listPriceInputPerMtok: Type.Optional(Nullable(Rate)),
  listPriceCachedInputPerMtok: Type.Optional(Nullable(Rate)),
  listPriceOutputPerMtok: Type.Optional(Nullable(Rate)),
  listPriceAsOf: Type.Optional(Nullable(Day)),
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
  providerPin: Nullable(Type.String()),
  logo: Nullable(Type.String()),
  listPriceInputPerMtok: Nullable(Type.Number()),
  listPriceCachedInputPerMtok: Nullable(Type.Number()),
  listPriceOutputPerMtok: Nullable(Type.Number()),
};

export const ModelEntryOut = Type.Object(
  {
    ...formFields,
    listPrice: Nullable(Type.Object({ inputPerMtok: Type.Number(), cachedInputPerMtok: Type.Number(), outputPerMtok: Type.Number() })),
    listPriceAsOf: Nullable(Type.String()),
    listPriceSource: Nullable(Type.Union([Type.Literal('hand'), Type.Literal('router')])),
    price: Nullable(RatesOut),
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

export const LogoBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200, description: 'logo name in the configured logo library, e.g. anthropic' }) },
  { additionalProperties: false },
);

export const LogoOut = Type.Object({
  logo: Type.String({ description: 'data:image/png;base64,… ready to store in an entry’s logo field' }),
  width: Type.Integer(),
  height: Type.Integer(),
  sourceUrl: Type.String(),
});
