import { Console } from 'node:console';

/** The console `cleanConsole` makes, and a way to wait until what was logged is written. */
export interface CleanConsole {
  console: Console;
  /** Resolves once everything logged so far has been written. */
  flushed(): Promise<void>;
}

/** The terminal renderer's filter, loaded when first needed (`cleanConsole`). */
const loadClean = async () => (await import('@elicitkit/client/terminal')).clean;

/**
 * The console of the CLI's process: whatever a library logs through `console` goes to `stream`
 * through the terminal renderer's filter (`clean`: control characters and bidi overrides removed,
 * line breaks kept). A library's message may quote what a server chose — the SDK's own
 * `[mcp-sdk] excluding tool '<name>'` warning quotes a tool's name — and an escape sequence in it
 * would otherwise drive the terminal. Nothing is colour-coded (that would be escape sequences too).
 *
 * The filter is loaded with the first line logged, so that `serve`, which logs nothing on a good
 * start, still starts without the client package; lines logged meanwhile wait for it, in order
 * (one logged just before a `process.exit()` may be lost).
 *
 * @example
 * globalThis.console = cleanConsole(process.stderr).console;
 */
export function cleanConsole(stream: NodeJS.WritableStream, load = loadClean): CleanConsole {
  let clean: ((text: string) => string) | undefined;
  let loading: Promise<void> = Promise.resolve();
  const waiting: string[] = [];
  const write = (text: string, rest: unknown[]): boolean => {
    if (clean) return (stream.write as (...args: unknown[]) => boolean)(clean(text), ...rest);
    if (waiting.push(text) === 1)
      loading = load().then((filter) => {
        clean = filter;
        for (const line of waiting.splice(0)) stream.write(filter(line));
      });
    return true;
  };
  // The stream itself, but for what is written to it: the console's own handling of a stream that
  // went away (EPIPE: ignored, as for any console) works on the real one.
  const cleaned = new Proxy(stream, {
    get(target, key) {
      if (key === 'write')
        return (chunk: string | Uint8Array, ...rest: unknown[]) =>
          write(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'), rest);
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    console: new Console({ stdout: cleaned, stderr: cleaned, colorMode: false }),
    flushed: () => loading,
  };
}
