import { createHash } from 'node:crypto';

/** SHA-256, hex: what the directory keeps of a session's owner (its credential never goes to Redis in clear). */
export async function sha256Hex(text: string): Promise<string> {
  return createHash('sha256').update(text).digest('hex');
}
