/** The CSS-pixel size a mockup is laid out at; the PNG has exactly this size (device scale 1). */
export interface Viewport {
  width: number;
  height: number;
}

/** The size mockups are rendered at when a task does not declare one: a 720p laptop screen. */
export const DEFAULT_VIEWPORT: Viewport = Object.freeze({ width: 1280, height: 720 });

// Chromium refuses to capture surfaces larger than this on either side.
const MAX_SIDE = 16_384;

/** Throws when `viewport` cannot be rendered, naming the bad side. */
export function assertViewport(viewport: Viewport): void {
  for (const side of ['width', 'height'] as const) {
    const value = viewport[side];
    if (!Number.isInteger(value) || value < 1 || value > MAX_SIDE) {
      throw new Error(`viewport.${side} must be an integer from 1 to ${MAX_SIDE}, got ${String(value)}.`);
    }
  }
}
