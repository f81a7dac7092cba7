/**
 * What replicas say to each other on their Redis channels while relaying a 2025 session's
 * request: the request itself, then the response as a head, body chunks and an end, or an abort
 * either way. JSON, with bodies in base64 (an SSE chunk may split a UTF-8 character).
 */
export type Frame =
  | {
      t: 'request';
      /** This relay's id: every frame of it carries it. */
      r: string;
      /** The replica that received the request and waits for the answer. */
      from: string;
      method: string;
      url: string;
      headers: [string, string][];
      body?: string;
    }
  /** The requester's client went away: drop the request at the holder. */
  | { t: 'abort'; r: string }
  /** The response's status and headers; with `end`, the whole response (`body` if it has one). */
  | { t: 'head'; r: string; status: number; headers: [string, string][]; end?: boolean; body?: string }
  | { t: 'data'; r: string; d: string }
  | { t: 'end'; r: string }
  /** The holder could not run the request or finish its response. */
  | { t: 'fail'; r: string; message: string };

export function encode(frame: Frame): string {
  return JSON.stringify(frame);
}

/** The frame in a message, or undefined for anything that is not one (ignored, never thrown on). */
export function decode(message: string): Frame | undefined {
  try {
    const frame = JSON.parse(message) as Partial<Frame>;
    return typeof frame === 'object' && frame !== null && typeof frame.t === 'string' && typeof frame.r === 'string'
      ? (frame as Frame)
      : undefined;
  } catch {
    return undefined;
  }
}

export function headerList(headers: Headers): [string, string][] {
  const list: [string, string][] = [];
  headers.forEach((value, key) => {
    list.push([key, value]);
  });
  return list;
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

export function fromBase64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64'));
}
