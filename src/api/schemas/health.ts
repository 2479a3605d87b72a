import { Type } from '@sinclair/typebox';
import { Nullable } from './common.js';

export const Health = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String({ description: 'contract version (semver)' }),
  storeReady: Type.Boolean(),
});

export const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('empty'), Type.Literal('format-mismatch')]),
  storeReady: Type.Boolean(),
});

export const PublicConfig = Type.Object({
  artifactsUrl: Nullable(Type.String()),
  arenaUrl: Nullable(Type.String()),
  dashboardUrl: Nullable(Type.String()),
  snapshotUrl: Nullable(Type.String()),
});
