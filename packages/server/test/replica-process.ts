/**
 * One replica in a process of its own, for tests that stop it (SIGSTOP) as a paused host would
 * be: the fixture tools on a loopback port behind a Redis relay. Configured by the environment
 * (`REDIS_URL`, `PREFIX`, `SECRET`, `RELAY_OPTIONS` as JSON); tells its parent where it listens
 * (`{ url, replica }` over IPC), and answers `'state'` with its deployments and its audit events.
 */
import { Redis } from 'ioredis';
import { createRedisRelay } from '../src/relay/redis-relay.js';
import { loopback } from './loopback.js';

const { REDIS_URL, PREFIX, SECRET, RELAY_OPTIONS } = process.env;
if (!REDIS_URL || !PREFIX || !SECRET || !process.send) throw new Error('REDIS_URL, PREFIX, SECRET and IPC are needed');
const send = process.send.bind(process);
const redis = new Redis(REDIS_URL, { retryStrategy: () => 20 });
redis.on('error', () => {});
const relay = createRedisRelay(redis, {
  secret: SECRET,
  prefix: PREFIX,
  livenessMs: 100,
  ...(JSON.parse(RELAY_OPTIONS ?? '{}') as object),
});
const serving = await loopback({ authenticated: true, sessions: relay });
await relay.serve(serving.handler);
process.on('message', (message) => {
  if (message === 'state') send({ deployments: serving.store.deployments, events: serving.log.events });
});
// The parent gone (its IPC channel closed), this replica goes too.
process.on('disconnect', () => process.exit(0));
send({ url: serving.url, replica: relay.replica });
