/**
 * Reads the web app's configuration from the environment as the app will (`lib/config.ts`) and
 * says what is wrong, if anything: one line on stderr, exit code 2. `npm start` runs it before
 * building or serving, with the libraries' sources (`--conditions=@elicitkit/source`), so it works
 * before the first build too.
 */
import { configProblem, readConfig } from '../lib/config';

const problem = configProblem(() => readConfig(process.env));
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 2;
}
