/** `npm run bench`: every benchmark in one run, each printing its own baseline and ratios. */
import benchClaim from './claim.js';
import benchClaimProfile from './claim-profile.js';
import benchCoverage from './coverage.js';
import benchFloors from './floors.js';
import benchIngestRescan from './ingest-rescan.js';
import benchJsonDepth from './json-depth.js';
import benchLadderProgress from './ladder-progress.js';
import benchProbeClassify from './probe-classify.js';
import benchProbeWall from './probe-wall.js';
import benchRenderThroughput from './render-throughput.js';
import benchRunsListing from './runs-listing.js';
import benchStatsProviders from './stats-providers.js';
import benchStoreCopy from './store-copy.js';

// The bench to run, if one is named; `--store <engine>` and `--api-processes <counts>` are
// read by the benches themselves.
const only = process.argv.slice(2).find((arg, i, args) => !arg.startsWith('--') && args[i - 1] !== '--store' && !(args[i - 1] === '--api-processes' && /^\d/.test(arg)));
const benches: Array<[string, () => Promise<unknown>]> = [
  ['floors', benchFloors],
  ['ingest-rescan', benchIngestRescan],
  ['claim', benchClaim],
  ['claim-profile', benchClaimProfile],
  ['runs-listing', benchRunsListing],
  ['coverage', benchCoverage],
  ['ladder-progress', benchLadderProgress],
  ['render-throughput', benchRenderThroughput],
  ['json-depth', benchJsonDepth],
  ['probe-classify', benchProbeClassify],
  ['probe-wall', benchProbeWall],
  ['stats-providers', benchStatsProviders],
  ['store-copy', benchStoreCopy],
];

for (const [name, run] of benches) {
  if (only && only !== name) continue;
  console.log(`\n=== ${name} ===`);
  // A benchmark that checks targets answers whether they held.
  if ((await run()) === false) process.exitCode = 1;
}
