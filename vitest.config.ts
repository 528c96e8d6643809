import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/sequencer.js';

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          sequence: { groupOrder: 0 },
          isolate: false,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // After the unit tests: a broken pure function fails fast, before any server starts.
          sequence: { groupOrder: 1 },
          // Installs Zoekt if missing, indexes test/fixtures/ and runs a real zoekt-webserver -rpc.
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // Three files at a time on two cores: much of a file's time is spent waiting (on a spawned
          // server, an index build, a paced client), and a third file fills it (286 s → 237 s).
          // No test asserts a latency but the server's own deadlines, which hold on a busy machine.
          maxWorkers: 3,
          // One module graph per worker, not per file: each file would otherwise load vitest, the SDK
          // and src/ again (about a second of CPU, 65 times). The files share no mutable module
          // state: each builds its own runtimes, servers and clients, and none mocks a module, a
          // timer or the environment (the unit tests neither).
          isolate: false,
        },
      },
    ],
  },
});
