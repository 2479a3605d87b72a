import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { VALIDATION_DIR } from './served-artifacts.js';
import { walkVersionFiles } from './walk-version-files.js';

/**
 * Store-relative keys of every file under `validation/` of a stored version, sorted and
 * recursive (`validation/none/audio/cue-bay.test.ts`); empty when the folder is absent.
 */
export async function listValidationFiles(sourceDir: string): Promise<string[]> {
  const dir = join(sourceDir, VALIDATION_DIR);
  const exists = await stat(dir).then((info) => info.isDirectory(), () => false);
  if (!exists) return [];
  const files = await walkVersionFiles(dir, sourceDir);
  return files.map((file) => `${VALIDATION_DIR}/${file.key}`);
}
