/**
 * `turn-after-close.test.ts` across instances: the chat's turn streams on one replica and its
 * page's beacon lands on the other, which closes the chat in Redis and withdraws its
 * question. The streaming replica learns of the close only at its next sweep (up to a minute);
 * meanwhile the model's next tool call must not show a question nobody may answer (every answer
 * is "No session: load the page first." now) nor open a connection for the ended chat. Two replicas as child processes
 * (`replica.ts`), a real `redis-server`, the bundled opsdesk, and a real OpenAI-compatible endpoint
 * (`scripted-model.ts`) that calls deploy_service twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../test/support/redis-server.js';
import { answer, close, openChat, type ReplicaProcess, startReplica, stopReplica, turn } from './http-browser';
import { type ScriptedModel, scriptedModel } from './scripted-model';

const REDIS = withRedis('web/test/turn-after-close-replicas.test.ts');

let model: ScriptedModel | undefined;
let redis: TestRedis;
let data: string;
let a: ReplicaProcess;
let b: ReplicaProcess;

beforeAll(async () => {
  if (!REDIS) return;
  model = await scriptedModel({ name: 'deploy_service', arguments: { service: 'search-service' } });
  redis = await startRedis();
  data = mkdtempSync(join(tmpdir(), 'elicitkit-web-turn-after-close-replicas-'));
  const env = {
    REDIS_URL: redis.url,
    ELICITKIT_DATA: data,
    ELICITKIT_QUESTION_TIMEOUT_MS: '60000',
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: 'k',
    ELICITKIT_MODEL: 'm-1',
  };
  a = await startReplica(env);
  // The first replica seeds the data directory before the second one opens it.
  const warm = await openChat(a);
  expect((await fetch(`${a.url}/api/tools`, { headers: { cookie: warm.cookie } })).status).toBe(200);
  await close(a, warm);
  b = await startReplica(env);
}, 120_000);

afterAll(async () => {
  await Promise.all([stopReplica(a), stopReplica(b)]);
  await redis?.stop();
  await model?.close();
  if (data) rmSync(data, { recursive: true, force: true });
});

describe.skipIf(!REDIS)('a model turn on one replica whose chat the other closes', () => {
  it('shows no question for the ended chat', async () => {
    const browser = await openChat(a);
    const stream = await turn(a, browser, 'deploy search-service');
    await stream.question();
    expect((await close(b, browser)).status).toBe(204);
    // The turn goes on to the model's next step, which calls the tool again.
    const late = await stream.question().catch(() => undefined);
    if (late) {
      const refused = await answer(b, browser, late.id, { action: 'decline' });
      expect.fail(`a question was shown for the ended chat; its answer got ${refused.status}`);
    }
    const chunks = await stream.end();
    const errors = chunks.filter((c) => c.type === 'tool-output-error');
    expect(errors).toEqual([expect.objectContaining({ errorText: expect.stringContaining('This chat has ended') })]);
  });
});
