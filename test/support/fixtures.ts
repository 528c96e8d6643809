/**
 * Facts about test/fixtures/ read straight from the files, as an oracle independent of Zoekt:
 * where a text stands (1-based line, column in characters) and its context lines.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FIXTURES, REPO_PREFIX } from './zoekt.js';

export interface Location {
  repo: string;
  path: string;
  line: number;
  column: number;
  text: string;
  lines: string[];
}

export function fileLines(repoDir: string, path: string): string[] {
  const content = readFileSync(join(FIXTURES, repoDir, path), 'utf8');
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Every place in one fixture file where `needle` occurs (first occurrence per line). */
export function locateAll(repoDir: string, path: string, needle: string | RegExp): Location[] {
  const lines = fileLines(repoDir, path);
  const out: Location[] = [];
  lines.forEach((text, i) => {
    const index = typeof needle === 'string' ? text.indexOf(needle) : text.search(needle);
    if (index >= 0) {
      out.push({ repo: `${REPO_PREFIX}${repoDir}`, path, line: i + 1, column: [...text.slice(0, index)].length + 1, text, lines });
    }
  });
  return out;
}

export function locate(repoDir: string, path: string, needle: string | RegExp): Location {
  const all = locateAll(repoDir, path, needle);
  if (all.length !== 1) throw new Error(`expected ${String(needle)} exactly once in ${repoDir}/${path}, found ${all.length}`);
  return all[0]!;
}

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else out.push(full);
  }
  return out;
}

/** Every line of the whole corpus holding `needle`, as repo, path and line. */
export function grepCorpus(needle: string | RegExp): { repo: string; path: string; line: number; text: string }[] {
  const hits: { repo: string; path: string; line: number; text: string }[] = [];
  for (const file of walk(FIXTURES, [])) {
    const rel = relative(FIXTURES, file);
    const slash = rel.indexOf('/');
    if (slash < 0) continue;
    const repoDir = rel.slice(0, slash);
    const path = rel.slice(slash + 1);
    const content = readFileSync(file, 'utf8');
    content.split('\n').forEach((text, i) => {
      const found = typeof needle === 'string' ? text.includes(needle) : needle.test(text);
      if (found) hits.push({ repo: `${REPO_PREFIX}${repoDir}`, path, line: i + 1, text });
    });
  }
  return hits;
}

/** Every file of the corpus as repo and path (what the index holds on the main branch). */
export function corpusFiles(): { repo: string; path: string }[] {
  return walk(FIXTURES, [])
    .map((file) => relative(FIXTURES, file))
    .filter((rel) => rel.includes('/'))
    .map((rel) => {
      const slash = rel.indexOf('/');
      return { repo: `${REPO_PREFIX}${rel.slice(0, slash)}`, path: rel.slice(slash + 1) };
    });
}
