import { randomUUID } from 'node:crypto';

export interface RunRecordOptions {
  id?: string;
  slug?: string;
  version?: string;
  variant?: string;
  harness?: string;
  model?: string;
  testType?: string;
  engine?: string;
  state?: string;
  startedAt?: string;
  finishedAt?: string;
  runTimeSeconds?: number;
  tokens?: { uncachedInput?: number | null; cachedInput?: number | null; output?: number | null; reasoning?: number | null };
  cost?: number | null;
  verdicts?: Record<string, boolean>;
  links?: { sourceRepo?: string | null; playableBuild?: string | null };
  ggConfigId?: string;
  ggConfigName?: string;
}

let clock = Date.parse('2025-03-03T12:00:00Z');

/** A run record in the shape of `extra/run-record.schema.json`; finish times step forward per call. */
export function runRecord(options: RunRecordOptions = {}): Record<string, unknown> {
  clock += 60_000;
  const finishedAt = options.finishedAt ?? new Date(clock).toISOString();
  const tokens = options.tokens ?? { uncachedInput: 1000, cachedInput: 500, output: 200, reasoning: null };
  return {
    id: options.id ?? randomUUID(),
    startedAt: options.startedAt ?? new Date(Date.parse(finishedAt) - 600_000).toISOString(),
    finishedAt,
    subject: {
      testCaseSlug: options.slug ?? 'skiff-race',
      testCaseVersion: options.version ?? 'v1.1.0',
      variant: options.variant ?? 'base',
      harnessSlug: options.harness ?? 'claude',
      harnessVersion: '1.0.0',
      modelId: options.model ?? 'anthropic/claude-x',
      testType: options.testType ?? 'end-to-end',
      ...(options.engine ? { engine: options.engine } : {}),
      ...(options.ggConfigId ? { ggConfigId: options.ggConfigId, ggConfigName: options.ggConfigName ?? options.ggConfigId } : {}),
    },
    tooling: { testCabinetCommit: 'abc123' },
    environment: { os: 'linux', containerImage: 'runner:1', authMode: 'api-key' },
    metrics: {
      runTimeSeconds: options.runTimeSeconds ?? 600,
      tokens,
      cost: { actual: options.cost === undefined ? 1.5 : options.cost, comparable: null },
    },
    validation: {
      loaded: true,
      checks: [],
      debugScripts: Object.entries(options.verdicts ?? {}).map(([id, pass]) => ({ itemId: id, ran: true, verdicts: [{ id, pass, assertions: [] }] })),
    },
    links: { sourceRepo: options.links?.sourceRepo ?? null, playableBuild: options.links?.playableBuild ?? null },
    status: { state: options.state ?? 'completed', detail: null },
  };
}
