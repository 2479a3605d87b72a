import { expect } from 'vitest';
import { HttpError } from '../../src/errors.js';

/** Awaits a rejection and returns it as the HttpError it must be. */
export async function httpError(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
}
