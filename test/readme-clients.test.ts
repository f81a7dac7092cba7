import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KNOWN_CLIENTS } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { clientsSection, END, START, withClientsSection } from '../scripts/clients-section.js';

const README = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

describe('README: "How Elicitkit behaves in each client"', () => {
  it('is the section the known-clients table renders today (run `npm run docs:clients` when this fails)', () => {
    expect(README).toContain(clientsSection());
    expect(withClientsSection(README)).toBe(README);
  });

  it('names every known client, the name it announces and its evidence', () => {
    const section = clientsSection();
    for (const c of KNOWN_CLIENTS) {
      expect(section).toContain(`${c.name} (\`${c.id}\`)`);
      expect(section).toContain(`\`${c.announces}\``);
      for (const e of c.evidence) expect(section).toContain(e.source);
    }
  });

  it('a stale section is replaced, not duplicated, and the text around it is kept', () => {
    const stale = `# T\n\nintro\n\n${START}\n## How Elicitkit behaves in each client\nold table\n${END}\n\n## Repository layout\n`;
    const fresh = withClientsSection(stale);
    expect(fresh).toBe(`# T\n\nintro\n\n${clientsSection()}\n\n## Repository layout\n`);
    expect(fresh.split(START).length).toBe(2);
    expect(withClientsSection(fresh)).toBe(fresh);
  });

  it('a README without the section gets it before "Repository layout"', () => {
    const bare = '# T\n\nintro\n\n## Repository layout\n\ntree\n';
    expect(withClientsSection(bare)).toBe(`# T\n\nintro\n\n${clientsSection()}\n\n## Repository layout\n\ntree\n`);
  });
});
