import { Type } from '@sinclair/typebox';
import { Nullable } from './common.js';

export const Health = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String({ description: 'contract version (semver)' }),
  storeReady: Type.Boolean(),
});

export const Readiness = Type.Object({
  status: Type.Union([
    Type.Literal('ready'),
    Type.Literal('empty'),
    Type.Literal('format-mismatch'),
    Type.Literal('storage-full', { description: 'the disk refused the writes the boot needs; only health is served until it takes them' }),
    Type.Literal('draining', { description: 'the process is stopping: it answers what it is sent, each answer closing its connection, and stops listening within seconds' }),
    Type.Literal('store-unavailable', { description: 'the PostgreSQL store (DATABASE_URL) cannot be reached; requests that need it answer 503 store_unavailable until it is back' }),
  ]),
  storeReady: Type.Boolean(),
  detail: Type.Optional(Type.String({ description: 'why the API is not ready, with storage-full and store-unavailable' })),
});

export const PublicConfig = Type.Object({
  artifactsUrl: Nullable(Type.String()),
  arenaUrl: Nullable(Type.String()),
  dashboardUrl: Nullable(Type.String()),
  snapshotUrl: Nullable(Type.String()),
});
