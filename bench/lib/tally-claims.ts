export interface ClaimTally {
  doubles: number;
  lost: number;
  strangers: number;
}

/** Claimed job ids checked against the enqueued ones: ids claimed twice, enqueued ids never claimed, claimed ids never enqueued. */
export function tallyClaims(enqueued: readonly string[], claimed: readonly string[]): ClaimTally {
  const seen = new Set<string>();
  let doubles = 0;
  for (const id of claimed) {
    if (seen.has(id)) doubles += 1;
    seen.add(id);
  }
  const known = new Set(enqueued);
  return { doubles, lost: enqueued.filter((id) => !seen.has(id)).length, strangers: [...seen].filter((id) => !known.has(id)).length };
}

/** The correctness table's columns for a drain of `enqueued` jobs: what was claimed and how. */
export function tallyRow(enqueued: readonly string[], run: { claimed: string[]; answered: number; seconds: number; errors: number }, tally: ClaimTally) {
  return {
    enqueued: enqueued.length,
    claimed: run.claimed.length,
    'double claims': tally.doubles,
    'lost jobs': tally.lost,
    'unknown ids': tally.strangers,
    'HTTP errors': run.errors,
    'claims/s': Math.round(run.answered / run.seconds),
  };
}
