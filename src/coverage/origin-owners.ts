/**
 * Who may launch under an origin (shared by plans and ladders). A launch may record the
 * schedule owner it was made for (`POST /jobs?origin=plan:<id>`, `ladder:<id>`); each owner
 * kind registers a check that the id is the caller's, so a hand launch counts toward that
 * owner's buffer. A malformed origin, an unregistered kind or another account's id is 400.
 */
import { badRequest } from '../errors.js';

export type OwnsOrigin = (accountId: string, id: string) => Promise<boolean>;

const ORIGIN = /^([a-z]+):(.+)$/;

export class OriginOwners {
  private readonly owners = new Map<string, { noun: string; owns: OwnsOrigin }>();

  /** `kind` is the origin prefix (`plan`), `noun` how a message names it (`coverage plan`). */
  register(kind: string, noun: string, owns: OwnsOrigin): void {
    this.owners.set(kind, { noun, owns });
  }

  /** The origin to record: null when none was given; throws the 400 naming `field` otherwise. */
  async check(accountId: string, origin: string | undefined | null, field = 'querystring.origin'): Promise<string | null> {
    if (origin === undefined || origin === null) return null;
    const match = ORIGIN.exec(origin);
    const owner = match ? this.owners.get(match[1]!) : undefined;
    if (!match || !owner) {
      const kinds = [...this.owners.keys()].map((kind) => `${kind}:<id>`).join(' or ');
      throw badRequest(`${field} "${origin}" is not of the form ${kinds}.`);
    }
    if (!(await owner.owns(accountId, match[2]!))) throw badRequest(`${field} "${origin}" names no ${owner.noun} of this account.`);
    return origin;
  }
}
