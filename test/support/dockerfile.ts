/** docker/'s files as the tests read them: the Dockerfile's instructions, the indexer's split. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './zoekt.js';

export const DOCKERFILE = join(ROOT, 'docker/Dockerfile');

export interface Instruction {
  cmd: string;
  args: string;
}

/** The instructions of a Dockerfile by stage: continuation lines joined, comments dropped. */
export function stages(text: string): Instruction[][] {
  const logical = text.replace(/\\\n/g, ' ').split('\n');
  const out: Instruction[][] = [];
  for (const line of logical) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) continue;
    const [, cmd, args] = /^(\S+)\s*(.*)$/.exec(trimmed)!;
    if (cmd!.toUpperCase() === 'FROM') out.push([]);
    if (cmd!.toUpperCase() === 'ARG' && out.length === 0) continue;
    out[out.length - 1]!.push({ cmd: cmd!.toUpperCase(), args: args!.replace(/\s+/g, ' ').trim() });
  }
  return out;
}

/** docker/Dockerfile's stages. */
export const dockerfileStages = (): Instruction[][] => stages(readFileSync(DOCKERFILE, 'utf8'));

/** The stage named `AS name`. */
export function namedStage(all: Instruction[][], name: string): Instruction[] | undefined {
  return all.find((stage) => stage[0]!.args.endsWith(` AS ${name}`));
}

/**
 * The shard (0-based, of `n`) docker/indexer.sh gives a repository: its name's POSIX cksum CRC
 * modulo n, worked out here with the system's own cksum.
 */
export const indexerShard = (name: string, n: number): number => Number(spawnSync('cksum', { input: name, encoding: 'utf8' }).stdout.split(' ')[0]) % n;
