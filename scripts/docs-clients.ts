/** `npm run docs:clients`: rewrites the README's "How Elicitkit behaves in each client" from the table. */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withClientsSection } from './clients-section.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const before = readFileSync(README, 'utf8');
const after = withClientsSection(before);
if (after === before) console.log('README.md: the clients section is current.');
else {
  writeFileSync(README, after);
  console.log('README.md: the clients section was rewritten from the table.');
}
