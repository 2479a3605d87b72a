import { describe, expect, it } from 'vitest';
import { describeFetchFailure, describeUpstream, formatDuration } from '../../src/http/describe-fetch-failure.js';
import { formatBytes } from '../../src/http/read-capped-body.js';
import { MINUTE, SECOND } from '../../src/time.js';

describe('upstream failure wording', () => {
  it.each([
    [10 * SECOND, '10 s'],
    [1500, '1.5 s'],
    [250, '250 ms'],
    [2 * MINUTE, '2 min'],
    [90 * SECOND, '90 s'],
  ])('says %i ms as "%s"', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it.each([
    [512 * 1024, '512 KiB'],
    [32 * 1024 * 1024, '32 MiB'],
    [1536 * 1024, '1.5 MiB'],
    [1000, '1000 bytes'],
  ])('says %i bytes as "%s"', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it('says a timeout in the unit it was configured in', () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(describeFetchFailure(timeout, 10 * SECOND)).toBe('did not answer within 10 s');
  });

  it('reads the system error code off the cause of a fetch failure', () => {
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });
    expect(describeFetchFailure(refused, SECOND)).toBe('refused the connection');
    const odd = new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'EPROTO' }) });
    expect(describeFetchFailure(odd, SECOND)).toBe('could not be reached (EPROTO)');
    expect(describeFetchFailure(new Error('?'), SECOND)).toBe('could not be reached');
  });

  it('names an upstream without credentials, query or trailing slash', () => {
    expect(describeUpstream(new URL('https://user:secret@cdn.example/icons/?token=abc#x'))).toBe('https://cdn.example/icons');
    expect(describeUpstream(new URL('http://127.0.0.1:1234/'))).toBe('http://127.0.0.1:1234');
  });
});
