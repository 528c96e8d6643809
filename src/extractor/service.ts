/**
 * A warm symbol extractor for the index builds of one long-lived process (the local supervisor).
 * Each build Zoekt's indexer runs starts a ctags program; started cold, the extractor spends most
 * of a small build starting Node and a worker, loading the grammars and compiling their tag rules
 * (TypeScript's alone is 0.1 s of CPU), every time. zoekt-config/scip-ctags instead passes the
 * build's files on to this service (client.ts), whose parse workers stay loaded between builds.
 *
 * One connection is one build: a first line naming Universal Ctags and its options, then the
 * ctags protocol's requests, each answered with its tag lines and `completed`. A connection gets a
 * worker of its own (builds running at once parse at once) and gives it back when it ends; a worker
 * unused for a while is stopped, with the grammars and rules it loaded.
 *
 * The socket is a file in a folder only this user can open: whoever connects names the program
 * run as Universal Ctags.
 */
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { ParseWorker } from './parse-worker.js';
import { readRequests } from './protocol.js';
import { Tagger, tuneWasm } from './tagger.js';

/** What a connection says first. */
export interface Hello {
  /** Universal Ctags, for the languages without a grammar here. */
  ctags: string;
  /** The options the indexer gave the extractor, passed on to Universal Ctags. */
  args: string[];
}

/** A parse worker unused this long is stopped (its grammars and rules are loaded again on next use). */
const IDLE_MS = 60_000;
/** sun_path holds 108 bytes on Linux, 104 on macOS, the last a NUL. */
const MAX_SOCKET_PATH_BYTES = 103;
/** A first line longer than this is not a hello. */
const MAX_HELLO_BYTES = 64 * 1024;

export interface ServiceCounts {
  /** Connections served (index builds). */
  builds: number;
  /** Files answered. */
  files: number;
  /** Parse workers started: fewer than builds when workers were reused warm. */
  workers: number;
}

export class ExtractorService {
  private server: Server | undefined;
  private readonly idle: { worker: ParseWorker; timer: NodeJS.Timeout }[] = [];
  private readonly busy = new Set<ParseWorker>();
  private readonly open = new Set<Socket>();
  readonly counts: ServiceCounts = { builds: 0, files: 0, workers: 0 };

  constructor(
    readonly path: string,
    private readonly workerScript: URL,
    private readonly say: (msg: string) => void,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** Listens; false (and said why) when the socket cannot be made, and the builds start their own extractor. */
  async listen(): Promise<boolean> {
    try {
      if (Buffer.byteLength(this.path) > MAX_SOCKET_PATH_BYTES) throw new Error(`its path is longer than a socket's may be: ${this.path}`);
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      chmodSync(dirname(this.path), 0o700);
      // A socket left by a process that died: this process owns the data folder now.
      rmSync(this.path, { force: true });
      tuneWasm();
      const server = createServer((socket) => void this.serve(socket));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.path, () => {
          server.off('error', reject);
          resolve();
        });
      });
      server.on('error', (e) => this.say(`extractor service: ${e.message}`));
      this.server = server;
      return true;
    } catch (e) {
      this.say(`extractor service not started (${e instanceof Error ? e.message : String(e)}); each index build starts its own extractor`);
      return false;
    }
  }

  private async serve(socket: Socket): Promise<void> {
    this.open.add(socket);
    socket.on('error', () => socket.destroy());
    let tagger: Tagger | undefined;
    const worker = this.take();
    try {
      const hello = await readHello(socket);
      this.counts.builds++;
      tagger = new Tagger(worker, hello.ctags, hello.args);
      for await (const request of readRequests(socket)) {
        const answer = await tagger.answer(request);
        this.counts.files++;
        if (!socket.writable) break;
        socket.write(answer);
      }
      socket.end();
    } catch (e) {
      // The build's own extractor takes over what is left (client.ts).
      if (!socket.destroyed) this.say(`extractor service: a build's connection failed: ${e instanceof Error ? e.message : String(e)}`);
      socket.destroy();
    } finally {
      tagger?.close();
      this.open.delete(socket);
      this.give(worker);
    }
  }

  private take(): ParseWorker {
    const kept = this.idle.pop();
    if (kept) {
      clearTimeout(kept.timer);
      this.busy.add(kept.worker);
      return kept.worker;
    }
    const worker = new ParseWorker(this.workerScript);
    this.counts.workers++;
    this.busy.add(worker);
    return worker;
  }

  private give(worker: ParseWorker): void {
    this.busy.delete(worker);
    if (!this.server) {
      void worker.close();
      return;
    }
    const timer = setTimeout(() => {
      const at = this.idle.findIndex((k) => k.worker === worker);
      if (at !== -1) this.idle.splice(at, 1);
      void worker.close();
    }, this.idleMs);
    timer.unref();
    this.idle.push({ worker, timer });
  }

  /** Parse workers loaded now (busy or idle). */
  get loaded(): number {
    return this.busy.size + this.idle.length;
  }

  /** Stops listening, ends the connections (their builds go on with an extractor of their own) and stops the workers. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const socket of this.open) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const { worker, timer } of this.idle.splice(0)) {
      clearTimeout(timer);
      await worker.close();
    }
    rmSync(this.path, { force: true });
  }
}

/** The connection's first line, as a Hello; what follows it stays unread on the socket. */
async function readHello(socket: Socket): Promise<Hello> {
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const chunk = (socket.read() as Buffer | null) ?? (await nextChunk(socket));
    const nl = chunk.indexOf(0x0a);
    if (nl === -1) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > MAX_HELLO_BYTES) throw new Error('no hello line');
      continue;
    }
    chunks.push(chunk.subarray(0, nl));
    if (nl + 1 < chunk.length) socket.unshift(chunk.subarray(nl + 1));
    const hello = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Partial<Hello>;
    if (typeof hello.ctags !== 'string' || !Array.isArray(hello.args) || !hello.args.every((a) => typeof a === 'string')) throw new Error('not a hello line');
    return { ctags: hello.ctags, args: hello.args };
  }
}

function nextChunk(socket: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      socket.off('readable', onReadable);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
    };
    const onReadable = () => {
      const chunk = socket.read() as Buffer | null;
      if (chunk === null) return;
      cleanup();
      resolve(chunk);
    };
    const onEnd = () => {
      cleanup();
      reject(new Error('closed before its hello'));
    };
    socket.on('readable', onReadable);
    socket.on('end', onEnd);
    socket.on('close', onEnd);
  });
}
