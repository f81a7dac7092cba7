/**
 * @elicitkit/client/testing — the pending-registry behaviour suite, for anyone writing a store
 * of their own: run `registrySuite(name, factory)` in a vitest test file. This subpath imports
 * vitest (a peer dependency needed only here); nothing else in the package does.
 *
 * @example
 * import { registrySuite } from '@elicitkit/client/testing';
 * registrySuite('my store', (clock) => createMyRegistry({ now: clock.now, setTimer: clock.setTimer }));
 */

export { type ManualClock, manualClock, type RegistryFactory, registrySuite } from './registry/registry.suite.js';
