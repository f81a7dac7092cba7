import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createSystemOpener, type Spawn } from './open.js';

/** A stand-in for child_process.spawn that records the call and then spawns or fails. */
function fakeSpawn(outcome: 'spawn' | Error) {
  const calls: { command: string; args: string[]; options: object; unref: boolean }[] = [];
  const spawn: Spawn = (command, args, options) => {
    const child = Object.assign(new EventEmitter(), {
      unref() {
        call.unref = true;
      },
    });
    const call = { command, args, options, unref: false };
    calls.push(call);
    queueMicrotask(() => (outcome === 'spawn' ? child.emit('spawn') : child.emit('error', outcome)));
    return child;
  };
  return { spawn, calls };
}

const URL_ = 'https://example.com/setup?a=1&b=%20';

describe('createSystemOpener', () => {
  it.each([
    ['linux', 'xdg-open', [URL_]],
    ['freebsd', 'xdg-open', [URL_]],
    ['darwin', 'open', [URL_]],
    ['win32', 'rundll32', ['url.dll,FileProtocolHandler', URL_]],
  ] as const)('on %s runs %s detached, and lets it go', async (platform, command, args) => {
    const { spawn, calls } = fakeSpawn('spawn');
    await createSystemOpener({ platform, spawn })(URL_);
    expect(calls).toEqual([
      { command, args, options: { detached: true, stdio: 'ignore', windowsHide: true }, unref: true },
    ]);
  });

  it('rejects when the opener program cannot start', async () => {
    const { spawn } = fakeSpawn(Object.assign(new Error('spawn xdg-open ENOENT'), { code: 'ENOENT' }));
    await expect(createSystemOpener({ platform: 'linux', spawn })(URL_)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each(['file:///etc/passwd', 'javascript:alert(1)', '--help', ''])('never passes %j on', async (url) => {
    const { spawn, calls } = fakeSpawn('spawn');
    await expect(createSystemOpener({ platform: 'linux', spawn })(url)).rejects.toThrow(/only http\(s\) URLs/);
    expect(calls).toEqual([]);
  });
});
