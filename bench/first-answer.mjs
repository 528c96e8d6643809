#!/usr/bin/env node
// First use with your own code: two clients spawned at the same moment on a cold data folder, one
// listing Go's source tree (a git copy of `$(go env GOROOT)/src`, ~12k files), the other a small
// repository (a git copy of this checkout's `src/`). Each searches every 250 ms until its answer is
// complete and every repository `current`; printed per client: the time from the spawn to that
// first complete answer, and each `retry_after_s` (or "Retry … in about") it was told on the way
// against the time it then actually took (ratio = told ÷ took, with took counted as at least 1 s:
// hints are whole seconds).
//
//   node bench/first-answer.mjs [CHECKOUT...]      ROUNDS=2 (default)
//
// Each CHECKOUT (default: this one) is a built zoekt-mcp checkout whose scripts/serve.sh the
// clients spawn: a `git worktree` of another commit, built, to compare (node_modules copied in,
// the Zoekt of this checkout's .tools used by all; each spawned once untimed first, in case that
// sets it up). Checkouts take turns within each round, in a rotated order, so that a busy machine
// weighs on all alike. One JSON line per run, then a table.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gitCopy, goSrc } from './lib.mjs';

const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const checkouts = process.argv.slice(2).map((c) => resolve(c));
if (!checkouts.length) checkouts.push(here);
const rounds = Number(process.env.ROUNDS ?? 2);
const work = mkdtempSync(join(tmpdir(), 'zoekt-mcp-first-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

const go = gitCopy(goSrc(), join(work, 'go'), 'go/src');
const small = gitCopy(join(here, 'src'), join(work, 'small'), 'acme/small');
const files = (dir) => Number(execFileSync('git', ['-C', dir, 'ls-files'], { encoding: 'utf8' }).split('\n').length - 1);
const clients = [
  { who: 'large', repo: go, files: files(go), query: 'func' },
  { who: 'small', repo: small, files: files(small), query: 'import' },
];
process.stderr.write(`large: ${clients[0].files} files (Go's src); small: ${clients[1].files} files\n`);

async function spawnClient(checkout, data, repo) {
  const list = join(data, '..', `list-${repo.split('/').at(-1)}`);
  writeFileSync(list, `${repo}\n`);
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? '/tmp',
    ZOEKT_MCP_TOOLS_DIR: join(here, '.tools'),
    ZOEKT_MCP_DATA: data,
    ZOEKT_MCP_REPOS: list,
    ZOEKT_PORT: '0',
    ZOEKT_MCP_LINGER_MS: '0',
    ZOEKT_MCP_LOG_LEVEL: 'warn',
  };
  const client = new Client({ name: 'first-answer-bench', version: '1' });
  const transport = new StdioClientTransport({ command: 'bash', args: [join(checkout, 'scripts/serve.sh')], env, stderr: 'pipe' });
  // What the server said, to show should it end before its first complete answer.
  let said = '';
  transport.stderr?.on('data', (d) => (said = (said + d).slice(-4000)));
  client.said = () => said;
  await client.connect(transport);
  return client;
}

/** Searches until complete and current; the time that took and the retry hints on the way. */
async function untilComplete(client, query, t0) {
  const hints = [];
  for (;;) {
    const res = await client.callTool({ name: 'search_code', arguments: { query, context_lines: 0, limit: 5 } });
    const at = performance.now() - t0;
    const out = res.structuredContent;
    // A repository not compared with its files yet is told to ask again in a moment: that is
    // no estimate of when it is indexed, and is kept apart.
    const checking = /checking for changes|service is starting/.test(JSON.stringify(res));
    if (res.isError) {
      const text = res.content?.map((c) => c.text ?? '').join('\n') ?? '';
      const m = /Retry [^\n]*?in about (\d+) (s|min)/.exec(`${out?.hint ?? ''}\n${text}`);
      if (m) hints.push({ at, told: Number(m[1]) * (m[2] === 'min' ? 60 : 1), checking });
    } else {
      const ages = out?.index_age ?? [];
      const told = ages.map((a) => a.retry_after_s).filter((s) => s !== undefined);
      if (told.length) hints.push({ at, told: Math.max(...told), checking });
      if (out?.stats?.complete && ages.every((a) => a.state === 'current')) return { ms: at, hints };
    }
    if (at > 900_000) throw new Error('no complete answer in 15 min');
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function run(checkout) {
  const data = join(mkdtempSync(join(work, 'run-')), 'data');
  const t0 = performance.now();
  const connected = await Promise.all(clients.map((c) => spawnClient(checkout, data, c.repo)));
  try {
    const lines = await Promise.all(
      clients.map((c, i) =>
        untilComplete(connected[i], c.query, t0).catch((err) => {
          throw new Error(`${c.who} client of ${checkout}: ${err.message}\n${connected[i].said()}\n${readFileSync(join(data, 'supervisor.log'), 'utf8').slice(-3000)}`);
        }),
      ),
    );
    const log = readFileSync(join(data, 'supervisor.log'), 'utf8');
    const jobs = log.split('\n').filter((l) => /indexed \S+ in /.test(l)).map((l) => l.replace(/^.*?(indexed )/, '$1'));
    return clients.map((c, i) => ({
      checkout,
      client: c.who,
      first_complete_s: +(lines[i].ms / 1000).toFixed(1),
      // Each hint against what it then took.
      estimates: lines[i].hints.map((h) => ({
        at_s: +(h.at / 1000).toFixed(1),
        told_s: h.told,
        took_s: +((lines[i].ms - h.at) / 1000).toFixed(1),
        ratio: +(h.told / Math.max((lines[i].ms - h.at) / 1000, 1)).toFixed(2),
        ...(h.checking ? { checking: true } : {}),
      })),
      jobs,
    }));
  } finally {
    await Promise.all(connected.map((c) => c.close()));
    // Let the supervisor leave (no linger) before the next run starts on a fresh folder.
    await new Promise((r) => setTimeout(r, 2000));
  }
}

// A checkout's first spawn may set it up (npm packages, the build): that is no part of first
// use with one's own code on a set-up machine, so each is spawned once before the timed runs.
for (const checkout of checkouts) {
  const warm = await spawnClient(checkout, join(mkdtempSync(join(work, 'warm-')), 'data'), small);
  await warm.close();
}

const results = [];
for (let r = 0; r < rounds; r++) {
  const order = checkouts.map((_, i) => checkouts[(i + r) % checkouts.length]);
  for (const checkout of order) {
    for (const line of await run(checkout)) {
      results.push(line);
      // The hints printed one every 5 s or so (all of them count in the table).
      const shown = line.estimates.filter((e, k, all) => k === 0 || k === all.length - 1 || Math.floor(e.at_s / 5) !== Math.floor(all[k - 1].at_s / 5));
      process.stdout.write(`${JSON.stringify({ round: r + 1, ...line, estimates: shown })}\n`);
    }
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
process.stdout.write('\n| checkout | client | first complete answer, median s (runs) | estimates, told ÷ took: first of each run; median; worst | "checking, ask again" hints |\n| --- | --- | --- | --- | --- |\n');
for (const checkout of checkouts) {
  for (const c of clients) {
    const mine = results.filter((x) => x.checkout === checkout && x.client === c.who);
    const estimates = mine.map((x) => x.estimates.filter((e) => !e.checking));
    const ratios = estimates.flatMap((es) => es.map((e) => e.ratio));
    const firsts = estimates.map((es) => es[0]?.ratio).filter((r) => r !== undefined);
    const asked = mine.flatMap((x) => x.estimates.filter((e) => e.checking));
    const worst = ratios.length ? ratios.reduce((a, b) => (Math.abs(Math.log(b)) > Math.abs(Math.log(a)) ? b : a)) : undefined;
    const times = mine.map((x) => x.first_complete_s);
    const askedText = asked.length ? `${asked.length}, told ${[...new Set(asked.map((e) => e.told_s))].join('/')} s` : '—';
    process.stdout.write(`| ${checkout} | ${c.who} (${c.files} files) | ${median(times).toFixed(1)} (${times.join(', ')}) | ${ratios.length ? `${firsts.join(', ')}; ${median(ratios).toFixed(2)}; ${worst}` : '—'} | ${askedText} |\n`);
  }
}
