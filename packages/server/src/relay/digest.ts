import { createHash } from 'node:crypto';

/** SHA-256, hex: what the directory keeps, and a relayed request carries, of a session's owner (its credential never goes to Redis). */
export async function sha256Hex(text: string): Promise<string> {
  return createHash('sha256').update(text).digest('hex');
}
