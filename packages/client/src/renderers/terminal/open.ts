import { spawn as nodeSpawn } from 'node:child_process';
import type { Opener } from '../../types.js';

/**
 * The part of `child_process.spawn` the opener needs; injectable so tests never launch a browser.
 *
 * @example
 * const spawn: Spawn = (command, args, options) => child_process.spawn(command, args, options);
 */
export type Spawn = (
  command: string,
  args: string[],
  options: { detached: boolean; stdio: 'ignore'; windowsHide: boolean },
) => {
  once(event: 'spawn', listener: () => void): unknown;
  once(event: 'error', listener: (error: Error) => void): unknown;
  unref(): void;
};

/**
 * The platform whose opener to use, and the spawn to run it with.
 *
 * @example
 * createSystemOpener({ platform: 'darwin' });
 */
export interface SystemOpenerOptions {
  platform?: NodeJS.Platform;
  spawn?: Spawn;
}

/**
 * Opens a URL in the system browser: `open` on macOS, `xdg-open` elsewhere, and on Windows
 * `rundll32 url.dll,FileProtocolHandler` (what `start` does, without cmd.exe re-reading `&` and
 * `%` in the URL). Detached, so the browser outlives the CLI. Only http(s) URLs are ever passed on.
 *
 * @example
 * const open = createSystemOpener();
 * await open('https://example.com/setup');
 */
export function createSystemOpener(options: SystemOpenerOptions = {}): Opener {
  const platform = options.platform ?? process.platform;
  const spawn = options.spawn ?? (nodeSpawn as unknown as Spawn);
  return (url) =>
    new Promise<void>((resolve, reject) => {
      if (!/^https?:\/\//i.test(url)) {
        reject(new TypeError(`Refusing to open ${JSON.stringify(url.slice(0, 40))}: only http(s) URLs.`));
        return;
      }
      const [command, args] = commandFor(platform, url);
      const child = spawn(command, args, { detached: true, stdio: 'ignore', windowsHide: true });
      child.once('error', reject);
      child.once('spawn', () => {
        child.unref();
        resolve();
      });
    });
}

function commandFor(platform: NodeJS.Platform, url: string): [string, string[]] {
  switch (platform) {
    case 'darwin':
      return ['open', [url]];
    case 'win32':
      return ['rundll32', ['url.dll,FileProtocolHandler', url]];
    default:
      return ['xdg-open', [url]];
  }
}
