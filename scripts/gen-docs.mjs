#!/usr/bin/env node
/**
 * Writes the reference sections of the README and of docs/ from the code, so they cannot drift
 * from it:
 *   - the option tables, from the option list of src/config.ts and the local serve command's
 *     environment (src/local/serve-env.ts);
 *   - the error codes, from src/errors.ts;
 *   - the shared filters and one block per tool (arguments with types, bounds and defaults; the
 *     output's shape; the description agents read), from the tool definitions of src/tools/;
 *   - the client configurations, from the files in clients/.
 * It reads the built server (dist/), so run it after a build: `npm run docs` does both.
 *
 * Each section has one page (homeOf below), where it sits between two markers:
 *   <!-- BEGIN GENERATED name … -->  …  <!-- END GENERATED name -->
 * Everything outside them is written by hand and left alone. A page without the markers of one of
 * its sections, or with markers naming a section that does not exist or lives on another page, is
 * an error that says what to add or remove.
 *
 *   node scripts/gen-docs.mjs          rewrite the pages
 *   node scripts/gen-docs.mjs --check  exit 1, naming the pages and sections that differ, if any is stale
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const { TOOLS } = await import('../dist/tools/index.js');
const { sharedFilterArgs } = await import('../dist/tools/shared.js');
const { OUTPUT_CHARS_BOUNDS } = await import('../dist/config.js');
const { OPTIONS, envForm } = await import('../dist/config.js');
const { SERVE_ENV } = await import('../dist/local/serve-env.js');
const { ERROR_CODES, ERROR_CODE_MEANINGS, isRetryable } = await import('../dist/errors.js');

/** The client configurations, in the order the README shows them. */
export const CLIENTS = [
  {
    file: 'clients/claude-desktop.json',
    title: 'Claude Desktop',
    where: '`claude_desktop_config.json` (Settings → Developer → Edit Config)',
  },
  { file: 'clients/claude-code.mcp.json', title: 'Claude Code, shared with the project', where: '`.mcp.json` at the root of the project' },
  { file: 'clients/claude-code.sh', title: 'Claude Code, from the command line', where: 'a shell', lang: 'sh' },
  { file: 'clients/cursor.json', title: 'Cursor', where: '`~/.cursor/mcp.json`, or `.cursor/mcp.json` in the project' },
  {
    file: 'clients/vscode.json',
    title: 'VS Code',
    where: '`.vscode/mcp.json` in the workspace (the key is `servers`; the token of the HTTP entry is asked for once and stored by VS Code)',
  },
  {
    file: 'clients/http.json',
    title: 'Any Streamable HTTP client, with a bearer token',
    where: 'the client\'s server list; clients that expand `${VAR}` (Claude Code) read the token from the environment, others need it pasted in',
  },
];

/** The pages that hold generated sections, relative to the root. */
export const PAGES = ['README.md', 'docs/configuration.md', 'docs/local-mode.md', 'docs/http.md', 'docs/errors.md', 'docs/tools.md'];

/** The page a generated section lives on. */
export function homeOf(name) {
  if (name === 'clients') return 'README.md';
  if (name === 'options-general') return 'docs/configuration.md';
  if (name === 'options-serve') return 'docs/local-mode.md';
  if (name === 'options-http') return 'docs/http.md';
  if (name === 'errors') return 'docs/errors.md';
  return 'docs/tools.md';
}

/** A link from a section's page to a path given from the root (`docs/pagination.md#output-budget`). */
function linkFrom(name, target) {
  return posix.relative(posix.dirname(homeOf(name)), target) || '.';
}

const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/** A Markdown table cell: one line, pipes escaped. */
function cell(text) {
  return String(text).replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

function table(head, rows) {
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
}

const code = (v) => `\`${v}\``;

// ---------------------------------------------------------------- JSON Schema as words

/** The type of a schema, TypeScript-like: string, integer[], "auto" | "yes" | "no". */
function typeName(s) {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) return s.anyOf.map(typeName).join(' | ');
  if (s.type === 'array') {
    const inner = typeName(s.items ?? {});
    return inner.includes(' | ') ? `(${inner})[]` : `${inner}[]`;
  }
  if (s.type === 'object') return 'object';
  return s.type ?? 'any';
}

function range(min, max, unit = '') {
  const lo = min !== undefined && Math.abs(min) < SAFE_INTEGER ? min : undefined;
  const hi = max !== undefined && Math.abs(max) < SAFE_INTEGER ? max : undefined;
  if (lo !== undefined && hi !== undefined) return `${lo}–${hi}${unit}`;
  if (lo !== undefined) return `≥ ${lo}${unit}`;
  if (hi !== undefined) return `≤ ${hi}${unit}`;
  return '';
}

/** What values an argument takes beyond its type: number ranges, lengths, list sizes. */
function bounds(s) {
  if (s.type === 'integer' || s.type === 'number') return range(s.minimum, s.maximum);
  if (s.type === 'string' && !s.enum) return range(s.minLength, s.maxLength, ' characters');
  if (s.type === 'array') {
    const items = range(s.minItems, s.maxItems, ' items');
    const each = s.items ? bounds(s.items) : '';
    return [items, each && `each ${each}`].filter(Boolean).join(', ');
  }
  return '';
}

/**
 * The default an argument's description states, in the forms the tool descriptions use:
 * "(1–50, default 10)", "Default false.", "Default: all indexed branches.", "'auto' (default)".
 */
export function statedDefault(description = '') {
  const marked = /'([^']+)' \(default\)/.exec(description);
  if (marked) return { value: marked[1] };
  const m = /\bdefault:?\s+([^.;)]+?)\s*(?:[.;)]|$)/i.exec(description);
  if (!m) return undefined;
  const text = m[1].trim();
  return /^(?:-?\d+|true|false)$/.test(text) ? { value: text } : { text };
}

function defaultCell(name, s, required) {
  if (required.includes(name)) return 'required';
  const d = statedDefault(s.description);
  if (!d) return '—';
  return d.value !== undefined ? code(d.value) : d.text;
}

/** An output schema as a TypeScript-like shape; small objects stay on one line. */
function shape(s, indent = 0) {
  if (s.type === 'array') {
    const inner = shape(s.items ?? {}, indent);
    return /^[{(]/.test(inner) || !inner.includes(' | ') ? `${inner}[]` : `(${inner})[]`;
  }
  if (s.type !== 'object' || !s.properties) return typeName(s);
  const required = s.required ?? [];
  const fields = Object.entries(s.properties).map(([key, p]) => ({
    text: `${key}${required.includes(key) ? '' : '?'}: ${shape(p, indent + 2)}`,
    note: p.description,
  }));
  const oneLine = `{ ${fields.map((f) => f.text).join('; ')} }`;
  if (!oneLine.includes('\n') && indent + oneLine.length <= 96 && fields.every((f) => !f.note)) return oneLine;
  const pad = ' '.repeat(indent + 2);
  const lines = fields.map((f) => `${pad}${f.text}${f.note ? `  // ${f.note.replace(/\s*\n\s*/g, ' ')}` : ''}`);
  return `{\n${lines.join('\n')}\n${' '.repeat(indent)}}`;
}

// ---------------------------------------------------------------- sections

function optionTable(group) {
  const rows = OPTIONS.filter((o) => o.group === group).map((o) => {
    const dflt = typeof o.default === 'object' ? o.default.text : code(o.default);
    const takes = [o.choices ? o.choices.map(code).join(', ') : '', range(o.min, o.max)].filter(Boolean);
    return [code(`--${o.name}${o.value ? ` ${o.value}` : ''}`), code(envForm(o)), dflt, `${o.description}${takes.length ? ` (${takes.join('; ')})` : ''}`];
  });
  return table(['flag', 'environment', 'default', 'meaning'], rows);
}

function serveEnvTable() {
  const rows = Object.values(SERVE_ENV).map((o) => {
    const dflt = typeof o.default === 'object' ? o.default.text : code(o.default);
    const takes = range(o.min, o.max);
    return [code(`${o.env}=${o.value}`), dflt, `${o.description}${takes ? ` (${takes})` : ''}`];
  });
  return table(['environment', 'default', 'meaning'], rows);
}

function errorTable() {
  return table(
    ['code', 'retryable', 'meaning'],
    ERROR_CODES.map((c) => [code(c), isRetryable(c) ? 'yes' : 'no', ERROR_CODE_MEANINGS[c]]),
  );
}

const SHARED = Object.keys(sharedFilterArgs);

function inputSchema(tool) {
  return z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' });
}

function sharedFilterTable() {
  // The shared filters as the first tool that takes them all declares them.
  const tool = TOOLS.find((t) => SHARED.every((k) => k in t.input.shape));
  if (!tool) throw new Error('no tool takes every shared filter; update sharedFilterTable in scripts/gen-docs.mjs');
  const props = inputSchema(tool).properties;
  return table(
    ['argument', 'type', 'bounds', 'meaning'],
    SHARED.map((k) => [code(k), typeName(props[k]), bounds(props[k]), props[k].description ?? '']),
  );
}

function toolBlock(tool) {
  const schema = inputSchema(tool);
  const props = schema.properties ?? {};
  const required = schema.required ?? [];
  const names = Object.keys(props);
  const parts = [];
  if (names.length) {
    const rows = [];
    for (const k of names) {
      if (k === 'max_output_chars') {
        const budget = linkFrom(`tool:${tool.name}`, 'docs/pagination.md#output-budget');
        rows.push([code(k), 'integer', range(OUTPUT_CHARS_BOUNDS.min, OUTPUT_CHARS_BOUNDS.max), '`--max-output-chars`', `the most characters of text in the answer ([Output budget](${budget}))`]);
      }
      else if (!SHARED.includes(k)) rows.push([code(k), typeName(props[k]), bounds(props[k]), defaultCell(k, props[k], required), props[k].description ?? '']);
      else if (k === names.find((n) => SHARED.includes(n))) {
        const shared = names.filter((n) => SHARED.includes(n));
        rows.push([shared.map(code).join(', '), '', '', '—', 'the filters shared by the search tools (above)']);
      }
    }
    parts.push(table(['argument', 'type', 'bounds', 'default', 'meaning'], rows));
  } else {
    parts.push('No arguments.');
  }
  const output = z.toJSONSchema(tool.output, { io: 'output', unrepresentable: 'any' });
  parts.push(`Output (\`structuredContent\`; \`?\` marks a field that may be absent):\n\n\`\`\`ts\n${shape(output)}\n\`\`\``);
  parts.push(`<details><summary>The description agents read</summary>\n\n\`\`\`text\n${tool.description}\n\`\`\`\n\n</details>`);
  return parts.join('\n\n');
}

function clientsBlock() {
  return CLIENTS.map((c) => {
    const text = readFileSync(join(ROOT, c.file), 'utf8').trimEnd();
    return `**${c.title}** — in ${c.where} ([\`${c.file}\`](${linkFrom('clients', c.file)})):\n\n\`\`\`${c.lang ?? 'json'}\n${text}\n\`\`\``;
  }).join('\n\n');
}

/** Every generated section: its name in the markers, and its text. */
export function sections() {
  const out = new Map();
  out.set('options-general', optionTable('general'));
  out.set('options-http', optionTable('http'));
  out.set('options-serve', serveEnvTable());
  out.set('errors', errorTable());
  out.set('shared-filters', sharedFilterTable());
  for (const tool of TOOLS) out.set(`tool:${tool.name}`, toolBlock(tool));
  out.set('clients', clientsBlock());
  return out;
}

const BLOCK = /(<!-- BEGIN GENERATED (\S+)[^>]*-->\n)([\s\S]*?)(<!-- END GENERATED (\S+) -->)/g;

/** A page with every generated section rewritten; throws when markers are missing, unknown or misplaced. */
export function render(page, text, generated = sections()) {
  const seen = new Set();
  const out = text.replace(BLOCK, (_all, begin, name, _body, end, endName) => {
    if (name !== endName) throw new Error(`${page}: BEGIN GENERATED ${name} is closed by END GENERATED ${endName}`);
    if (!generated.has(name)) throw new Error(`${page}: no generated section is called ${name}; remove its markers`);
    if (homeOf(name) !== page) throw new Error(`${page}: the generated section ${name} belongs in ${homeOf(name)}; move its markers there`);
    if (seen.has(name)) throw new Error(`${page}: the generated section ${name} appears twice`);
    seen.add(name);
    return `${begin}\n${generated.get(name)}\n\n${end}`;
  });
  const missing = [...generated.keys()].filter((n) => homeOf(n) === page && !seen.has(n));
  if (missing.length) {
    throw new Error(
      `${page} lacks markers for: ${missing.join(', ')}. Add, where each belongs:\n` +
        missing.map((n) => `<!-- BEGIN GENERATED ${n} (npm run docs) -->\n<!-- END GENERATED ${n} -->`).join('\n'),
    );
  }
  return out;
}

/** The names of the sections whose text in `text` differs from what render writes. */
function staleSections(text, generated) {
  const stale = [];
  for (const m of text.matchAll(BLOCK)) {
    if (m[3] !== `\n${generated.get(m[2])}\n\n`) stale.push(m[2]);
  }
  return stale;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const generated = sections();
  const check = process.argv.includes('--check');
  const stale = [];
  for (const page of PAGES) {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const next = render(page, text, generated);
    if (next === text) continue;
    if (check) stale.push(`${page} (${staleSections(text, generated).join(', ')})`);
    else {
      writeFileSync(join(ROOT, page), next);
      process.stderr.write(`${page} rewritten\n`);
    }
  }
  if (check && stale.length) {
    process.stderr.write(`out of date: ${stale.join('; ')}. Run: npm run docs\n`);
    process.exit(1);
  }
  process.stderr.write(check ? `generated sections are up to date in ${PAGES.join(', ')}\n` : 'generated sections written\n');
}
