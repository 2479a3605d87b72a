import { Type } from '@sinclair/typebox';
import { Nullable } from './common.js';
import { AESTHETICS, KNOWN_ENGINES, LIST_STATES, RATINGS, SORTS } from './vocabulary.js';

const literals = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(values.map((value) => Type.Literal(value)), description ? { description } : {});

/**
 * A page offset or size from the query string. Bounded so that what reaches SQLite is an
 * integer it can bind (`offset=1e20` would not be); far past any real page.
 */
const PAGE_BOUND = 1_000_000_000;
const PageInteger = (minimum: number, description?: string) =>
  Type.Integer({ minimum, maximum: PAGE_BOUND, ...(description ? { description } : {}) });

export const RunIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const ListRunsQuery = Type.Object(
  {
    state: Type.Optional(literals(LIST_STATES, 'which set of runs; default published')),
    fields: Type.Optional(Type.Literal('summary', { description: 'summary cards instead of full runs' })),
    before: Type.Optional(Type.String({ maxLength: 500, description: 'cursor: nextBefore of the previous page' })),
    offset: Type.Optional(PageInteger(0, 'numbered page offset; only with fields=summary')),
    limit: Type.Optional(PageInteger(1, 'default 50, clamped to 200')),
    testCase: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
    harness: Type.Optional(Type.String()),
    variant: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    engine: Type.Optional(literals([...KNOWN_ENGINES.keys()], 'launch engine slug; none for engineless runs')),
    versions: Type.Optional(Type.String({ description: 'comma-separated exact versions, any match' })),
    testCases: Type.Optional(Type.String({ description: 'comma-separated case slugs, any match' })),
    ggConfigId: Type.Optional(Type.String()),
    aesthetic: Type.Optional(literals(AESTHETICS)),
    latestVersions: Type.Optional(Type.Boolean()),
    q: Type.Optional(Type.String({ maxLength: 200 })),
    sort: Type.Optional(literals(SORTS)),
    dir: Type.Optional(literals(['asc', 'desc'] as const)),
  },
  { additionalProperties: false },
);

const Links = Type.Object({ sourceRepo: Nullable(Type.String()), playableBuild: Nullable(Type.String()) });
const RunScore = Type.Object({ earned: Type.Number(), total: Type.Number(), reviews: Type.Integer(), overallGrade: Nullable(Type.String()) });
const gradeFields = {
  rating: Nullable(literals(RATINGS)),
  aesthetic: Nullable(literals(AESTHETICS)),
  validatorRated: Type.Boolean(),
  score: Nullable(RunScore),
};

export const RunSummaryCard = Type.Object(
  {
    id: Type.String(),
    startedAt: Nullable(Type.String()),
    finishedAt: Nullable(Type.String()),
    published: Type.Boolean(),
    publishedAt: Nullable(Type.String()),
    subject: Type.Object({
      testCaseSlug: Type.String(),
      testCaseVersion: Type.String(),
      testType: Nullable(Type.String()),
      variant: Type.String(),
      harnessSlug: Type.String(),
      harnessVersion: Nullable(Type.String()),
      modelId: Type.String(),
      engine: Type.String(),
      ggConfigId: Nullable(Type.String()),
      ggConfigName: Nullable(Type.String()),
    }),
    caseName: Type.String(),
    metrics: Type.Unknown(),
    state: Type.String(),
    validationLoaded: Type.Boolean(),
    fuel: Nullable(Type.Object({ correct: Type.Boolean(), totalFuel: Nullable(Type.Number()), fuelLimit: Nullable(Type.Number()) })),
    codeAnalysis: Nullable(Type.Record(Type.String(), Type.Unknown())),
    links: Links,
    reviewCount: Type.Integer(),
    ...gradeFields,
  },
  { $id: 'RunSummaryCard', title: 'Run summary card (also the snapshot run index item)' },
);

const RatingChange = Type.Object({ domain: Type.String(), from: Nullable(Type.String()), to: Nullable(Type.String()) });
export const ReviewOut = Type.Object(
  {
    reviewerId: Type.String(),
    reviewer: Type.String(),
    username: Type.String(),
    ratings: Type.Array(Type.Object({ domain: Type.String(), rating: Type.String() })),
    aesthetic: Nullable(Type.String()),
    writeup: Type.String(),
    checklist: Type.Array(Type.Object({ id: Type.String(), status: Type.String(), note: Type.Optional(Nullable(Type.String())) })),
    reviewedAt: Type.String(),
    editedAt: Nullable(Type.String()),
    revisions: Type.Array(
      Type.Object({
        editedAt: Type.String(),
        note: Type.String(),
        diff: Type.Object({
          ratings: Type.Array(RatingChange),
          aesthetic: Nullable(Type.Object({ from: Nullable(Type.String()), to: Nullable(Type.String()) })),
          verdicts: Type.Array(Type.Object({ id: Type.String(), from: Nullable(Type.String()), to: Nullable(Type.String()), noteChanged: Type.Boolean() })),
          writeup: Nullable(Type.Object({ from: Type.String(), to: Type.String() })),
        }),
      }),
    ),
  },
  { $id: 'Review', title: 'Review' },
);

export const RunDetailOut = Type.Object(
  {
    id: Type.String(),
    record: Type.Unknown({ description: 'the run record as the driver sent it' }),
    reviews: Type.Array(ReviewOut),
    published: Type.Boolean(),
    publishedAt: Nullable(Type.String()),
    links: Links,
    ...gradeFields,
  },
  { $id: 'RunDetail', title: 'Run detail' },
);

/** Summary pages are spliced from pre-serialized cards (see run-views.ts), so this documents rather than serializes them. */
export const RunListOut = Type.Object({
  runs: Type.Array(Type.Union([RunSummaryCard, RunDetailOut])),
  total: Type.Optional(Type.Integer({ description: 'offset mode: runs under the same filters' })),
  nextBefore: Type.Optional(Nullable(Type.String({ description: 'cursor mode: pass as before; null at the end' }))),
});

export const ReviewBody = Type.Object(
  {
    ratings: Type.Optional(Type.Array(Type.Object({ domain: Type.String(), rating: Type.String() }, { additionalProperties: false }), { maxItems: 100 })),
    aesthetic: Type.Optional(Nullable(Type.String())),
    writeup: Type.Optional(Type.String({ maxLength: 100_000, description: 'markdown' })),
    checklist: Type.Optional(
      Type.Array(
        Type.Object({ id: Type.String(), status: Type.String(), note: Type.Optional(Nullable(Type.String({ maxLength: 2_000 }))) }, { additionalProperties: false }),
        { maxItems: 1_000 },
      ),
    ),
    editNote: Type.Optional(Type.String({ maxLength: 10_000 })),
    // A client may send a review back whole; who wrote it always comes from the token.
    reviewerId: Type.Optional(Type.String({ maxLength: 200, description: 'ignored: the token decides' })),
    reviewer: Type.Optional(Type.String({ maxLength: 200, description: 'ignored: the token decides' })),
    username: Type.Optional(Type.String({ maxLength: 200, description: 'ignored: the token decides' })),
  },
  { additionalProperties: false },
);

export const ReviewResult = Type.Object({ id: Type.String(), published: Type.Boolean(), review: ReviewOut });

export const RunEventsOut = Type.Array(Type.Unknown(), { description: "the run's recorded normalized events, relay order" });

export const PublishAccepted = Type.Object({ publishJobId: Type.String(), liveUrl: Type.String() });
export const DeletedOut = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

export const UnreadableQuery = Type.Object(
  { offset: Type.Optional(PageInteger(0)), limit: Type.Optional(PageInteger(1)) },
  { additionalProperties: false },
);
export const UnreadableRun = Type.Object({
  id: Type.String(),
  startedAt: Nullable(Type.String()),
  finishedAt: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  testCaseSlug: Type.String(),
  testCaseVersion: Type.String(),
  variant: Type.String(),
  engine: Type.String(),
  harnessSlug: Type.String(),
  modelId: Type.String(),
  ggConfigId: Nullable(Type.String()),
  ggConfigName: Nullable(Type.String()),
  testType: Nullable(Type.String()),
  state: Type.String(),
  published: Type.Boolean(),
  reviewCount: Type.Integer(),
  recordFormat: Type.Integer(),
  decodeError: Type.String(),
});
export const UnreadableList = Type.Object({ runs: Type.Array(UnreadableRun), total: Type.Integer() });

export const CabinetStats = Type.Object({
  runs: Type.Integer(),
  tokens: Type.Object({ total: Type.Number(), unreportedRuns: Type.Integer() }),
  cost: Type.Object({ total: Type.Number(), unreportedRuns: Type.Integer() }),
  testCases: Type.Integer(),
  models: Type.Integer(),
  weekly: Type.Array(Type.Object({ weekStart: Type.String(), runs: Type.Integer() })),
});

export const SnapshotRefreshOut = Type.Object({ refreshed: Type.Boolean(), runs: Type.Integer(), hookFired: Type.Boolean() });

export const PublishJobParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const ShowcaseParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }), file: Type.String({ minLength: 1, maxLength: 300 }) });

export const ShowcaseUploadHeaders = Type.Object({
  'x-svc-job-id': Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "the driver's job id, whose per-job token is the bearer token" })),
});
export const ShowcaseStored = Type.Object({
  id: Type.String({ description: 'the run id' }),
  file: Type.String(),
  kind: Type.Union([Type.Literal('image'), Type.Literal('video')]),
  contentType: Type.String({ description: 'what GET serves it as, from the extension' }),
  bytes: Type.Integer(),
});
