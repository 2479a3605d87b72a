import { catalogIndex } from '../catalog/catalog-index.js';
import { storedVersions } from '../catalog/stored-versions.js';
import type { BackgroundProcessor } from '../queue/background-workers.js';
import { BACKGROUND_QUEUES } from '../queue/queue-keys.js';
import { runGrades } from '../runs/run-grades.js';
import { runRows } from '../runs/run-rows.js';
import { runMediaDir } from '../runs/showcase-path.js';
import { snapshotWriter } from './write-snapshot.js';

/** Regenerates the public snapshot; refresh requests made meanwhile coalesce into one job. */
export const snapshotProcessor: BackgroundProcessor = {
  queue: BACKGROUND_QUEUES.snapshot,
  start({ config, db, log }) {
    const rows = runRows(db);
    const index = catalogIndex(db);
    const writer = snapshotWriter({
      db,
      rows,
      grades: runGrades({ db, rows, index, versions: storedVersions(index) }),
      mediaDir: runMediaDir(config.dataDir),
      dir: config.snapshotDir,
      deployHook: config.snapshotDeployHook,
      onWarning: (message) => log.warn({}, `snapshot: ${message}`),
    });
    return { processor: () => writer.refresh() };
  },
};
