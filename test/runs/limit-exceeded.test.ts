import { describe, expect, it } from 'vitest';
import { decodeRunRecord } from '../../src/runs/decode-run-record.js';
import { publishGateRefusal } from '../../src/runs/publish-jobs.js';
import type { RunRow } from '../../src/runs/run-rows.js';
import { FAILURE_TIERS } from '../../src/runs/run-states.js';
import { runRecord } from '../helpers/run-record-builder.js';

// D1 of the original's import: a run stopped at its token or cost limit is a publishable failure tier.
describe('limit-exceeded runs', () => {
  it('decode from the driver\'s limit_exceeded, as a readable record', () => {
    const decoded = decodeRunRecord(runRecord({ state: 'limit_exceeded' }));
    expect(decoded.ok).toBe(true);
    expect(decoded.lifted.state).toBe('limit-exceeded');
  });

  it('are a failure tier: listed under failures, and published without a review', () => {
    expect(FAILURE_TIERS).toContain('limit-exceeded');
    const row = { id: 'r', state: 'limit-exceeded', validator_rated: 0, review_count: 0 } as RunRow;
    expect(publishGateRefusal(row)).toBeNull();
  });
});
