/**
 * The extractor as zoekt-config/scip-ctags runs it when ZOEKT_MCP_EXTRACTOR_SOCKET names a warm
 * extractor (service.ts, the local supervisor's): it answers Zoekt's indexer by passing each file
 * on to that service, which has its grammars and tag rules loaded already, so a build of a few
 * files costs a Node start instead of a cold extractor. Should the service be gone, or fail or stall
 * on a file, that file and the rest are tagged here, as main.ts does: a build never loses symbols
 * to the service.
 */
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { COMPLETED, readRequests, requestLine, type TagRequest } from './protocol.js';
import { ctagsBinary, log, PROGRAM_LINE } from './program.js';

/** A file the service has not answered in this long is tagged here (Zoekt allows a minute). */
const ANSWER_TIMEOUT_MS = 30_000;

/** The connection to the service; every failure rejects, and the caller stops using it. */
class Remote {
  private buffered = '';
  private lines: string[] = [];
  private wake: (() => void) | undefined;
  private failure: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      this.buffered += text;
      const parts = this.buffered.split('\n');
      this.buffered = parts.pop()!;
      this.lines.push(...parts.map((p) => `${p}\n`));
      this.wake?.();
    });
    const fail = (why: string) => {
      this.failure ??= new Error(why);
      this.wake?.();
    };
    socket.on('error', (e) => fail(e.message));
    socket.on('end', () => fail('the service closed the connection'));
    socket.on('close', () => fail('the service closed the connection'));
  }

  static open(path: string, hello: object): Promise<Remote> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        socket.write(`${JSON.stringify(hello)}\n`);
        resolve(new Remote(socket));
      });
    });
  }

  async answer({ filename, content }: TagRequest): Promise<string> {
    this.socket.write(requestLine(filename, content.length));
    this.socket.write(content);
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    let answer = '';
    for (;;) {
      const line = this.lines.shift();
      if (line !== undefined) {
        answer += line;
        if (line === COMPLETED) return answer;
        continue;
      }
      if (this.failure) throw this.failure;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer for ${filename} in ${ANSWER_TIMEOUT_MS / 1000} s`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

async function startLocal(args: string[]) {
  const { taggerWithWorker } = await import('./tagger.js');
  return taggerWithWorker(new URL('./worker.js', import.meta.url), args);
}

async function run(socketPath: string, args: string[]): Promise<void> {
  process.stdout.write(PROGRAM_LINE);
  let remote = await Remote.open(socketPath, { ctags: ctagsBinary(), args }).catch((e: unknown) => {
    log(`the extractor service at ${socketPath} is not there (${e instanceof Error ? e.message : String(e)}); tagging here`);
    return undefined;
  });
  // The extractor of main.ts, started here when the service cannot answer.
  let local: Awaited<ReturnType<typeof startLocal>> | undefined;
  try {
    for await (const request of readRequests(process.stdin)) {
      let answer: string | undefined;
      if (remote) {
        try {
          answer = await remote.answer(request);
        } catch (e) {
          log(`the extractor service failed on ${request.filename} (${e instanceof Error ? e.message : String(e)}); tagging the rest here`);
          remote.close();
          remote = undefined;
        }
      }
      if (answer === undefined) answer = await (local ??= await startLocal(args)).answer(request);
      process.stdout.write(answer);
    }
  } finally {
    remote?.close();
    await local?.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const socketPath = process.env.ZOEKT_MCP_EXTRACTOR_SOCKET;
  const args = process.argv.slice(2);
  const done = socketPath && args.some((a) => a.startsWith('--_interactive')) ? run(socketPath, args).then(() => 0) : import('./main.js').then((m) => m.main(args));
  done.then(
    (code) => process.exit(code),
    (e: unknown) => {
      log(`stopped: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
}
