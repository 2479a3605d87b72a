import { Type, type TSchema } from '@sinclair/typebox';
import { ErrorEnvelope } from './common.js';
import { GroupOut, MatrixOut, PlanOut, SettingsOut } from './coverage.js';
import { LadderOut, LadderProgressOut } from './ladders.js';
import { ReviewOut, RunSummaryCard } from './runs.js';
import { CatalogOut, ResolvedVersionOut, VersionsOut } from './test-cases.js';

/** The public snapshot's `runs.json`: the same summary cards `GET /runs?fields=summary` answers. */
const SnapshotRunIndex = Type.Object(
  {
    schemaVersion: Type.Integer({ description: 'version of this shape; bumped on a breaking change' }),
    runs: Type.Array(RunSummaryCard, { description: 'published runs, newest first' }),
  },
  { title: 'Snapshot run index' },
);

/**
 * The wire contracts published as JSON Schemas (the contract's Versioning part), by file
 * name. Each is the very schema the routes validate and serialize with, so a change to a
 * route's shape changes what is published; `schemas/` in the repository holds the copy a
 * test compares against.
 */
const PUBLISHED: Readonly<Record<string, TSchema>> = {
  error: ErrorEnvelope,
  'test-case-catalog': CatalogOut,
  'test-case-versions': VersionsOut,
  'resolved-test-case-version': ResolvedVersionOut,
  review: ReviewOut,
  runs: SnapshotRunIndex,
  'coverage-group': GroupOut,
  'coverage-plan': PlanOut,
  'coverage-matrix': MatrixOut,
  'coverage-settings': SettingsOut,
  ladder: LadderOut,
  'ladder-progress': LadderProgressOut,
};

export function publishedSchemaNames(): string[] {
  return Object.keys(PUBLISHED).sort();
}

/** The standalone JSON Schema document for `name`, or null when none is published under it. */
export function publishedSchema(name: string): Record<string, unknown> | null {
  // Own names only: `constructor` and the like are not schemas.
  const schema = Object.hasOwn(PUBLISHED, name) ? PUBLISHED[name] : undefined;
  if (!schema) return null;
  // TypeBox keeps its own markers as symbols, so a JSON round trip leaves plain JSON Schema.
  const { $id: _id, ...body } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `${name}.schema.json`,
    ...body,
  };
}
