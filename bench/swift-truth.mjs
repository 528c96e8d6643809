// Swift definitions found by the extractor (in process, no Zoekt) against those read from the text
// of the files: comments and string literals blanked (nested comments, multi-line and raw strings,
// interpolation), then the keyword declarations of each line (`func`, `init`, `class`, `struct`,
// `enum`, `protocol`, `actor`, `typealias`, `associatedtype` with their names). No Swift compiler
// runs here, so the text reading is the truth; it misreads a few lines (`import func M.f`), which
// the misses it prints show. Recall per keyword, what was found of another kind, and what the
// extractor found that the reading did not. Asserts nothing.
//   node bench/swift-truth.mjs FOLDER...        (after npm run build)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extract } from '../dist/extractor/extract.js';
import { grammar } from '../dist/extractor/languages.js';

/** The text with comments and string literals turned to spaces, its newlines kept. */
function blank(src) {
  const out = [];
  const spaces = (s) => s.replace(/[^\n]/g, ' ');
  let i = 0;
  while (i < src.length) {
    if (src.startsWith('//', i)) {
      const end = src.indexOf('\n', i);
      const j = end === -1 ? src.length : end;
      out.push(spaces(src.slice(i, j)));
      i = j;
    } else if (src.startsWith('/*', i)) {
      let depth = 0;
      let j = i;
      while (j < src.length) {
        if (src.startsWith('/*', j)) (depth++, (j += 2));
        else if (src.startsWith('*/', j)) {
          depth--;
          j += 2;
          if (depth === 0) break;
        } else j++;
      }
      out.push(spaces(src.slice(i, j)));
      i = j;
    } else if (/^#*"/.test(src.slice(i, i + 8)) && (src[i] === '"' || src[i] === '#')) {
      const hashes = /^#*/.exec(src.slice(i))[0];
      const quote = src.startsWith('"""', i + hashes.length) ? '"""' : '"';
      const close = quote + hashes;
      let j = i + hashes.length + quote.length;
      while (j < src.length) {
        if (src[j] === '\\' && !hashes) {
          if (src[j + 1] === '(') {
            // Interpolation: to its closing parenthesis.
            let depth = 1;
            j += 2;
            while (j < src.length && depth > 0) depth += src[j] === '(' ? 1 : src[j] === ')' ? -1 : 0, j++;
            continue;
          }
          j += 2;
          continue;
        }
        if (src.startsWith(close, j)) {
          j += close.length;
          break;
        }
        if (quote === '"' && src[j] === '\n') break;
        j++;
      }
      out.push(spaces(src.slice(i, j)));
      i = j;
    } else out.push(src[i++]);
  }
  return out.join('');
}

const KEYWORD = /(?<![\w.])(func|class|struct|enum|protocol|actor|typealias|associatedtype)\s+(`[^`]+`|[A-Za-z_]\w*)/g;
const INIT = /(?<![\w.])init[?!]?\s*[(<]/;
const MODIFIERS = new Set(['func', 'var', 'let', 'subscript', 'override', 'final', 'private', 'public', 'internal', 'fileprivate', 'open', 'static', 'required', 'convenience']);
const KINDS = { func: ['Function', 'Method'], struct: ['Struct'], class: ['Class'], actor: ['Class'], enum: ['Enum'], protocol: ['Interface'], typealias: ['TypeAlias'], associatedtype: ['TypeAlias'], init: ['Constructor'] };

const files = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory() && e.name !== '.git') walk(path);
    else if (e.isFile() && e.name.endsWith('.swift')) files.push(path);
  }
};
for (const folder of process.argv.slice(2)) walk(folder);
if (!files.length) {
  console.error('usage: node bench/swift-truth.mjs FOLDER...   (no .swift file found)');
  process.exit(2);
}

const per = {};
const missed = [];
const otherKind = [];
const extra = [];
let withErrors = 0;
for (const file of files.sort()) {
  const text = readFileSync(file, 'utf8');
  const truth = new Map();
  blank(text)
    .split('\n')
    .forEach((line, i) => {
      // `class func` is a method: the keyword after `class` is read on its own.
      for (const m of line.replaceAll(/\bclass\s+(?=func\b|var\b|let\b)/g, '      ').matchAll(KEYWORD)) {
        const name = m[2].replaceAll('`', '');
        if (m[1] === 'class' && MODIFIERS.has(name)) continue;
        truth.set(`${i + 1}:${name}`, m[1]);
      }
      if (INIT.test(line)) truth.set(`${i + 1}:init`, 'init');
    });
  const { tags, errorLines } = await extract(grammar('swift'), text, 60_000);
  if (errorLines.length) withErrors++;
  const found = new Map(tags.map((t) => [`${t.line}:${t.name}`, t.kind]));
  for (const [key, keyword] of truth) {
    per[keyword] ??= { declared: 0, found: 0 };
    per[keyword].declared++;
    const kind = found.get(key);
    if (kind && KINDS[keyword].includes(kind)) per[keyword].found++;
    else (kind ? otherKind : missed).push(`${file}:${key} ${keyword}${kind ? ` -> ${kind}` : ''}`);
  }
  const covered = new Set(Object.values(KINDS).flat());
  for (const [key, kind] of found) if (covered.has(kind) && !truth.has(key)) extra.push(`${file}:${key} ${kind}`);
}
let declared = 0;
let foundAll = 0;
for (const [keyword, { declared: d, found: f }] of Object.entries(per).sort()) {
  console.log(`${keyword.padEnd(15)} ${String(f).padStart(6)} / ${String(d).padEnd(6)} ${((100 * f) / d).toFixed(2)}%`);
  declared += d;
  foundAll += f;
}
console.log(`${'all'.padEnd(15)} ${String(foundAll).padStart(6)} / ${String(declared).padEnd(6)} ${((100 * foundAll) / declared).toFixed(2)}%   (${files.length} files, ${withErrors} with regions the grammar could not parse)`);
console.log(`of another kind: ${otherKind.length}${otherKind.length ? `\n  ${otherKind.slice(0, 20).join('\n  ')}` : ''}`);
console.log(`missed: ${missed.length}${missed.length ? `\n  ${missed.slice(0, 30).join('\n  ')}` : ''}`);
console.log(`found, not read from the text: ${extra.length}${extra.length ? `\n  ${extra.slice(0, 20).join('\n  ')}` : ''}`);
