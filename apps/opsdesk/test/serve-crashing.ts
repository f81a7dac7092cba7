/**
 * opsdesk over HTTP that dies (SIGKILL: no handler, no flush, no cleanup) in the middle of a
 * deploy's effect: after its `deployments` row is written, before the transaction commits.
 * A temporary trigger on this connection only does it; nothing on disk changes.
 * Usage: node --import tsx --conditions=@elicitkit/source serve-crashing.ts <data dir>
 */
import { serveHttp } from '../src/serve-http.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: serve-crashing.ts <data dir>');
const serving = await serveHttp({ dataDir, locale: 'en', port: 0 });
const { store } = serving.opsdesk;
if (store.dialect !== 'sqlite') throw new Error('serve-crashing.ts runs on SQLite');
const { db } = store;
db.function('crash_now', () => {
  process.kill(process.pid, 'SIGKILL');
  return 0;
});
db.exec('CREATE TEMP TRIGGER crash_mid_effect AFTER INSERT ON deployments BEGIN SELECT crash_now(); END');
for (const { username, token } of serving.newTokens) console.log(`  ${username} ${token}`);
console.log(`serving ${serving.url}`);
