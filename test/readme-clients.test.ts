import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KNOWN_CLIENTS } from '@elicitkit/form/clients';
import { describe, expect, it } from 'vitest';
import { ANCHOR, CLIENTS_DOC, clientsSection, END, START, withClientsSection } from '../scripts/clients-section.js';

const DOC = readFileSync(fileURLToPath(new URL(`../${CLIENTS_DOC}`, import.meta.url)), 'utf8');

describe(`${CLIENTS_DOC}: "How Elicitkit behaves in each client"`, () => {
  it('is the section the known-clients table renders today (run `npm run docs:clients` when this fails)', () => {
    expect(DOC).toContain(clientsSection());
    expect(withClientsSection(DOC)).toBe(DOC);
  });

  it('names every known client, the name it announces and its evidence', () => {
    const section = clientsSection();
    for (const c of KNOWN_CLIENTS) {
      expect(section).toContain(`${c.name} (\`${c.id}\`)`);
      expect(section).toContain(`\`${c.announces}\``);
      for (const e of c.evidence) expect(section).toContain(e.source);
    }
  });

  it('comes before the troubleshooting the evidence cites', () => {
    expect(DOC.indexOf(END)).toBeGreaterThan(0);
    expect(DOC.indexOf(`\n${ANCHOR}\n`)).toBeGreaterThan(DOC.indexOf(END));
  });

  it('a stale section is replaced, not duplicated, and the text around it is kept', () => {
    const stale = `# T\n\nintro\n\n${START}\n## How Elicitkit behaves in each client\nold table\n${END}\n\n${ANCHOR}\n`;
    const fresh = withClientsSection(stale);
    expect(fresh).toBe(`# T\n\nintro\n\n${clientsSection()}\n\n${ANCHOR}\n`);
    expect(fresh.split(START).length).toBe(2);
    expect(withClientsSection(fresh)).toBe(fresh);
  });

  it(`a file without the section gets it before "${ANCHOR}"`, () => {
    const bare = `# T\n\nintro\n\n${ANCHOR}\n\nrows\n`;
    expect(withClientsSection(bare)).toBe(`# T\n\nintro\n\n${clientsSection()}\n\n${ANCHOR}\n\nrows\n`);
  });

  it('a file without the section or the heading gets it at the end', () => {
    expect(withClientsSection('# T\n\nintro\n')).toBe(`# T\n\nintro\n\n${clientsSection()}\n`);
  });
});
