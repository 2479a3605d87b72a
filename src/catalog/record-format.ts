/**
 * Version of the on-disk shape of `resolved.json` in the definition store. Bump it when a
 * change to the resolved record or its store-side metadata means an older build could
 * misread a stored version: the index then reports the store as another record format and
 * the next scan re-ingests everything (http-interface, Versioning rule 4).
 */
// 2: game jams store their graded checklist (the generic categories when a jam declares
// none, every item flagged `graded`); a format-1 copy has an empty one and cannot be reviewed.
// 3: per-kind tables ride each variant merged over the version's, `[build]` and `[contract]`
// are kept whole, `assetKind` is null outside asset cases, `workspace` is keyed by engine,
// and the store records what the artifact route may serve.
export const RESOLVED_RECORD_FORMAT = 3;
