/** Closed vocabularies of the catalog format (open-points.md, http-interface.md). */

export const TEST_TYPES = ['end-to-end', 'full-stack', 'asset-generation', 'adversarial', 'performance', 'game-jam'] as const;
export const DEFAULT_TEST_TYPE = 'end-to-end';
export const ASSET_TEST_TYPE = 'asset-generation';
/** What an asset case that names no `asset_kind` draws; other test types have no asset kind. */
export const DEFAULT_ASSET_KIND = 'sprite';

/** Functional rating tiers, best to worst; a `failure_cap` names one of them. */
export const FUNCTIONAL_TIERS = ['flawless', 'great', 'passable', 'scuffed', 'broken'] as const;

export const ERRATUM_SEVERITIES = ['info', 'minor', 'major'] as const;

/** `v<major>.<minor>` followed by any further numeric parts, as version folders are named. */
export const VERSION_PATTERN = /^v\d+(\.\d+)+$/;

/** Slugs become folder names in the store and URL segments; keep them plain. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

export const DEFAULT_MAX_RUNTIME_HOURS = 1;
