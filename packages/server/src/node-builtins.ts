/**
 * Node's synchronous crypto and Buffer, when the runtime offers them (`process.getBuiltinModule`,
 * Node ≥ 20.16), without a static `node:` import: the server package also runs where they are
 * absent (Workers, Deno without compat), and falls back to WebCrypto there. One WebCrypto call is
 * a thread-pool round trip; these are a few microseconds.
 */

interface NodeHash {
  update(data: string | Uint8Array): NodeHash;
  digest(): Uint8Array;
  digest(encoding: 'hex' | 'base64url'): string;
}

interface NodeHmac {
  update(data: string): NodeHmac;
  digest(encoding: 'base64url'): string;
}

export interface NodeCrypto {
  createHash(algorithm: 'sha256'): NodeHash;
  createHmac(algorithm: 'sha256', key: Uint8Array): NodeHmac;
  /** One-shot digest (Node ≥ 20.12): no Hash object per call. */
  hash?: {
    (algorithm: 'sha256', data: string | Uint8Array, encoding: 'hex' | 'base64url' | 'latin1'): string;
    (algorithm: 'sha256', data: string | Uint8Array, encoding: 'buffer'): Uint8Array;
  };
  randomUUID(): string;
}

export interface NodeBufferBytes extends Uint8Array {
  write(text: string, offset: number, encoding: 'utf8' | 'latin1'): number;
}

export interface NodeBuffer {
  from(data: string, encoding: 'utf8' | 'base64url'): { toString(encoding: 'utf8' | 'base64url'): string };
  alloc(size: number): NodeBufferBytes;
}

const builtin = (id: string): unknown =>
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(id);

export const nodeCrypto = builtin('node:crypto') as NodeCrypto | undefined;
/** A random UUID: Node's own where there is one (WebCrypto's wrapper checks its receiver and options on every call). */
export const randomUUID: () => string = nodeCrypto ? () => nodeCrypto.randomUUID() : () => crypto.randomUUID();

export const NodeBufferClass = (builtin('node:buffer') as { Buffer?: NodeBuffer } | undefined)?.Buffer;
