/**
 * test/fixtures/FACTS.md's generated tables (files and languages, every symbol of each fixture
 * repository, the corpus at a glance) are what the fixture files and the fixture index hold:
 * tests read facts from that page, so it may not drift. UPDATE_FACTS=1 rewrites them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, inject, it } from 'vitest';
import { fixtureFacts, renderFacts, sectionIds } from '../support/fixture-facts.js';
import { FIXTURES, fixtureRepos } from '../support/zoekt.js';

const FACTS = join(FIXTURES, 'FACTS.md');

it('FACTS.md has the tables the fixtures and their index give (UPDATE_FACTS=1 writes them)', async () => {
  const text = readFileSync(FACTS, 'utf8');
  const sections = await fixtureFacts(inject('zoektUrl'));
  // Every repository has its sections; every section the page names exists.
  for (const repo of fixtureRepos()) expect(sectionIds(text), repo).toContain(`symbols:${repo}`);
  const rendered = renderFacts(text, sections);
  if (process.env.UPDATE_FACTS === '1') {
    writeFileSync(FACTS, rendered);
    return;
  }
  expect(rendered === text, 'FACTS.md is out of date: run UPDATE_FACTS=1 npx vitest run test/integration/fixture-facts.test.ts').toBe(true);
});
