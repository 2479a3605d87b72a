import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../db/open-database.js';

export interface AccountRow {
  id: string;
  username: string;
  displayName: string;
}

interface StoredAccount extends AccountRow {
  passwordHash: string;
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export function accountStore(db: Database) {
  const insertAccount = db.prepare(
    'INSERT INTO accounts (id, username, display_name, password_hash, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const byUsername = db.prepare<[string], StoredAccount>(
    'SELECT id, username, display_name AS displayName, password_hash AS passwordHash FROM accounts WHERE username = ?',
  );
  const insertToken = db.prepare('INSERT INTO tokens (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)');
  const byToken = db.prepare<[string, string], AccountRow>(
    `SELECT a.id, a.username, a.display_name AS displayName
       FROM tokens t JOIN accounts a ON a.id = t.account_id
      WHERE t.token_hash = ? AND (t.expires_at IS NULL OR t.expires_at > ?)`,
  );
  const deleteToken = db.prepare('DELETE FROM tokens WHERE token_hash = ?');
  const deleteExpired = db.prepare('DELETE FROM tokens WHERE expires_at IS NOT NULL AND expires_at <= ?');

  return {
    /** Null when the username is taken. */
    create(username: string, displayName: string, passwordHash: string): AccountRow | null {
      const id = randomUUID();
      try {
        insertAccount.run(id, username, displayName, passwordHash, new Date().toISOString());
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return null;
        throw error;
      }
      return { id, username, displayName };
    },
    findByUsername: (username: string) => byUsername.get(username) ?? null,
    /** A fresh 32-byte token; only its hash is stored. */
    issueToken(accountId: string, lifetimeMs: number | null): string {
      const token = randomBytes(32).toString('hex');
      const now = Date.now();
      const expires = lifetimeMs === null ? null : new Date(now + lifetimeMs).toISOString();
      insertToken.run(hashToken(token), accountId, new Date(now).toISOString(), expires);
      return token;
    },
    accountForToken: (token: string) => byToken.get(hashToken(token), new Date().toISOString()) ?? null,
    revokeToken: (token: string) => void deleteToken.run(hashToken(token)),
    purgeExpired: () => deleteExpired.run(new Date().toISOString()).changes,
  };
}

export type AccountStore = ReturnType<typeof accountStore>;
