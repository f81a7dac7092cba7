/** How `npm start` was asked to serve. */
export interface StartOptions {
  port: number;
  hostname: string;
  /** `--build`: build even when the last build is current (what `npm run build:web` does), then stop. */
  buildOnly: boolean;
}

/** A start option that cannot be used; the message names the flag or variable. */
export class StartUsageError extends Error {
  readonly code = 'START_USAGE';
}

function port(raw: string, where: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(n) || n < 1 || n > 65535) {
    throw new StartUsageError(`${where} must be a port number from 1 to 65535, not "${raw}"`);
  }
  return n;
}

/**
 * `--port N` (or `-p N`, `--port=N`) wins over `PORT`, which wins over 3000; `--hostname H`
 * (`-H H`) defaults to 127.0.0.1 — loopback only unless asked.
 *
 * @example
 * parseStartOptions(['--port', '4000'], {}); // { port: 4000, hostname: '127.0.0.1', buildOnly: false }
 */
export function parseStartOptions(argv: readonly string[], env: Record<string, string | undefined>): StartOptions {
  const options: StartOptions = {
    port: env.PORT === undefined || env.PORT === '' ? 3000 : port(env.PORT, 'PORT'),
    hostname: '127.0.0.1',
    buildOnly: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new StartUsageError(`${flag} needs a value`);
      return v;
    };
    if (flag === '--port' || flag === '-p') options.port = port(value(), flag);
    else if (flag === '--hostname' || flag === '-H') options.hostname = value();
    else if (flag === '--build') options.buildOnly = true;
    else throw new StartUsageError(`unknown option "${arg}" (npm start -- [--port N] [--hostname H])`);
  }
  return options;
}

/**
 * The environment `npm start` runs Next.js and the build in: Next's anonymous telemetry off
 * unless the person set `NEXT_TELEMETRY_DISABLED` themselves (an app people run locally should
 * not report home by default).
 *
 * @example
 * spawn(process.execPath, args, { env: childEnv(process.env) });
 */
export function childEnv<E extends Record<string, string | undefined>>(env: E): E {
  return { ...env, NEXT_TELEMETRY_DISABLED: env.NEXT_TELEMETRY_DISABLED ?? '1' };
}
