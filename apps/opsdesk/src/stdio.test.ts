import { type Era, stdioClient, tempDataDir } from '../test/harness.js';
import { outcomeMatrix } from '../test/matrix.js';

/** `elicitkit serve --stdio` in a child process, three connections (three children) per revision. */
async function start(era: Era) {
  const data = tempDataDir();
  const slowData = tempDataDir();
  const [main, bare, slow] = await Promise.all([
    stdioClient(data.dir, { era, user: 'alice' }),
    stdioClient(data.dir, { era, user: 'alice', capabilities: {} }),
    stdioClient(slowData.dir, { era, user: 'alice', timeoutMs: 300 }),
  ]);
  return {
    dataDir: data.dir,
    slowDataDir: slowData.dir,
    main,
    bare,
    slow,
    async close() {
      await Promise.all([main.close(), bare.close(), slow.close()]);
      data.remove();
      slowData.remove();
    },
  };
}

outcomeMatrix('stdio', 'legacy', start);
outcomeMatrix('stdio', 'modern', start);
