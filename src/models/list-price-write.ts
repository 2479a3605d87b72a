import { unprocessable } from '../errors.js';
import type { ModelWrite } from './model-entry.js';

const FIELDS = ['listPriceInputPerMtok', 'listPriceCachedInputPerMtok', 'listPriceOutputPerMtok', 'listPriceAsOf'] as const;

export type ListPriceChange =
  | { kind: 'keep' }
  | { kind: 'set'; inputPerMtok: number; cachedInputPerMtok: number; outputPerMtok: number; asOf: string };

/**
 * The list-price write rule: the three rates and `listPriceAsOf` are written together (422
 * otherwise); a write naming none of the four keeps the stored list price, and so does one
 * sending all four as null, which is how the console's form says "not entered".
 */
export function listPriceChange(body: ModelWrite): ListPriceChange {
  const given = FIELDS.filter((field) => body[field] !== undefined);
  if (given.length === 0) return { kind: 'keep' };
  if (given.length < FIELDS.length) {
    const missing = FIELDS.filter((field) => body[field] === undefined);
    throw unprocessable(`The list price is written whole: ${FIELDS.join(', ')} go together, and ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing.`);
  }
  const nulls = FIELDS.filter((field) => body[field] === null);
  if (nulls.length === FIELDS.length) return { kind: 'keep' };
  if (nulls.length > 0) {
    throw unprocessable(`The list price is written whole: ${nulls.join(', ')} cannot be null while the other list-price fields are set.`);
  }
  return {
    kind: 'set',
    inputPerMtok: body.listPriceInputPerMtok!,
    cachedInputPerMtok: body.listPriceCachedInputPerMtok!,
    outputPerMtok: body.listPriceOutputPerMtok!,
    asOf: body.listPriceAsOf!,
  };
}
