import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          sequence: { groupOrder: 0 },
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
          // Tests spawn servers; two cores are shared between them and Zoekt.
          maxWorkers: 2,
        },
      },
    ],
  },
});
