/**
 * Hand-off of just-received files from submission to the upload job in the same process: the job
 * takes the bytes from here instead of reading back the blob written a moment earlier. The blob
 * stays the source (a restarted or other server reads it); this is only a small, bounded cache.
 */
const MAX_ENTRIES = 8;
const received = new Map<string, Uint8Array>();

export function rememberReceivedOriginal(sha256: string, bytes: Uint8Array): void {
  received.delete(sha256);
  received.set(sha256, bytes);
  while (received.size > MAX_ENTRIES) received.delete(received.keys().next().value!);
}

/** The bytes of a file received by this process (once), or undefined. */
export function takeReceivedOriginal(sha256: string): Uint8Array | undefined {
  const bytes = received.get(sha256);
  received.delete(sha256);
  return bytes;
}
