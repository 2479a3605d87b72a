// Generated from the SQLite migrations by src/db/store-schema-source.ts; do not edit by hand.
// Rewrite with: UPDATE_STORE_SCHEMA=1 npm test -- test/db/store-schema.test.ts
import type { Generated } from 'kysely';

export interface AccountsTable {
  id: string;
  username: string;
  display_name: string;
  password_hash: string;
  created_at: string;
}

export interface LoginFailuresTable {
  key: string;
  points: Generated<number>;
  expire: number | null;
}

export interface SchemaDataStepsTable {
  name: string;
  applied_at: string;
}

export interface SchemaMigrationsTable {
  id: Generated<number>;
  name: string;
  applied_at: string;
  expand: Generated<number>;
}

export interface TokensTable {
  token_hash: string;
  account_id: string;
  created_at: string;
  expires_at: string | null;
}

export interface AuthSchema {
  accounts: AccountsTable;
  login_failures: LoginFailuresTable;
  schema_data_steps: SchemaDataStepsTable;
  schema_migrations: SchemaMigrationsTable;
  tokens: TokensTable;
}
