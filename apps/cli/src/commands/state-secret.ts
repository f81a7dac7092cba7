import { readFileSync } from 'node:fs';
import { UsageError } from '../usage.js';

/** The shortest key accepted: 32 characters (the HMAC key is at least 256 bits). */
const MIN_LENGTH = 32;

/**
 * The requestState key given by configuration, for replicas that do not share a data directory:
 * `--state-secret-file FILE` (its first line) or `ELICITKIT_STATE_SECRET`. Undefined when neither
 * is given (opsdesk then uses the key stored in its data directory).
 */
export function stateSecretFrom(file: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  let secret: string | undefined;
  let source: string;
  if (file !== undefined) {
    source = `--state-secret-file ${file}`;
    try {
      secret = (readFileSync(file, 'utf8').split(/\r?\n/)[0] ?? '').trim();
    } catch (error) {
      throw new UsageError(`${source}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  } else {
    source = 'ELICITKIT_STATE_SECRET';
    secret = env.ELICITKIT_STATE_SECRET?.trim();
    if (secret === undefined) return undefined;
  }
  if (secret.length < MIN_LENGTH)
    throw new UsageError(
      `${source}: the state secret needs at least ${MIN_LENGTH} characters (e.g. openssl rand -hex 32), not ${secret.length}`,
    );
  return secret;
}
