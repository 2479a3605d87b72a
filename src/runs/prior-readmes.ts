import type { Database } from '../db/open-database.js';

export interface PriorReadme {
  runId: string;
  harness: string;
  version: string;
  finishedAt: string | null;
  readme: string;
}

/** Gameplay READMEs earlier runs of a jam by one model captured, oldest first, across harnesses, published or not. */
export function priorReadmes(db: Database) {
  const select = db.prepare<[string, string], { id: string; harness: string; test_case_version: string; finished_at: string | null; readme: string | null }>(
    `SELECT id, harness, test_case_version, finished_at, json_extract(record, '$.gameJamReadme') AS readme
       FROM runs
      WHERE test_case_slug = ? AND model_id = ? AND decode_error IS NULL
      ORDER BY finished_at ASC, id ASC`,
  );
  return (slug: string, model: string): PriorReadme[] =>
    select.all(slug, model).flatMap((row) =>
      typeof row.readme === 'string' && row.readme.length > 0
        ? [{ runId: row.id, harness: row.harness, version: row.test_case_version, finishedAt: row.finished_at, readme: row.readme }]
        : [],
    );
}
