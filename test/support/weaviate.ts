/**
 * A real weaviate-server for the tests of the definitions index's distributed engine: the binary
 * scripts/setup.sh weaviate builds (pinned in scripts/install-weaviate.sh), on free loopback
 * ports, its data in a folder of the test's, waited for within a bound, stopped by the test.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, procState, ROOT, TOOLS_DIR } from './zoekt.js';

export const WEAVIATE_VERSION = /^WEAVIATE_VERSION=(\S+)$/m.exec(readFileSync(join(ROOT, 'scripts/install-weaviate.sh'), 'utf8'))![1]!;
export const WEAVIATE_BIN = join(TOOLS_DIR, 'weaviate', WEAVIATE_VERSION, 'weaviate-server');

/** Builds weaviate-server when it is missing (minutes, once per machine); quick when present. */
export function installWeaviate(): void {
  execFileSync('bash', [join(ROOT, 'scripts/setup.sh'), 'weaviate'], { stdio: ['ignore', 'inherit', 'inherit'] });
}

/** The ports a server listens on: given again, a restart keeps its Raft peer address. */
export interface WeaviatePorts {
  http: number;
  grpc: number;
  gossip: number;
  data: number;
  raft: number;
  raftRpc: number;
}

export interface RunningWeaviate {
  url: string;
  ports: WeaviatePorts;
  process: ChildProcess;
  /** Resident memory of the server process, from /proc, in MiB. */
  rssMiB(): number;
  stop(): Promise<void>;
}

/** Starts weaviate-server on 127.0.0.1 with its data in `dataDir`; resolves once it says it is ready. */
export async function startWeaviate(dataDir: string, opts: { readyWithinMs?: number; ports?: WeaviatePorts } = {}): Promise<RunningWeaviate> {
  const [http, grpc, gossip, data, raft, raftRpc] = opts.ports
    ? [opts.ports.http, opts.ports.grpc, opts.ports.gossip, opts.ports.data, opts.ports.raft, opts.ports.raftRpc]
    : await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort()]);
  const ports = { http, grpc, gossip, data, raft, raftRpc };
  const child = spawn(WEAVIATE_BIN, ['--host', '127.0.0.1', '--port', String(http), '--scheme', 'http'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PERSISTENCE_DATA_PATH: dataDir,
      AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED: 'true',
      DEFAULT_VECTORIZER_MODULE: 'none',
      ENABLE_MODULES: '',
      DISABLE_TELEMETRY: 'true',
      GO_PROFILING_DISABLE: 'true',
      CLUSTER_HOSTNAME: 'node1',
      CLUSTER_ADVERTISE_ADDR: '127.0.0.1',
      CLUSTER_BIND_ADDR: '127.0.0.1',
      CLUSTER_GOSSIP_BIND_PORT: String(gossip),
      CLUSTER_DATA_BIND_PORT: String(data),
      RAFT_PORT: String(raft),
      RAFT_INTERNAL_RPC_PORT: String(raftRpc),
      RAFT_BOOTSTRAP_EXPECT: '1',
      GRPC_PORT: String(grpc),
      // Each list a hybrid search fuses holds this many (the in-process engine's LIST_DEPTH).
      QUERY_HYBRID_MAXIMUM_RESULTS: '200',
      LOG_LEVEL: 'warning',
      GOMAXPROCS: '2',
    },
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-6000);
  });
  const url = `http://127.0.0.1:${http}`;
  const stop = () =>
    new Promise<void>((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res();
      child.once('exit', () => res());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
  const rssMiB = () => {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 102.4) / 10 : NaN;
  };
  const within = opts.readyWithinMs ?? 60_000;
  const deadline = Date.now() + within;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`weaviate-server exited with ${child.exitCode}: ${stderr}`);
    try {
      const ready = await fetch(`${url}/v1/.well-known/ready`, { signal: AbortSignal.timeout(2_000) });
      if (ready.ok) return { url, ports, process: child, rssMiB, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const state = procState(child.pid);
  await stop();
  throw new Error(`weaviate-server did not become ready at ${url} within ${within} ms (state ${state}): ${stderr}`);
}
