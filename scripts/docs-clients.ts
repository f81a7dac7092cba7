/** `npm run docs:clients`: rewrites the section "How Elicitkit behaves in each client" of docs/clients.md from the table. */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLIENTS_DOC, withClientsSection } from './clients-section.js';

const DOC = fileURLToPath(new URL(`../${CLIENTS_DOC}`, import.meta.url));
const before = readFileSync(DOC, 'utf8');
const after = withClientsSection(before);
if (after === before) console.log(`${CLIENTS_DOC}: the clients section is current.`);
else {
  writeFileSync(DOC, after);
  console.log(`${CLIENTS_DOC}: the clients section was rewritten from the table.`);
}
