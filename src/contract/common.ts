import { Type, type TSchema } from '@sinclair/typebox';

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'snake_case error code, e.g. not_found' }),
      message: Type.String({ description: 'one plain sentence saying what was wrong' }),
    }),
  },
  { $id: 'ErrorEnvelope', title: 'Error envelope' },
);

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 502 | 503;

/** Response schemas for the error statuses a route can answer (500 is always added). */
export function errorResponses<const S extends ErrorStatus = never>(...statuses: S[]): Record<S | 500, typeof ErrorEnvelope> {
  const out = { 500: ErrorEnvelope } as Record<S | 500, typeof ErrorEnvelope>;
  for (const status of statuses) out[status] = ErrorEnvelope;
  return out;
}

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const NoContent = Type.Null({ description: 'no content' });

/**
 * Longest path parameter the router accepts, in characters as sent (percent-encoded); a
 * longer one is refused with 414 before any route runs. Every path parameter's schema
 * bounds its decoded length at or below this.
 */
export const MAX_PARAM_LENGTH = 300;
