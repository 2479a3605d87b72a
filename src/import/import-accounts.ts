import { accountStore } from '../auth/account-store.js';
import { authStoreLocation, openAuthStore, type AuthStore } from '../auth/auth-store.js';
import { USERNAME_MAX_LENGTH, USERNAME_PATTERN } from '../auth/schemas.js';
import type { Config } from '../config.js';
import { writeTransaction } from '../db/dialect.js';
import { ImportRefused } from './import-refused.js';
import type { TableLedger } from './ledger.js';
import { text, utcColumn } from './source-values.js';
import type { SourceDb } from './source-db.js';

const ACCOUNT_DIGEST = ['id', 'username', 'display_name', 'created_at'] as const;
const TOKEN_DIGEST = ['token_hash', 'account_id', 'created_at', 'expires_at'] as const;
const USERNAME = new RegExp(USERNAME_PATTERN);

/**
 * Refuses, before anything is written, an auth database holding two usernames that differ
 * only in case: the original allows both, our accounts are unique ignoring case, and which
 * of two people keeps the name is not the importer's to decide.
 */
export async function refuseCaseFoldedUsernames(auth: SourceDb): Promise<void> {
  const seen = new Map<string, string>();
  const clashes: string[] = [];
  for await (const page of auth.pages('user', ['id'], 1000)) {
    for (const row of page) {
      const username = text(row.username) ?? '';
      const folded = username.toLowerCase();
      const other = seen.get(folded);
      if (other !== undefined) clashes.push(`${other} and "${username}" (user ${text(row.id)})`);
      else seen.set(folded, `"${username}" (user ${text(row.id)})`);
    }
  }
  if (clashes.length > 0) {
    throw new ImportRefused(
      `${auth.label}: table user holds usernames that differ only in case, which this service cannot hold both of: ${clashes.join('; ')}. ` +
        'Rename one of each pair in the original (or merge the accounts), then import again. Nothing was written.',
    );
  }
}

/**
 * The auth service's `user` and `token` → our `accounts` and `tokens`, ids kept, by keyed
 * inserts (our account store mints ids). Password hashes are the original's Argon2id PHC
 * strings, which our login verifies and then rehashes; a bearer token is stored by the
 * same hex SHA-256 on both sides, so an open console session keeps working.
 */
export async function importAccounts(config: Config, auth: SourceDb, deps: { dryRun: boolean; batchRows: number; ledger(table: string): TableLedger }): Promise<void> {
  const users = deps.ledger('user').digests(ACCOUNT_DIGEST);
  const tokens = deps.ledger('token').digests(TOKEN_DIGEST);
  if (config.authUrl !== null) {
    users.skipAll(`AUTH_URL names an external auth service (${config.authUrl}); import its accounts there`, await auth.count('user'));
    tokens.skipAll('AUTH_URL names an external auth service', await auth.count('token'));
    return;
  }
  const store = await openAuthStore(authStoreLocation(config));
  try {
    for await (const page of auth.pages('user', ['id'], deps.batchRows)) {
      type Account = { id: string; username: string; display_name: string; password_hash: string; created_at: string };
      const fresh: Account[] = [];
      const accepted: Account[] = [];
      for (const row of page) {
        users.read += 1;
        const values: Account = { id: text(row.id)!, username: (text(row.username) ?? '').trim(), display_name: text(row.display_name) ?? text(row.username) ?? '', password_hash: text(row.password_hash) ?? '', created_at: utcColumn(row.created_at) ?? '' };
        if (values.username.length > USERNAME_MAX_LENGTH || !USERNAME.test(values.username)) {
          users.notes.push(`user ${values.id}: username "${values.username}" is longer than ${USERNAME_MAX_LENGTH} characters or outside ${USERNAME_PATTERN}; imported, but it could not register anew${values.username.length > USERNAME_MAX_LENGTH ? ' and cannot log in' : ''}`);
        }
        const held = await store.db.selectFrom('accounts').selectAll().where('id', '=', values.id).executeTakeFirst();
        if (held) {
          // Our login rehashes an imported hash to scrypt: the same account, not a conflict.
          const sameHash = held.password_hash === values.password_hash || held.password_hash.startsWith('scrypt$');
          if (!ACCOUNT_DIGEST.every((c) => held[c] === values[c]) || !sameHash) users.refuse('conflict: the store already holds a different account under this id (never overwritten)', values.id);
          else accepted.push(values);
          continue;
        }
        const taken = await findUsername(store, values.username);
        if (taken) {
          users.refuse(`username "${values.username}" is already account ${taken} here (usernames are unique ignoring case)`, values.id);
          continue;
        }
        fresh.push(values);
        accepted.push(values);
      }
      if (!deps.dryRun && fresh.length > 0) {
        await writeTransaction(store, async (trx) => {
          for (const values of fresh) await trx.insertInto('accounts').values(values).execute();
        });
        users.written += fresh.length;
      }
      for (const values of accepted) {
        users.imported += 1;
        users.mapped!.source.add(ACCOUNT_DIGEST.map((c) => values[c]));
      }
      if (deps.dryRun) continue;
      for (const values of accepted) {
        const after = await store.db.selectFrom('accounts').select(ACCOUNT_DIGEST).where('id', '=', values.id).executeTakeFirst();
        if (after) users.mapped!.target.add(ACCOUNT_DIGEST.map((c) => after[c]));
      }
    }

    for await (const page of auth.pages('token', ['token_hash'], deps.batchRows)) {
      const fresh: Array<{ token_hash: string; account_id: string; created_at: string; expires_at: string | null }> = [];
      const accepted: typeof fresh = [];
      for (const row of page) {
        tokens.read += 1;
        const values = { token_hash: text(row.token_hash)!, account_id: text(row.user_id) ?? '', created_at: utcColumn(row.created_at) ?? '', expires_at: utcColumn(row.expires_at) };
        const account = await store.db.selectFrom('accounts').select('id').where('id', '=', values.account_id).executeTakeFirst();
        if (!account && !(deps.dryRun && (await auth.all('SELECT 1 AS found FROM "user" WHERE id = ?', [values.account_id])).length > 0)) {
          tokens.refuse(`its account ${values.account_id} is not here (never imported, or refused)`, values.token_hash.slice(0, 12));
          continue;
        }
        const held = await store.db.selectFrom('tokens').selectAll().where('token_hash', '=', values.token_hash).executeTakeFirst();
        if (held) {
          if (TOKEN_DIGEST.every((c) => held[c] === values[c])) accepted.push(values);
          else tokens.refuse('conflict: the store already holds this token for another account or time', values.token_hash.slice(0, 12));
          continue;
        }
        fresh.push(values);
        accepted.push(values);
      }
      if (!deps.dryRun && fresh.length > 0) {
        await writeTransaction(store, async (trx) => {
          for (const values of fresh) await trx.insertInto('tokens').values(values).execute();
        });
        tokens.written += fresh.length;
      }
      for (const values of accepted) {
        tokens.imported += 1;
        tokens.mapped!.source.add(TOKEN_DIGEST.map((c) => values[c]));
      }
      if (deps.dryRun) continue;
      for (const values of accepted) {
        const after = await store.db.selectFrom('tokens').select(TOKEN_DIGEST).where('token_hash', '=', values.token_hash).executeTakeFirst();
        if (after) tokens.mapped!.target.add(TOKEN_DIGEST.map((c) => after[c]));
      }
    }
  } finally {
    await store.db.destroy();
  }
}

async function findUsername(store: AuthStore, username: string): Promise<string | null> {
  return (await accountStore(store).findByUsername(username))?.id ?? null;
}
