import { jsonText, type BackendStore } from '../db/dialect.js';

export interface PriorReadme {
  runId: string;
  harness: string;
  version: string;
  finishedAt: string | null;
  readme: string;
}

/** Gameplay READMEs earlier runs of a jam by one model captured, oldest first, across harnesses, published or not. */
export function priorReadmes(store: BackendStore) {
  return async (slug: string, model: string): Promise<PriorReadme[]> => {
    const rows = await store.db
      .selectFrom('runs')
      .select((eb) => ['id', 'harness', 'test_case_version', 'finished_at', jsonText(store.engine, eb.ref('record'), ['gameJamReadme']).as('readme')])
      .where('test_case_slug', '=', slug)
      .where('model_id', '=', model)
      .where('decode_error', 'is', null)
      .orderBy('finished_at', (ob) => ob.asc().nullsFirst())
      .orderBy('id')
      .execute();
    return rows.flatMap((row) =>
      typeof row.readme === 'string' && row.readme.length > 0
        ? [{ runId: row.id, harness: row.harness, version: row.test_case_version, finishedAt: row.finished_at, readme: row.readme }]
        : [],
    );
  };
}
