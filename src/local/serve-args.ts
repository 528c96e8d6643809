/** The serve command's own arguments; every other one is the server's (zoekt-mcp --help). */
import { existsSync, statSync } from 'node:fs';

export interface Parsed {
  repos: string[];
  setup: boolean;
  rest: string[];
}

export function parseServeArgs(argv: string[]): Parsed {
  const repos: string[] = [];
  const rest: string[] = [];
  let setup = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--repo') {
      const v = argv[++i];
      if (!v) throw new Error('--repo needs a folder');
      repos.push(v);
    } else if (a.startsWith('--repo=')) repos.push(a.slice('--repo='.length));
    else if (a === '--setup') setup = true;
    else if (i === 0 && !a.startsWith('-') && existsSync(a) && statSync(a).isDirectory()) repos.push(a);
    else rest.push(a);
  }
  return { repos, setup, rest };
}
