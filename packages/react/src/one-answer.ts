/**
 * Runs an answer's handler and tells `settle` whether the host took the answer: `false`, or a
 * promise that resolves `false` or rejects, means not taken; anything else taken. `said` is false
 * when the handler returned nothing a host chose (not a boolean, not a promise). A handler that
 * throws is not taken, and the error goes on. Shared by `<ElicitationForm>` and `<UrlConsent>`.
 */
export function answerWith(handler: () => unknown, settle: (taken: boolean, said: boolean) => void): void {
  let result: unknown;
  try {
    result = handler();
  } catch (error) {
    settle(false, true);
    throw error;
  }
  if (isPending(result))
    result.then(
      (taken) => settle(taken !== false, true),
      () => settle(false, true),
    );
  else settle(result !== false, typeof result === 'boolean');
}

/** A promise, from this window or another (an iframe's is no `instanceof Promise` here). */
function isPending(result: unknown): result is PromiseLike<unknown> {
  return typeof (result as { then?: unknown } | null | undefined)?.then === 'function';
}
