/** Thrown by `readCappedBody` once a body passes its cap; the rest is never read. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The response body is larger than ${formatBytes(maxBytes)}.`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads a fetch response body into memory, giving up as soon as it grows past `maxBytes`.
 * Content-Length is only an early exit: a chunked or close-delimited body announces no
 * length, so the count of bytes actually received is what enforces the cap.
 */
export async function readCappedBody(response: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new BodyTooLargeError(maxBytes);
  }
  if (!response.body) return Buffer.alloc(0);

  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      // Cancelling the stream closes the socket, so the sender stops instead of filling a buffer.
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, received);
}

/** "512 KiB", "32 MiB", "1500 bytes": a size as a person would write a limit. */
export function formatBytes(bytes: number): string {
  const KIB = 1024;
  const MIB = 1024 * KIB;
  if (bytes >= MIB) return `${Number((bytes / MIB).toFixed(1))} MiB`;
  if (bytes >= KIB) return `${Number((bytes / KIB).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}
