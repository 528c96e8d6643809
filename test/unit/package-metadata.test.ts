/**
 * What the npm package and the MCP registry are told about the server agrees with the code: the
 * Node versions it runs on, the files it ships, its license, and server.json (valid against the
 * registry's schema, and naming this package, its version and real configuration variables).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/config.js';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  name: string;
  version: string;
  mcpName: string;
  license: string;
  bin: Record<string, string>;
  files: string[];
  engines: { node: string };
  scripts: Record<string, string>;
};

interface LockEntry {
  dev?: boolean;
  engines?: { node?: string } | string[];
}

describe('package.json', () => {
  it('engines.node is within what every runtime dependency supports, and this Node satisfies it', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> };
    const runtime = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && !entry.dev);
    expect(runtime.length).toBeGreaterThan(10);
    const checked: string[] = [];
    for (const [path, entry] of runtime) {
      const theirs = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      if (!theirs) continue;
      checked.push(path);
      expect(semver.subset(pkg.engines.node, theirs), `${path} needs node ${theirs}; package.json says ${pkg.engines.node}`).toBe(true);
    }
    expect(checked).toContain('node_modules/undici');
    expect(checked).toContain('node_modules/lru-cache');
    expect(semver.satisfies(process.version, pkg.engines.node)).toBe(true);
  });

  it('builds on prepare (npm pack, npm publish, installs from git) and ships its commands', () => {
    expect(pkg.scripts.prepare).toMatch(/npm run build/);
    // The build strips the types (scripts/compile.mjs); npm test checks them.
    expect(pkg.scripts.build).toBe('node scripts/compile.mjs && node scripts/bundle.mjs');
    expect(pkg.scripts.typecheck).toMatch(/^tsc -p tsconfig\.json --noEmit$/);
    expect(pkg.bin).toEqual({ 'zoekt-mcp': 'dist/cli.js', 'zoekt-mcp-serve': 'scripts/serve.sh' });
    expect(read('src/cli.ts').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(read('scripts/serve.sh').startsWith('#!/usr/bin/env bash\n')).toBe(true);
    for (const file of ['scripts/serve.sh', 'scripts/install-zoekt.sh', 'zoekt-config/universal-ctags']) {
      expect(pkg.files, file).toContain(file);
      expect(statSync(join(ROOT, file)).mode & 0o111, `${file} is executable`).not.toBe(0);
    }
  });

  it('has the Apache License 2.0 that it declares', () => {
    expect(pkg.license).toBe('Apache-2.0');
    const license = read('LICENSE');
    expect(license).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004\s+http:\/\/www\.apache\.org\/licenses\//);
    expect(license).toContain('END OF TERMS AND CONDITIONS');
  });
});

describe('server.json (MCP registry metadata)', () => {
  const server = JSON.parse(read('server.json')) as {
    $schema: string;
    name: string;
    version: string;
    description: string;
    packages: { registryType: string; identifier: string; version: string; transport: { type: string }; environmentVariables: { name: string; default?: string }[] }[];
  };

  it('is valid against the registry schema it names', () => {
    const schema = JSON.parse(read('test/support/schemas/mcp-server.2025-12-11.schema.json')) as { $id: string };
    expect(server.$schema).toBe(schema.$id);
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    expect(validate(server), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('names this package: mcpName, name, version, stdio', () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(pkg.mcpName).toMatch(/^io\.github\.[a-zA-Z0-9-]+\/[a-zA-Z0-9._-]+$/);
    expect(server.version).toBe(pkg.version);
    expect(server.packages).toHaveLength(1);
    expect(server.packages[0]).toMatchObject({ registryType: 'npm', identifier: pkg.name, version: pkg.version, transport: { type: 'stdio' } });
    // The container image carries the same name, which the registry checks for OCI packages.
    expect(read('docker/Dockerfile')).toContain(`LABEL io.modelcontextprotocol.server.name="${pkg.mcpName}"`);
  });

  it('offers only variables the server reads, with the defaults it applies', () => {
    for (const v of server.packages[0]!.environmentVariables) {
      const option = OPTIONS.find((o) => o.env === v.name);
      expect(option, `${v.name} is not a configuration variable`).toBeDefined();
      if (v.default !== undefined) expect(v.default).toBe(String(option!.default));
    }
  });
});
