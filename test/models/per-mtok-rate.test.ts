import { describe, expect, it } from 'vitest';
import { perTokenToPerMtok } from '../../src/models/per-mtok-rate.js';

describe('perTokenToPerMtok', () => {
  it.each([
    ['0.000003', 3],
    ['0.000015', 15],
    ['0.00000125', 1.25],
    ['0.0000003', 0.3],
    ['0.00000015', 0.15],
    ['0.00000095', 0.95],
    ['0.0000000275', 0.0275],
    ['0.00006', 60],
    ['0.0000033', 3.3],
    ['0.0000036', 3.6],
    ['0.0000001', 0.1],
    ['0.0000002', 0.2],
    ['0', 0],
    ['0.0', 0],
    ['-0', 0],
    ['12', 12_000_000],
    ['.000002', 2],
    ['1.25e-6', 1.25],
    ['3E-7', 0.3],
    [' 0.000003 ', 3],
  ])('reads %j as %d per Mtok, exactly', (price, perMtok) => {
    expect(perTokenToPerMtok(price)).toBe(perMtok);
  });

  it('gives what a naive multiplication would not', () => {
    // The reason the conversion works on digits: the float product carries noise.
    expect(Number('0.0000033') * 1e6).toBe(3.3000000000000003);
    expect(Number('0.0000001') * 1e6).toBe(0.09999999999999999);
    expect(perTokenToPerMtok('0.0000033')).toBe(3.3);
    expect(perTokenToPerMtok('0.0000001')).toBe(0.1);
  });

  it('reads numbers through their shortest decimal form', () => {
    expect(perTokenToPerMtok(0.00000125)).toBe(1.25);
    expect(perTokenToPerMtok(3e-7)).toBe(0.3);
  });

  it('reads a negative price (OpenRouter\'s "-1" for variable pricing) as no rate', () => {
    expect(perTokenToPerMtok('-1')).toBeNull();
    expect(perTokenToPerMtok(-0.000001)).toBeNull();
  });

  it.each(['', '.', 'abc', '1.2.3', '0x10', '1,5', '$0.000003', 'NaN', 'Infinity', '1e', '1e99999'])(
    'refuses %j as not a decimal',
    (price) => {
      expect(() => perTokenToPerMtok(price)).toThrow(TypeError);
    },
  );

  it('refuses non-finite numbers', () => {
    expect(() => perTokenToPerMtok(Number.NaN)).toThrow(TypeError);
    expect(() => perTokenToPerMtok(Number.POSITIVE_INFINITY)).toThrow(TypeError);
  });
});
