import { Type } from '@sinclair/typebox';

export const IngestBody = Type.Optional(
  Type.Object(
    {
      force: Type.Optional(Type.Boolean({ description: 're-ingest and re-render versions already stored (development only)' })),
      replaceCatalog: Type.Optional(Type.Boolean({
        description: 'let a whole-catalog scan go ahead from another checkout than the store was ingested from, or when it would prune more than half of the stored versions; without it such a scan is refused with 409 ingest_refused',
      })),
      catalogVersion: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'opaque content token of a whole-catalog ingest' })),
      testCases: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 10_000, description: 'case ids (slug or folder) or id@version' })),
    },
    { additionalProperties: false },
  ),
);

const VersionLine = Type.Object({
  slug: Type.String(),
  version: Type.String(),
  ingested: Type.Boolean(),
  renderedReferences: Type.Integer(),
  error: Type.Optional(Type.String({ description: 'why the version could not be ingested; its previous stored copy is kept' })),
  blockedUrls: Type.Optional(
    Type.Array(Type.Object({ view: Type.String(), file: Type.String(), url: Type.String() }), {
      description: 'requests its mockups made and were refused (the network, files outside the version), each with the view and mockup file that made it; their references lack what those held',
    }),
  ),
  warnings: Type.Optional(
    Type.Array(Type.Object({ file: Type.String(), key: Type.String(), why: Type.String() }), {
      description: 'keys of its manifest or variant files the catalog format does not define; they were ignored',
    }),
  ),
});

export const IngestReportOut = Type.Object({
  testCaseVersions: Type.Array(VersionLine),
  total: Type.Integer(),
  ingested: Type.Integer(),
  skipped: Type.Integer(),
  failed: Type.Integer({ description: 'versions that could not be ingested; ingested + skipped + failed = total' }),
  pruned: Type.Array(Type.Object({ slug: Type.String(), version: Type.String() })),
});
