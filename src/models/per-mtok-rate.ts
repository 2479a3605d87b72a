/** Sign, whole digits, fraction digits, exponent: "0.00000125", "1.25e-6", "-1". */
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,3}))?$/;

/**
 * Turns a per-token price as the routing provider lists it ("0.000003", a decimal string in
 * USD) into a price per million tokens (3).
 *
 * Multiplying the parsed float by 1e6 leaves noise (0.00000125 * 1e6 = 1.2499999999999998),
 * so the decimal point is moved six places on the digit string and the result is parsed
 * once. Finite numbers are accepted too, read through their shortest decimal form.
 *
 * Returns null for a negative price: OpenRouter lists "-1" where the price is not fixed
 * (its auto router), which is not a rate. Throws a TypeError for anything not a decimal.
 */
export function perTokenToPerMtok(price: string | number): number | null {
  const text = typeof price === 'number' && Number.isFinite(price) ? String(price) : price;
  const match = typeof text === 'string' ? DECIMAL.exec(text.trim()) : null;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match ?? [];
  if (!match || whole + fraction === '') throw new TypeError(`${JSON.stringify(price)} is not a decimal number`);

  const digits = whole + fraction;
  if (sign === '-' && /[1-9]/.test(digits)) return null;
  // Index in `digits` where the decimal point lands once the value is scaled by 10^6.
  const point = whole.length + Number(exponent) + 6;
  let scaled: string;
  if (point <= 0) scaled = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) scaled = digits + '0'.repeat(point - digits.length);
  else scaled = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return Number(scaled);
}
