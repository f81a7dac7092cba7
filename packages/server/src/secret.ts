/**
 * A shared secret given as an option (the kit's state `secret`, the relay's): an HMAC key anyone
 * could guess is no key, so one shorter than an HMAC-SHA256 key's own 256 bits is refused where it
 * is given — `createElicitkit({ secret: process.env.STATE_SECRET })` with the variable set but empty
 * sealed every `requestState` under the empty key, and anyone could then make one. Its bytes are
 * counted as sent (a string's UTF-8), and never shown.
 *
 * @example
 * const secret = checkSecret('secret', options.secret); // throws for '', 'changeme', 31 bytes
 */
export function checkSecret(name: string, value: unknown): string | Uint8Array {
  const bytes =
    typeof value === 'string'
      ? new TextEncoder().encode(value).length
      : value instanceof Uint8Array
        ? value.length
        : -1;
  if (bytes < 0)
    throw new TypeError(`${name} must be a string or a Uint8Array, not ${value === null ? 'null' : typeof value}`);
  if (bytes < MIN_SECRET_BYTES)
    throw new RangeError(
      `${name} must be at least ${MIN_SECRET_BYTES} bytes (256 bits) of random data, not ${bytes}: make one with \`openssl rand -base64 32\` and give every process that serves these calls the same`,
    );
  return value as string | Uint8Array;
}

/** The fewest bytes `checkSecret` takes: an HMAC-SHA256 key's length. */
export const MIN_SECRET_BYTES = 32;
