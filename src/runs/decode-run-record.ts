import { recordedGgModels } from '../jobs/bind-gg-models.js';
import { rfc3339ToUtc } from './rfc3339.js';
import { HARNESS_SLUGS, normalizeRunState, type RunState } from './run-states.js';

/**
 * The run record format this build decodes (`extra/run-record.schema.json`). A record may
 * name its own format in `recordFormat` (a major number, or a "major.minor" string); a
 * record without one is format 1. A newer major is kept but not read (Versioning item 4).
 */
export const RUN_RECORD_FORMAT = 1;

export interface ListPrice {
  inputPerMtok: number;
  cachedInputPerMtok: number;
  outputPerMtok: number;
}

/** The columns lifted from a record; on an undecodable record, whatever identity could be read. */
export interface LiftedRun {
  id: string | null;
  state: RunState | string;
  /** The record's times normalized to UTC (`toISOString`), so they order as text; null when absent or not RFC 3339. */
  startedAt: string | null;
  finishedAt: string | null;
  testCaseSlug: string;
  testCaseVersion: string;
  versionRank: number;
  variant: string;
  harness: string;
  modelId: string;
  engine: string;
  testType: string | null;
  ggConfigId: string | null;
  ggConfigName: string | null;
  /** A gg run's bound models as its record's capability set carries them (`boundModelKey`); null otherwise. */
  ggModels: string | null;
  runTimeSeconds: number | null;
  tokensTotal: number | null;
  cost: number | null;
  sourceRepo: string | null;
  playableBuild: string | null;
  /** Verdict id -> pass, from the record's debug scripts. */
  validatorVerdicts: Record<string, boolean>;
  /** The record-derived part of the summary card. */
  summary: Record<string, unknown>;
}

export type Decoded = { ok: true; lifted: LiftedRun } | { ok: false; lifted: LiftedRun; error: string };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** `v3.10.2` -> 3_000_010: orders major.minor numerically for `latestVersions`. */
export function versionRank(version: string): number {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map((part) => Number.parseInt(part, 10) || 0);
  return Math.min(major, 8_999) * 1_000_000 + Math.min(minor, 999_999);
}

/** The model id a record names (empty when it names none), which its cost is priced by. */
export const recordModelId = (record: Json): string => str((isObject(record.subject) ? record.subject : {}).modelId) ?? '';

/** Decodes a driver's record into its lifted columns, or says why this build cannot read it. */
export function decodeRunRecord(record: Json, listPriceOf: (modelId: string) => ListPrice | null = () => null): Decoded {
  const subject = isObject(record.subject) ? record.subject : {};
  const status = isObject(record.status) ? record.status : {};
  const metrics = isObject(record.metrics) ? record.metrics : null;
  const validation = isObject(record.validation) ? record.validation : {};
  const links = isObject(record.links) ? record.links : {};
  const testCaseVersion = str(subject.testCaseVersion) ?? '';
  const state = normalizeRunState(status.state);
  const modelId = recordModelId(record);
  const tokens = metrics && isObject(metrics.tokens) ? metrics.tokens : {};
  const tokenParts = ['uncachedInput', 'cachedInput', 'output', 'reasoning'].map((key) => num(tokens[key]));
  const reported = tokenParts.filter((part): part is number => part !== null);
  const lifted: LiftedRun = {
    id: str(record.id),
    state: state ?? (str(status.state) ?? ''),
    startedAt: utc(record.startedAt),
    finishedAt: utc(record.finishedAt),
    testCaseSlug: str(subject.testCaseSlug) ?? '',
    testCaseVersion,
    versionRank: versionRank(testCaseVersion),
    variant: str(subject.variant) ?? '',
    harness: str(subject.harnessSlug) ?? '',
    modelId,
    // The original's drivers write `engineSlug` and the configuration's `ggCapabilitySet.preset`.
    engine: str(subject.engine) ?? str(subject.engineSlug) ?? 'none',
    testType: str(subject.testType) ?? 'end-to-end',
    ggConfigId: str(subject.ggConfigId) ?? str(record.ggConfigId) ?? (isObject(subject.ggCapabilitySet) ? str(subject.ggCapabilitySet.presetId) : null),
    ggConfigName: str(subject.ggConfigName) ?? str(record.ggConfigName)
      ?? (isObject(subject.ggCapabilitySet) ? str(subject.ggCapabilitySet.name) ?? str(subject.ggCapabilitySet.preset) : null),
    // As the original lifts `run.gg_models`: off the recorded set, for gg runs only.
    ggModels: subject.harnessSlug === 'gg' ? recordedGgModels(subject.ggCapabilitySet) : null,
    runTimeSeconds: metrics ? num(metrics.runTimeSeconds) : null,
    tokensTotal: reported.length > 0 ? reported.reduce((sum, part) => sum + part, 0) : null,
    cost: null,
    sourceRepo: str(links.sourceRepo),
    playableBuild: str(links.playableBuild),
    validatorVerdicts: validatorVerdicts(validation),
    summary: {},
  };
  lifted.cost = costOf(metrics, tokenParts, listPriceOf(modelId));
  lifted.summary = summaryPart(record, lifted, validation);

  const error = decodeError(record, subject, status, metrics);
  return error === null ? { ok: true, lifted } : { ok: false, lifted, error };
}

function decodeError(record: Json, subject: Json, status: Json, metrics: Json | null): string | null {
  const format = recordFormatOf(record.recordFormat);
  if (format === null) return `recordFormat ${JSON.stringify(record.recordFormat)} is not a format number.`;
  if (format !== RUN_RECORD_FORMAT) return `Record format ${format} is not readable by this build (it reads format ${RUN_RECORD_FORMAT}).`;
  for (const field of ['id', 'startedAt', 'finishedAt'] as const) {
    if (typeof record[field] !== 'string' || record[field] === '') return `The record has no ${field}.`;
  }
  if (!isObject(record.subject)) return 'The record has no subject.';
  for (const field of ['testCaseSlug', 'testCaseVersion', 'variant', 'harnessSlug', 'modelId'] as const) {
    if (typeof subject[field] !== 'string' || subject[field] === '') return `The record has no subject.${field}.`;
  }
  if (!(HARNESS_SLUGS as readonly string[]).includes(subject.harnessSlug as string)) {
    return `subject.harnessSlug "${String(subject.harnessSlug)}" is not a known harness.`;
  }
  if (normalizeRunState(status.state) === null) return `status.state ${JSON.stringify(status.state ?? null)} is not a run record state.`;
  if (metrics === null) return 'The record has no metrics.';
  return null;
}

const utc = (value: unknown): string | null => (typeof value === 'string' ? rfc3339ToUtc(value) : null);

/**
 * Why a record this build reads carries a time that is not RFC 3339 (`startedAt`,
 * `finishedAt`), or null. Such a report is refused rather than stored: its times would
 * order wrongly in listings and statistics. A record of another format is not judged.
 */
export function timestampProblem(record: Json): string | null {
  if (recordFormatOf(record.recordFormat) !== RUN_RECORD_FORMAT) return null;
  for (const field of ['startedAt', 'finishedAt'] as const) {
    const value = record[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || rfc3339ToUtc(value) === null) {
      return `record.${field} ${JSON.stringify(value).slice(0, 100)} is not an RFC 3339 timestamp (for example 2025-03-03T12:00:00Z or 2025-03-03T13:00:00+01:00).`;
    }
  }
  return null;
}

function recordFormatOf(value: unknown): number | null {
  if (value === undefined || value === null) return RUN_RECORD_FORMAT;
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^\d+(\.\d+)*$/.test(value)) return Number.parseInt(value, 10);
  return null;
}

/** Each debug script's auto verdicts; a script that ran no verdict leaves its point undecided. */
function validatorVerdicts(validation: Json): Record<string, boolean> {
  const verdicts: Record<string, boolean> = {};
  const scripts = Array.isArray(validation.debugScripts) ? validation.debugScripts : [];
  for (const script of scripts) {
    if (!isObject(script) || !Array.isArray(script.verdicts)) continue;
    for (const verdict of script.verdicts) {
      if (isObject(verdict) && typeof verdict.id === 'string' && typeof verdict.pass === 'boolean') verdicts[verdict.id] = verdict.pass;
    }
  }
  return verdicts;
}

/** The record's own cost, else the comparable cost at the model's list price, else unknown. */
function costOf(metrics: Json | null, [uncached, cached, output]: (number | null)[], price: ListPrice | null): number | null {
  const cost = metrics && isObject(metrics.cost) ? metrics.cost : {};
  const recorded = num(cost.actual) ?? num(cost.comparable);
  if (recorded !== null) return recorded;
  if (!price || (uncached === null && cached === null && output === null)) return null;
  return ((uncached ?? 0) * price.inputPerMtok + (cached ?? 0) * price.cachedInputPerMtok + (output ?? 0) * price.outputPerMtok) / 1_000_000;
}

/** The card fields that only the record decides; reviews, publication and the catalog add the rest at read time. */
function summaryPart(record: Json, lifted: LiftedRun, validation: Json): Record<string, unknown> {
  const subject = isObject(record.subject) ? record.subject : {};
  const performance = isObject(validation.performance) ? validation.performance : null;
  return {
    id: lifted.id,
    startedAt: lifted.startedAt,
    finishedAt: lifted.finishedAt,
    subject: {
      testCaseSlug: lifted.testCaseSlug,
      testCaseVersion: lifted.testCaseVersion,
      testType: lifted.testType,
      variant: lifted.variant,
      harnessSlug: lifted.harness,
      harnessVersion: str(subject.harnessVersion),
      modelId: lifted.modelId,
      engine: lifted.engine,
      ggConfigId: lifted.ggConfigId,
      ggConfigName: lifted.ggConfigName,
    },
    metrics: isObject(record.metrics) ? record.metrics : null,
    state: lifted.state,
    validationLoaded: validation.loaded === true,
    fuel: performance
      ? { correct: performance.correct === true, totalFuel: num(performance.totalFuel), fuelLimit: num(performance.fuelLimit) }
      : null,
    codeAnalysis: rankingSlice(record.codeAnalysis),
  };
}

/** The ranking slice of code analysis: its top-level scalars, never the nested detail. */
function rankingSlice(analysis: unknown): Record<string, unknown> | null {
  if (!isObject(analysis)) return null;
  return Object.fromEntries(Object.entries(analysis).filter(([, value]) => ['number', 'boolean', 'string'].includes(typeof value)));
}
