/**
 * ripgrep as the truth for regex searches: what `rg` finds in a tree on disk, match by match,
 * with the line each starts and ends on. scripts/setup.sh's `ripgrep` step installs it (the test
 * set-up runs it); a machine without it fails the tests that use it, naming the step.
 */
import { execFileSync } from 'node:child_process';

export interface RgMatch {
  /** Path relative to the searched root, with `/`. */
  path: string;
  /** 1-based line of the match's first character. */
  line: number;
  /** 1-based line of its last character. */
  endLine: number;
  /** The whole first line, without its line break. */
  text: string;
}

interface RgEvent {
  type: string;
  data: {
    path: { text?: string; bytes?: string };
    line_number: number;
    lines: { text?: string; bytes?: string };
    submatches: { start: number; end: number }[];
  };
}

const bytesOf = (v: { text?: string; bytes?: string }): Buffer => (v.text !== undefined ? Buffer.from(v.text, 'utf8') : Buffer.from(v.bytes ?? '', 'base64'));

/**
 * Every match of `pattern` (Rust regex syntax, which agrees with RE2 on the patterns the tests use)
 * under `root`: every file, ignore files and hidden files included, case-sensitive, ASCII classes
 * (`\w`, `\s` as RE2 has them). `multiline` lets a match cross line breaks (rg -U), as Zoekt's do.
 */
export function rgMatches(root: string, pattern: string, options: { multiline?: boolean; paths?: string[] } = {}): RgMatch[] {
  let out: string;
  try {
    out = execFileSync(
      'rg',
      ['--json', '--no-config', '--no-ignore', '--hidden', '--text', '--case-sensitive', ...(options.multiline ? ['--multiline'] : []), '--regexp', `(?-u)${pattern}`, '--', ...(options.paths ?? ['.'])],
      { cwd: root, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 },
    );
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { status?: number; stdout?: string };
    if (err.code === 'ENOENT') throw new Error('ripgrep (rg) is not installed: `bash scripts/setup.sh ripgrep` installs it');
    // Exit status 1: no match at all.
    if (err.status === 1) return [];
    throw e;
  }
  const matches: RgMatch[] = [];
  for (const json of out.split('\n')) {
    if (!json.startsWith('{"type":"match"')) continue;
    const { data } = JSON.parse(json) as RgEvent;
    const path = bytesOf(data.path).toString('utf8').replace(/^\.\//, '');
    const lines = bytesOf(data.lines);
    const breaksBefore = (end: number) => {
      let n = 0;
      for (let i = 0; i < end; i++) if (lines[i] === 0x0a) n++;
      return n;
    };
    const lineText = (n: number) => lines.toString('utf8').split('\n')[n]!.replace(/\r$/, '');
    for (const s of data.submatches) {
      const first = breaksBefore(s.start);
      matches.push({ path, line: data.line_number + first, endLine: data.line_number + breaksBefore(Math.max(s.start, s.end - 1)), text: lineText(first) });
    }
  }
  return matches;
}
