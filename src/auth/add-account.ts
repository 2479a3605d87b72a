import { Value } from '@sinclair/typebox/value';
import { accountStore, type AccountRow } from './account-store.js';
import type { AuthStore } from './auth-store.js';
import { hashPassword } from './password-hash.js';
import { RegisterBody } from './schemas.js';

export interface NewAccount {
  username: string;
  password: string;
  displayName: string;
}

/** What makes an account's fields unusable, naming the field; null when they are fine. */
export function newAccountProblem(account: NewAccount): string | null {
  const error = Value.Errors(RegisterBody, account).First();
  if (!error) return null;
  const field = error.path.replace(/^\//, '') || 'account';
  return `${field} ${error.message.toLowerCase()}`;
}

/**
 * Makes an account in the auth service's store directly, by the rules `POST /auth/register`
 * applies: the operator's way in when REGISTRATION=closed. Null when the username is taken.
 */
export async function addAccount(store: AuthStore, account: NewAccount): Promise<AccountRow | null> {
  const problem = newAccountProblem(account);
  if (problem) throw new Error(problem);
  return accountStore(store).create(account.username, account.displayName, await hashPassword(account.password));
}
