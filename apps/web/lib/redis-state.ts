import { createRedisRateLimiter, createRedisRegistry } from '@elicitkit/client/redis';
import { Redis } from 'ioredis';
import { config } from './config';
import { createRedisChats } from './redis-chats';
import { QUESTION_BUDGET, type StateFactory } from './stores';
import { createRedisTurns } from './turns';

/**
 * The web app's state in Redis (`REDIS_URL`): chats with their CSRF tokens and users, the pending
 * registry — each question's owner, data and settlement — each chat's question budget and its
 * running turn's mark. What stays in each process is
 * what cannot move: the chat stream it is writing and its MCP connections. An answer posted to
 * any replica settles the question in Redis, and the replica holding the stream hears it through
 * pub/sub.
 */
export const redisState: StateFactory = () => {
  const { redisUrl, questionTimeoutMs, turnLeaseMs } = config();
  const redis = new Redis(redisUrl as string, { maxRetriesPerRequest: 2 });
  const registry = createRedisRegistry({ redis, prefix: 'elicitkit:web:q:', timeoutMs: questionTimeoutMs });
  const budgets = createRedisRateLimiter({ redis, prefix: 'elicitkit:web:budget:', ...QUESTION_BUDGET });
  return {
    chats: createRedisChats(redis),
    registry,
    // Every instance that streams one of the chat's turns counts into the same window.
    budget: (key) => ({ take: (server) => budgets.take(`${key}:${server}`) }),
    // A turn streaming on one instance refuses a second turn, or a change of user, on every other.
    turns: createRedisTurns(redis, { prefix: 'elicitkit:web:turn:', leaseMs: turnLeaseMs }),
    close: async () => {
      await registry.close();
      await redis.quit();
    },
  };
};
