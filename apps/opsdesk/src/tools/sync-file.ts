import { existsSync, rmSync } from 'node:fs';
import { field, form } from '@elicitkit/form';
import { defineTool, done, outcomeSchema, pending, rejected } from '@elicitkit/server';
import * as z from 'zod/v4';
import { RESOLUTIONS, type Resolution } from '../choices.js';
import { type Deps, findCaller } from '../context.js';
import { run, value } from '../db/query.js';
import { MESSAGES } from '../messages/index.js';
import { oneLine, spelledLine } from '../shorten.js';
import { shortDiff, sideView } from '../sync/describe.js';
import {
  applySide,
  createFile,
  NotSyncable,
  type Resolved,
  readSide,
  resolvePath,
  type Side,
  type Workspace,
} from '../sync/workspace.js';

/** The longest title an option of a form may have (`@elicitkit/form`'s bound). */
const MAX_OPTION_TITLE = 200;

/** sync_file: one-sided changes propagate; a change on both sides is a question only a person can answer. */
export function syncFileTool({ store, workspace, now }: Deps) {
  const hashOf = (side: Side) => (side.exists ? side.hash : null);
  const recordBase = (path: string, hash: string | null) =>
    store.run(
      run(
        'INSERT INTO sync_state (path, base_hash, synced_at) VALUES (?, ?, ?) ON CONFLICT(path) DO UPDATE SET base_hash = excluded.base_hash, synced_at = excluded.synced_at',
        path,
        hash,
        now().toISOString(),
      ),
    );

  return defineTool({
    name: 'sync_file',
    title: 'Sync a workspace file',
    description:
      'Reconcile one file between the local and remote workspace. One-sided changes are copied over; if both sides changed since the last sync, the user chooses how to resolve the conflict.',
    inputSchema: z.object({ path: z.string().max(4_096).describe('Path inside the workspace, e.g. notes/plan.md') }),
    outputSchema: outcomeSchema({ path: z.string(), action: z.string() }),
    async run({ path: input }, { ask, commit, user, locale }) {
      const t = MESSAGES[locale];
      // Asked again as each effect starts: an account removed while its question stood open (over
      // stdio the identity is the account, with no token to revoke) acts on nothing.
      const removed = async () => !(await store.run(findCaller({ user })));
      if (await removed()) return rejected(t.unknownCaller(user));
      const target = resolvePath(workspace, input);
      // The caller's text is shown as one line, never as more lines or reordered by bidi controls.
      if (!target.ok) return rejected(t.badPath(oneLine(input, 120), target.why));
      const { path } = target;
      // A file's name is the caller's too (anyone who can write the workspace chooses it): the
      // person reads it in the question on one line, whole, what no one sees spelled out — no two
      // files alike (`spelledLine`); structuredContent keeps it as it is.
      const shown = spelledLine(path);
      const now = sidesOf(workspace, path);
      if (!now.ok) return rejected(t.badPath(shown, now.why));
      const { local, remote } = now;
      if (!local.exists && !remote.exists) return rejected(t.noSuchFile(shown));
      const base =
        (await store.run(value<string | null>('SELECT base_hash FROM sync_state WHERE path = ?', path))) ?? null;

      if (hashOf(local) === hashOf(remote)) {
        await recordBase(path, hashOf(local));
        return done(t.inSync(shown), { path, action: 'none' });
      }
      const localChanged = hashOf(local) !== base;
      const remoteChanged = hashOf(remote) !== base;
      // Files are outside any transaction: a claim makes each call copy at most once; copying the
      // same content again would be harmless, but the recorded result is what a replay must see.
      // Each effect looks at the path again as it starts: a folder on it swapped for a symlink out
      // of the workspace, or a file for a pipe, since the look above is refused, nothing written.
      if (localChanged && !remoteChanged) {
        return commit(async () => {
          if (await removed()) return rejected(t.unknownCaller(user));
          const again = sidesOf(workspace, path);
          if (!again.ok) return rejected(t.badPath(shown, again.why));
          if (hashOf(again.local) !== hashOf(local)) return rejected(t.filesChanged(shown));
          applySide(again.remote.file, local);
          await recordBase(path, hashOf(local));
          return done(t.pushed(shown), { path, action: 'pushed' });
        });
      }
      if (remoteChanged && !localChanged) {
        return commit(async () => {
          if (await removed()) return rejected(t.unknownCaller(user));
          const again = sidesOf(workspace, path);
          if (!again.ok) return rejected(t.badPath(shown, again.why));
          if (hashOf(again.remote) !== hashOf(remote)) return rejected(t.filesChanged(shown));
          applySide(again.local.file, remote);
          await recordBase(path, hashOf(remote));
          return done(t.pulled(shown), { path, action: 'pulled' });
        });
      }

      // Where keep_both saves the local version: `<path>.local`, or the next name free on both
      // sides (an earlier keep_both's copy is never overwritten). Shown in the option's title.
      const copy = freeCopy(workspace, path);
      if (!copy) return rejected(t.badPath(`${shown}.local`, 'no free name for the local copy'));
      const copyShown = spelledLine(copy.path);
      const labels = t.resolution(shown, copyShown);
      // An option's title is one short line (the form's bound): a copy's name too long for it is
      // named in the question instead, whole.
      const named = labels.keep_both.length > MAX_OPTION_TITLE;
      const resolution = form({
        resolution: field.select(
          RESOLUTIONS.map((r) => ({ value: r, title: r === 'keep_both' && named ? t.keepBothNamedBelow : labels[r] })),
          { title: t.resolutionTitle },
        ),
      });
      const conflict = t.conflictMessage(
        shown,
        sideView(local, locale),
        sideView(remote, locale),
        await shortDiff(remote, local),
      );
      const answer = await ask('resolution', {
        message: named ? `${conflict}\n${t.copyNamed(copyShown)}` : conflict,
        form: resolution,
        // The versions themselves, not only what the question shows of them (sizes, times to the
        // second, the first lines of the diff): on 2026-07-28 an answer about other versions does
        // not count, and the question is asked again about these.
        about: `${hashOf(local) ?? '-'} ${hashOf(remote) ?? '-'}`,
      });
      if (answer.action !== 'accept') return answer.result();
      const chosen: Resolution = answer.value.resolution;
      if (chosen === 'manual') return pending(t.leftForManual(shown), { path, action: 'manual' });
      return commit(async () => {
        if (await removed()) return rejected(t.unknownCaller(user));
        // The path and the copy's are looked at again (the question may have stood open for
        // minutes). The person chose between the versions they were shown. A side written since
        // (or the copy's name taken) makes it a choice about other versions: nothing is overwritten.
        const again = sidesOf(workspace, path);
        if (!again.ok) return rejected(t.badPath(shown, again.why));
        const copyNow = chosen === 'keep_both' ? sidesOf(workspace, copy.path) : undefined;
        if (copyNow && !copyNow.ok) return rejected(t.badPath(spelledLine(copy.path), copyNow.why));
        if (
          hashOf(again.local) !== hashOf(local) ||
          hashOf(again.remote) !== hashOf(remote) ||
          (copyNow?.ok && (copyNow.local.exists || copyNow.remote.exists))
        )
          return rejected(t.filesChanged(shown));
        switch (chosen) {
          case 'keep_local':
            applySide(again.remote.file, local);
            await recordBase(path, hashOf(local));
            break;
          case 'keep_remote':
            applySide(again.local.file, remote);
            await recordBase(path, hashOf(remote));
            break;
          case 'keep_both': {
            if (!copyNow?.ok) break;
            // The copy's name was free a moment ago: created only if it still is on each side
            // (another process may have taken it since), never written over.
            if (local.exists) {
              if (!createFile(copyNow.local.file, local.content)) return rejected(t.filesChanged(shown));
              // The other side's copy taken meanwhile, or not written (the disk full): the copy
              // just made on this side is undone, and nothing else is written.
              let made = false;
              try {
                made = createFile(copyNow.remote.file, local.content);
              } finally {
                if (!made) rmSync(copyNow.local.file, { force: true });
              }
              if (!made) return rejected(t.filesChanged(shown));
            }
            await recordBase(copy.path, hashOf(local));
            applySide(again.local.file, remote);
            await recordBase(path, hashOf(remote));
            break;
          }
        }
        return done(t.resolved(shown, labels[chosen]), { path, action: chosen });
      });
    },
  });
}

/** How many names keep_both tries for the local copy before giving up. */
const COPY_NAMES = 100;

/** `<path>.local`, else `<path>.local-2`, `-3` …: the first name the workspace takes and absent on both sides. */
function freeCopy(workspace: Workspace, path: string): Extract<Resolved, { ok: true }> | undefined {
  for (let n = 1; n <= COPY_NAMES; n++) {
    const copy = resolvePath(workspace, n === 1 ? `${path}.local` : `${path}.local-${n}`);
    // A name that is refused (a symlink out, a broken one, too long) is passed over like a taken one.
    if (copy.ok && !existsSync(copy.local) && !existsSync(copy.remote)) return copy;
  }
  return undefined;
}

/** Both sides of `path` as they are now, each with the file it was read from; or why not. */
function sidesOf(
  workspace: Workspace,
  path: string,
): { ok: true; local: Side & { file: string }; remote: Side & { file: string } } | { ok: false; why: string } {
  const target = resolvePath(workspace, path);
  if (!target.ok) return target;
  try {
    return {
      ok: true,
      local: { ...readSide(target.local), file: target.local },
      remote: { ...readSide(target.remote), file: target.remote },
    };
  } catch (error) {
    if (error instanceof NotSyncable) return { ok: false, why: error.why };
    throw error;
  }
}
