/** Messages between opsdesk and the shop's process (see worker-main.ts). Plain data, both ways. */
export type ShopCommand =
  | { op: 'inspect'; sql: string }
  | { op: 'read'; sql: string }
  | { op: 'dryRun'; sql: string; direct: string[] }
  | { op: 'write'; sql: string; direct: string[] }
  | { op: 'settings' };

export type ShopRequest = ShopCommand & { id: number };

export type ShopResponse =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };
