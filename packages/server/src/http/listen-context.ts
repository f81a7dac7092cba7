/**
 * Which resources a 2026-07-28 `subscriptions/listen` request follows, known to the bus its stream
 * subscribes to. The SDK subscribes a listen stream to the bus with a listener alone (its filter
 * kept inside), so a bus that missed events (Redis away, `createRedisEventBus`) could not tell
 * that stream which of its resources may have changed. `createHttpHandler` serves such a request
 * inside `servingListen`, and the bus reads `listenedResources()` as the SDK subscribes (at once,
 * in the same asynchronous context). Nothing is set up for any other request.
 */
import type { AsyncLocalStorage } from 'node:async_hooks';

let context: AsyncLocalStorage<readonly string[]> | undefined;

/** Runs `serve` (the serving of `body`) with the resource URIs it follows, when it is a listen request following some. */
export function servingListen<T>(body: unknown, serve: () => T): T {
  const uris = resourceSubscriptionsOf(body);
  if (uris === undefined) return serve();
  context ??= new (process.getBuiltinModule('node:async_hooks').AsyncLocalStorage)();
  return context.run(uris, serve);
}

/** The resource URIs of the listen request being served, if any. */
export function listenedResources(): readonly string[] | undefined {
  return context?.getStore();
}

/** The distinct URIs (strings) of a listen request's `resourceSubscriptions`; the SDK refuses the request if they are not all strings. */
function resourceSubscriptionsOf(body: unknown): string[] | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const request = body as { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } };
  if (request.method !== 'subscriptions/listen') return undefined;
  const list = request.params?.notifications?.resourceSubscriptions;
  if (!Array.isArray(list)) return undefined;
  const uris = [...new Set(list.filter((uri): uri is string => typeof uri === 'string'))];
  return uris.length > 0 ? uris : undefined;
}
