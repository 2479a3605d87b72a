/**
 * Quantization levels a catalog entry may declare as native, and their ranks (lower is
 * finer): levels of equal rank are interchangeable for the candidate filter.
 */
export const QUANTIZATION_RANK: Readonly<Record<string, number>> = {
  fp32: 0,
  bf16: 1,
  fp16: 1,
  fp8: 2,
  int8: 2,
  fp6: 3,
  fp4: 4,
  int4: 4,
};

export const QUANTIZATION_LEVELS = Object.keys(QUANTIZATION_RANK);

/** The rank of a level as a listing spells it (any case), or null for `unknown` and anything else. */
export function quantizationRank(level: string | null | undefined): number | null {
  if (!level) return null;
  return QUANTIZATION_RANK[level.trim().toLowerCase()] ?? null;
}

/** The key providers are compared by: lowercase letters and digits only, so `Z.AI` and `z-ai` are one. */
export function providerKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}
