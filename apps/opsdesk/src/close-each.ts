/**
 * Runs every step of a close, in order, whichever of them fails: a database that cannot flush at
 * shutdown (a full disk) must not leave the Redis connection, the relay's heartbeat or a port
 * open behind it — the process would report the failure and never exit. Throws the first error
 * once every step has run.
 *
 * @example
 * await closeEach([() => server.close(), () => store.close(), () => redis.quit()]);
 */
export async function closeEach(steps: readonly (() => unknown)[]): Promise<void> {
  let failed: { error: unknown } | undefined;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failed ??= { error };
    }
  }
  if (failed) throw failed.error;
}
