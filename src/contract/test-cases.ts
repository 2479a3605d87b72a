import { Type, type TProperties } from '@sinclair/typebox';
import { MAX_PARAM_LENGTH, Nullable } from './common.js';

/** Objects that carry per-kind blocks through unchanged: extra keys are served as they are. */
const Open = <T extends TProperties>(properties: T, title?: string) =>
  Type.Object(properties, { additionalProperties: true, ...(title ? { title } : {}) });

const ShowcaseMedia = Type.Object({ file: Type.String(), name: Type.String(), kind: Type.String() });
const Reference = Type.Object({ view: Type.String(), kind: Type.String(), mediaUrl: Type.String() });
const Spec = Open({ source: Type.String(), dest: Type.String(), template: Type.Boolean() });
/** Engine slug → starter files `{ source, dest }`; `{}` when none. */
const WorkspaceFilesOut = Type.Record(Type.String(), Type.Array(Type.Object({ source: Type.String(), dest: Type.String() })));
const ReviewItem = Open({ id: Type.String(), title: Type.String(), text: Type.String() });

export const CatalogEntryOut = Type.Object({
  slug: Type.String(),
  versions: Type.Array(Type.String()),
  name: Type.String(),
  testType: Type.String(),
  assetKind: Nullable(Type.String({ description: "the manifest's asset_kind; sprite for an asset case naming none; null for other test types" })),
  difficulty: Type.String(),
  tags: Type.Array(Type.String()),
  summary: Type.String(),
  showcase: Nullable(Type.Object({ version: Type.String(), variant: Type.String(), media: Type.Array(ShowcaseMedia) })),
});

export const CatalogOut = Type.Object({ testCases: Type.Array(CatalogEntryOut) }, { $id: 'TestCaseCatalog' });

export const VersionsOut = Type.Object({ slug: Type.String(), versions: Type.Array(Type.String()) }, { $id: 'TestCaseVersions' });

const Variant = Open({
  slug: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  prompt: Type.String(),
  specs: Type.Array(Spec),
  references: Type.Array(Reference),
  reviewItems: Type.Array(ReviewItem),
  workspace: WorkspaceFilesOut,
  showcase: Nullable(Type.Object({ description: Type.String(), media: Type.Array(ShowcaseMedia) })),
});

export const ResolvedVersionOut = Open(
  {
    slug: Type.String(),
    version: Type.String(),
    name: Type.String(),
    difficulty: Type.String(),
    summary: Type.String(),
    testType: Type.String(),
    tags: Type.Array(Type.String()),
    description: Type.String(),
    changelog: Type.String(),
    maxRuntimeSeconds: Type.Integer(),
    engines: Type.Array(Type.Object({ slug: Type.String(), minVersion: Type.Optional(Type.String()), maxVersion: Type.Optional(Type.String()) })),
    build: Nullable(Open({ install: Type.String(), build: Type.String() })),
    workspace: WorkspaceFilesOut,
    promptTemplate: Type.String(),
    commonSpecs: Type.Array(Spec),
    assets: Type.Array(Type.Object({ source: Type.String(), dest: Type.String() })),
    variants: Type.Array(Variant),
    engineFormat: Type.Boolean(),
    commonReferences: Type.Array(Reference),
    checks: Type.Array(Type.Object({ view: Type.String(), name: Type.String(), referenceView: Type.String(), actions: Type.Array(Open({ type: Type.String() })) })),
    commonReviewItems: Type.Array(ReviewItem),
    errata: Type.Array(Open({ id: Type.String(), title: Type.String() })),
  },
  'Resolved test case version',
);

export const RenderedSpecsOut = Type.Object({
  slug: Type.String(),
  version: Type.String(),
  variant: Type.String(),
  description: Nullable(Type.String({ description: "the variant's description" })),
  specs: Type.Array(
    Type.Object({ source: Type.String(), dest: Type.String(), template: Type.Boolean(), kind: Type.String(), body: Type.String() }),
    { description: 'the seeded set in seed order: common specs, contract schema files, the variant\'s own; bodies rendered for the variant and engine' },
  ),
});

export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) });
export const VersionParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }), version: Type.String({ minLength: 1, maxLength: 100 }) });
export const EngineQuery = Type.Object({ engine: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }, { additionalProperties: false });
export const ArtifactParams = Type.Object({ ...VersionParams.properties, '*': Type.String() });
/** One path segment naming something in a version (a scope, variant, engine or file), as long as the router lets through. */
const Segment = () => Type.String({ minLength: 1, maxLength: MAX_PARAM_LENGTH });
export const ScopedFileParams = Type.Object({ ...VersionParams.properties, scope: Segment(), file: Segment() });
export const VariantParams = Type.Object({ ...VersionParams.properties, variant: Segment() });
export const VariantFileParams = Type.Object({ ...VariantParams.properties, file: Segment() });
export const BaselineParams = Type.Object({ ...VariantFileParams.properties, engine: Segment() });
export const ValidationFilesOut = Type.Array(Type.String());
export const GroupsOut = Type.Object({ groups: Type.Array(Type.Object({ slug: Type.String(), name: Type.String(), summary: Type.Optional(Type.String()), cases: Type.Array(Type.String()) })) });
export const PriorReadmesQuery = Type.Object({ model: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
export const PriorReadmesOut = Type.Array(Type.Object({ runId: Type.String(), harness: Type.String(), version: Type.String(), finishedAt: Nullable(Type.String()), readme: Type.String() }));
/** Raw bytes: the content type follows the file. */
export const FileBytes = Type.Unknown({ description: 'the file as stored' });
