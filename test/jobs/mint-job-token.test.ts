import { describe, expect, it } from 'vitest';
import { mintJobToken } from '../../src/jobs/mint-job-token.js';

describe('mintJobToken', () => {
  it('mints 24-byte base64url tokens, never the same one twice across pool refills', () => {
    const tokens = Array.from({ length: 2000 }, mintJobToken);
    expect(tokens.every((token) => /^[A-Za-z0-9_-]{32}$/.test(token))).toBe(true);
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});
