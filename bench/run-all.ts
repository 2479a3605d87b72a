/** `npm run bench`: every benchmark in one run, each printing its own baseline and ratios. */
import benchFloors from './floors.js';
import benchRunsListing from './runs-listing.js';

const only = process.argv[2];
const benches: Array<[string, () => Promise<unknown>]> = [
  ['floors', benchFloors],
  ['runs-listing', benchRunsListing],
];

for (const [name, run] of benches) {
  if (only && only !== name) continue;
  console.log(`\n=== ${name} ===`);
  await run();
}
