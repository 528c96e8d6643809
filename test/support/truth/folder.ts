/**
 * The symbol truth of test/integration/symbol-truth.test.ts on any folder of TypeScript and
 * JavaScript, without Zoekt: every file through the extractor itself (in process), against the
 * declarations the TypeScript compiler reads (ts-decls.ts). Per kind, then per depth: recall (the
 * compiler's declarations the extractor tags at that line under that name) and precision (the
 * extractor's tags that are such declarations). What Universal Ctags would add for regions the
 * grammar could not parse is not counted: those lines are printed instead.
 *   bash bench/symbol-truth.sh FOLDER        (bundles this file, then runs it)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { extract } from '../../../src/extractor/extract.js';
import { grammarFor } from '../../../src/extractor/languages.js';
import { normalizeKind } from '../../../src/search/vocab/kinds.js';
import { tsDeclarations, type Declaration, type Depth } from './ts-decls.js';

interface Tagged {
  path: string;
  line: number;
  name: string;
  kind: string;
  parent: string;
}

const SCRIPT = /\.(?:[cm]?[jt]s|[jt]sx)$/;

function files(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory() && e.name !== 'node_modules') walk(path);
      else if (e.isFile() && SCRIPT.test(e.name)) out.push(relative(root, path));
    }
  };
  walk(root);
  return out.sort();
}

const at = (x: { path: string; line: number; name: string }) => `${x.path}:${x.line}:${x.name}`;
const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

async function main(root: string): Promise<void> {
  const truth: Declaration[] = [];
  const ours: Tagged[] = [];
  const errorLines: string[] = [];
  const list = files(root);
  for (const f of list) {
    const text = readFileSync(join(root, f), 'utf8');
    const g = grammarFor(f, text);
    if (!g) continue;
    truth.push(...tsDeclarations(f, text));
    const { tags, errorLines: errors } = await extract(g, text, 60_000);
    for (const t of tags) {
      const kind = normalizeKind(t.kind, g.language, t.scopeKind) ?? t.kind.toLowerCase();
      ours.push({ path: f, line: t.line, name: t.name, kind, parent: t.scope ?? '' });
    }
    for (const [a, b] of errors) errorLines.push(`${f}:${a}-${b}`);
  }
  const declared = new Map(truth.map((d) => [at(d), d]));
  const byKey = new Map(ours.map((s) => [at(s), s]));
  const depthOf = (s: Tagged): Depth => declared.get(at(s))?.depth ?? (s.parent ? 'nested' : 'top');
  const kinds = [...new Set([...truth.map((d) => d.kind as string), ...ours.map((s) => s.kind)])].sort();
  const rows: string[] = [];
  const misses: string[] = [];
  for (const kind of kinds) {
    for (const depth of ['all', 'top', 'member', 'nested'] as const) {
      const decls = truth.filter((d) => d.kind === kind && (depth === 'all' || d.depth === depth));
      const found = decls.filter((d) => byKey.has(at(d)));
      const returned = ours.filter((s) => s.kind === kind && (depth === 'all' || depthOf(s) === depth));
      const real = returned.filter((s) => declared.has(at(s)));
      if (depth !== 'all' && !decls.length && !returned.length) continue;
      const sameKind = found.filter((d) => byKey.get(at(d))!.kind === kind).length;
      const sameParent = found.filter((d) => byKey.get(at(d))!.parent === d.parent).length;
      rows.push(
        `  ${(depth === 'all' ? kind : `  ${depth}`).padEnd(10)} recall ${`${found.length}/${decls.length}`.padStart(11)} ${pct(decls.length ? found.length / decls.length : 1).padStart(8)}` +
          `  same kind ${pct(found.length ? sameKind / found.length : 1).padStart(8)}  same parent ${pct(found.length ? sameParent / found.length : 1).padStart(8)}` +
          `   precision ${`${real.length}/${returned.length}`.padStart(11)} ${pct(returned.length ? real.length / returned.length : 1).padStart(8)}`,
      );
      if (depth === 'all') {
        for (const d of decls) if (!byKey.has(at(d))) misses.push(`  missed   ${kind.padEnd(9)} ${d.depth.padEnd(6)} ${at(d)} (parent ${d.parent || '-'})`);
        for (const s of returned) if (!declared.has(at(s))) misses.push(`  not real ${kind.padEnd(9)} ${at(s)} (parent ${s.parent || '-'})`);
      }
    }
  }
  const real = ours.filter((s) => declared.has(at(s))).length;
  console.log(`${root}: ${list.length} files, ${truth.length} declarations read by the TypeScript compiler; per kind, then per depth (top, member, nested)`);
  console.log(rows.join('\n'));
  console.log(`  all symbols precision ${real}/${ours.length} ${pct(ours.length ? real / ours.length : 1)}`);
  if (errorLines.length) console.log(`regions the grammar could not parse (Universal Ctags' part, not counted): ${errorLines.join(' ')}`);
  if (process.env.TRUTH_VERBOSE) console.log(misses.join('\n'));
}

const root = process.argv[2];
if (!root) {
  console.error('usage: symbol-truth FOLDER');
  process.exit(2);
}
await main(root);
