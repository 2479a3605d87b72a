/**
 * The resolved test case version: the body of `GET /test-cases/{slug}/versions/{version}`,
 * built once at ingest and stored as JSON. Field names follow http-interface.md; fields
 * beyond the contract table come from the reference schema and carry what a runner
 * without a checkout needs (workspaces, init, domains, proofs, validation scripts).
 */
export interface ResolvedVersion {
  slug: string;
  version: string;
  name: string;
  /** Empty for a game jam, which is unclassified. */
  difficulty: string;
  summary: string;
  testType: string;
  /** What the manifest's `asset_kind` says; `sprite` for an asset case naming none; null for other test types. */
  assetKind: string | null;
  tags: string[];
  /** Markdown, inlined from the manifest's `description` path; empty when none. */
  description: string;
  changelog: string;
  experimental: boolean;
  maxRuntimeSeconds: number;
  engines: EngineSupport[];
  /** `[build]` as authored (camelCased): `install` and `build` always, and any other key it holds. */
  build: { install: string; build: string; [key: string]: unknown } | null;
  init: string | null;
  workspaces: WorkspaceSource[];
  /** The starter files of `workspaces`, keyed by engine slug; `{}` when none. */
  workspace: WorkspaceFiles;
  packages: unknown[];
  promptTemplate: string;
  commonSpecs: SpecEntry[];
  assets: AssetEntry[];
  variants: ResolvedVariant[];
  engineFormat: boolean;
  domains: Domain[];
  commonReferences: ReferenceEntry[];
  commonProofs: ProofEntry[];
  checks: CheckEntry[];
  commonReviewItems: ReviewItem[];
  errata: Erratum[];
  /** `[contract]` as authored (camelCased); the schema files it names are seeded after the common specs. */
  contract?: Record<string, unknown>;
  /** Per-kind blocks (`[canvas]`, `[voxel]`, `[tool]`, `[sheet]`, `[toolchain]`, ...), camelCased. */
  [block: string]: unknown;
}

/** Fields of the resolved version; any other key is a per-kind block. */
export const RECORD_FIELDS: ReadonlySet<string> = new Set([
  'slug', 'version', 'name', 'difficulty', 'summary', 'testType', 'assetKind', 'tags', 'description', 'changelog',
  'experimental', 'maxRuntimeSeconds', 'engines', 'build', 'init', 'workspaces', 'workspace', 'packages', 'promptTemplate',
  'commonSpecs', 'assets', 'variants', 'engineFormat', 'domains', 'commonReferences', 'commonProofs', 'checks',
  'commonReviewItems', 'errata', 'contract',
]);

/** Fields of a resolved variant; any other key is a per-kind block (the version's, overridden key by key). */
export const VARIANT_FIELDS: ReadonlySet<string> = new Set([
  'slug', 'name', 'description', 'prompt', 'specs', 'references', 'proofs', 'reviewItems',
  'domains', 'workspaces', 'workspace', 'showcase',
]);

export interface EngineSupport {
  slug: string;
  /** Present only on an engine the case pinned with `[[engine]]`. */
  minVersion?: string;
  maxVersion?: string;
}

/** Engine slug → the files to seed into a run's workspace (store-relative `source`, workspace-relative `dest`). */
export type WorkspaceFiles = Record<string, Array<{ source: string; dest: string }>>;

/** A starter workspace folder; `engine` null means it serves every engine. */
export interface WorkspaceSource {
  engine: string | null;
  source: string;
}

export interface SpecEntry {
  /** Store-relative key of the source file. */
  source: string;
  /** Workspace-relative path the spec is seeded to. */
  dest: string;
  /** True for a `.hbs` source, rendered per variant and engine before seeding. */
  template: boolean;
  kind: string;
}

export interface AssetEntry {
  source: string;
  dest: string;
}

export type MediaKind = 'image' | 'video' | 'replay';

export interface ReferenceEntry {
  view: string;
  kind: 'rendered' | 'image' | 'video';
  mediaUrl: string;
}

export interface ProofEntry {
  id: string;
  name: string;
  dest: string;
  kind: MediaKind;
}

export type CheckAction =
  | { type: 'wait'; ms: number }
  | { type: 'key'; key: string }
  | { type: 'hold'; key: string; ms: number }
  | { type: 'click'; x: number; y: number };

export interface CheckEntry {
  view: string;
  name: string;
  referenceView: string;
  actions: CheckAction[];
}

export interface Domain {
  id: string;
  name: string;
  description: string;
}

export interface ValidationScript {
  /** Key relative to the `validation/` folder staged for the run's engine. */
  script: string;
  outputs: { id: string; name: string; kind: MediaKind }[];
}

/**
 * One checklist entry. The legacy grammar gives items with optional sub items (verdict id
 * `<item>.<sub>`); the categories grammar gives one item per category item, with verdict
 * id `<category>.<item>` and its `category`. `domains`/`failureCap` appear only on an
 * engine-format version.
 */
export interface ReviewItem {
  id: string;
  title: string;
  text: string;
  weight: number;
  subItems: SubReviewItem[];
  category?: { id: string; title: string };
  domain?: string | null;
  reference?: string | null;
  proof?: string | null;
  validation?: ValidationScript | null;
  domains?: string[];
  failureCap?: string;
  /** True on a game jam's items: graded on the five-level scale instead of pass/fail. */
  graded?: boolean;
}

export interface SubReviewItem {
  id: string;
  title: string;
  weight: number;
}

export interface Erratum {
  id: string;
  title: string;
  date: string | null;
  severity: 'info' | 'minor' | 'major';
  affectsScoring: boolean;
  body: string;
  resolvedIn: string | null;
  variant: string | null;
}

export interface ShowcaseMedia {
  file: string;
  name: string;
  kind: MediaKind;
}

export interface VariantShowcase {
  description: string;
  media: ShowcaseMedia[];
}

export interface ResolvedVariant {
  slug: string;
  name: string;
  description: string | null;
  /** The prompt rendered for this variant without an engine (`none`). */
  prompt: string;
  specs: SpecEntry[];
  references: ReferenceEntry[];
  proofs: ProofEntry[];
  reviewItems: ReviewItem[];
  domains: Domain[];
  workspaces: WorkspaceSource[] | null;
  /** The variant's own starter files, keyed by engine slug; `{}` when it inherits the version's. */
  workspace: WorkspaceFiles;
  showcase: VariantShowcase | null;
  [block: string]: unknown;
}
