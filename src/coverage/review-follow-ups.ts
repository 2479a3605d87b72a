/**
 * What runs after a review is stored (shared by plans and ladders: an owner with `autoTopUp`
 * tops up again). Follow-ups never fail the review: an error is logged and the review stands.
 */
import type { Account } from '../accounts/verify-token.js';

export type ReviewFollowUp = (account: Account, runId: string) => Promise<unknown>;

export class ReviewFollowUps {
  private readonly followUps: ReviewFollowUp[] = [];

  constructor(private readonly onError: (error: unknown, runId: string) => void) {}

  add(followUp: ReviewFollowUp): void {
    this.followUps.push(followUp);
  }

  async run(account: Account, runId: string): Promise<void> {
    for (const followUp of this.followUps) {
      try {
        await followUp(account, runId);
      } catch (error) {
        this.onError(error, runId);
      }
    }
  }
}
