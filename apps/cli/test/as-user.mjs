// The built CLI run as another user, who need not be able to reach the checkout (a clone in a
// 0700 temporary folder, say): its modules are loaded first, as the user who started this (root),
// then the process takes the other user's ids — no groups, that gid, that uid — and runs the command
// as `bin/elicitkit.js` would. Everything the command does on disk is done as that user.
//
//   node apps/cli/test/as-user.mjs <uid> <gid> install cursor -- node /srv/x.js
import { Console } from 'node:console';

const [uid, gid, ...argv] = process.argv.slice(2);
const dist = new URL('../dist/', import.meta.url);
const { main } = await import(new URL('main.js', dist).href);
// What `main` loads when a command is chosen, and to say what went wrong, loaded now while the
// checkout can still be read — by `main` itself, so that its own imports are the ones resolved
// (a module's imports are resolved from it): each command without a client is a usage mistake,
// made before it touches anything.
const quiet = { out: () => {}, err: () => {} };
for (const command of ['install', 'uninstall']) await main([command], quiet);
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
process.setgroups([]);
process.setgid(Number(gid));
process.setuid(Number(uid));
process.exitCode = await main(argv);
