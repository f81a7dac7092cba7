import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { serveHttp } from '@elicitkit/opsdesk';
import type { Locale } from '@elicitkit/server';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Endpoint } from './endpoint.js';
import type { Profile } from './profiles.js';

/** Where the throw-away data directories live: `elicitkit-doctor-*` under the OS temp folder. */
export const OWN_DATA_PREFIX = 'elicitkit-doctor-';

/**
 * Starts opsdesk in this process over HTTP on loopback, on a fresh data directory, for doctor
 * alone. One start serves every profile (each its own connection, and its own user with its own
 * bearer token), instead of a cold start per profile. `close()` stops it and deletes the
 * directory; so does the process exiting, however it exits.
 *
 * @example
 * const endpoint = await startOwnOpsdesk({ locale: 'en' });
 * try { await runDoctor(endpoint); } finally { await endpoint.close(); }
 */
export async function startOwnOpsdesk(options: { locale: Locale }): Promise<Endpoint & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), OWN_DATA_PREFIX));
  const removeNow = () => rmSync(dataDir, { recursive: true, force: true });
  // A last resort for exits that skip `close()` (process.exit elsewhere, an uncaught error).
  process.once('exit', removeNow);
  let serving: Awaited<ReturnType<typeof serveHttp>>;
  try {
    serving = await serveHttp({ dataDir, locale: options.locale, port: 0 });
  } catch (error) {
    process.removeListener('exit', removeNow);
    removeNow();
    throw error;
  }
  const tokens = new Map<string, Promise<string>>();
  let users = 0;
  const tokenFor = (profile: Profile) => {
    let token = tokens.get(profile.id);
    if (token === undefined) {
      // A fresh owner per profile: nothing one profile registers or owns gets in another's way.
      token = serving.ownerToken(`doctor-${++users}-${profile.revision}`);
      tokens.set(profile.id, token);
    }
    return token;
  };
  let closing: Promise<void> | undefined;
  return {
    label: `opsdesk (throw-away data: ${dataDir})`,
    throwAway: true,
    dataDir,
    transport: async (profile) =>
      new StreamableHTTPClientTransport(new URL(serving.url), {
        requestInit: { headers: { authorization: `Bearer ${await tokenFor(profile)}` } },
      }),
    prepare(preparation, stamp) {
      for (const { file, text } of preparation.write) {
        const path = join(dataDir, ...file.split('/'));
        mkdirSync(dirname(path), { recursive: true });
        // The stamp makes every preparation new content, so no call inherits the last one's state.
        writeFileSync(path, `${text}${text.endsWith('\n') || text === '' ? '' : '\n'}(elicitkit doctor: ${stamp})\n`);
      }
    },
    close() {
      closing ??= serving.close().finally(() => {
        process.removeListener('exit', removeNow);
        removeNow();
      });
      return closing;
    },
  };
}
