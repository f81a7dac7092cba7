/**
 * A process that starts the shop on argv[2], sets one statement running for ever, prints the shop
 * process's pid and waits: a test kills it and checks that the shop process does not outlive it.
 */
import { startShop } from '../src/shop/client.js';

const shop = startShop(process.argv[2] as string, { workers: 1, timeoutMs: 600_000 });
const { pid } = (await shop.settings()) as { pid: number };
void shop.read('alice', 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c');
process.stdout.write(`${pid}\n`);
setInterval(() => {}, 1_000);
