/**
 * Swift through the whole path: a small Swift repository indexed with zoekt-config/index as a git
 * repository (zoekt-git-index routes `.swift` files to the extractor by its language map) and as
 * a folder, served by a real zoekt-webserver, asked through an MCP client. What each answer must
 * hold is read from the source below, line by line.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LanguageCoverage } from '../../src/search/definitions/coverage.js';
import { call, connectStdio, ok, type Connected } from '../support/mcp.js';
import { git, runIndexer, startWebserver, type RunningZoekt } from '../support/zoekt.js';

const SHAPES = [
  'import Foundation',
  '',
  'public protocol Shape {',
  '  func area() -> Double',
  '}',
  '',
  'public struct Circle: Shape {',
  '  public let radius: Double',
  '  public init(radius: Double) { self.radius = radius }',
  '  public func area() -> Double {',
  '    func squared(_ x: Double) -> Double { x * x }',
  '    return Double.pi * squared(radius)',
  '  }',
  '}',
  '',
  'extension Circle {',
  '  public static func unit() -> Circle { Circle(radius: 1) }',
  '}',
].join('\n');

const PLUGINS = [
  'final class PluginHost {',
  '  enum Stage { case load, transform }',
  '  private var hooks: [Stage: () -> Void] = [:]',
  '  func register(_ stage: Stage, _ hook: @escaping () -> Void) { hooks[stage] = hook }',
  '}',
].join('\n');

/** The line of `text` in `source`, 1-based. */
const lineOf = (source: string, text: string) => source.split('\n').findIndex((l) => l.includes(text)) + 1;

interface Sym {
  name: string;
  kind: string;
  /** The bare enclosing name, as the contract has it. */
  parent?: string;
  qualified_name: string;
  raw_kind: string;
  path: string;
  line: number;
  repo: string;
}

describe('Swift definitions through Zoekt', { timeout: 120_000 }, () => {
  let work: string;
  let zoekt: RunningZoekt;
  let mcp: Connected;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'swift-symbols-'));
    for (const repo of ['geometry', 'plugins']) {
      const dir = join(work, 'repos', repo);
      mkdirSync(join(dir, 'Sources'), { recursive: true });
      if (repo === 'geometry') writeFileSync(join(dir, 'Sources/Shapes.swift'), SHAPES);
      else writeFileSync(join(dir, 'Sources/PluginHost.swift'), PLUGINS);
    }
    const index = join(work, 'index');
    mkdirSync(index);
    const geometry = join(work, 'repos', 'geometry');
    git(geometry, 'init', '-q', '-b', 'main');
    git(geometry, 'add', '.');
    git(geometry, 'commit', '-q', '-m', 'shapes');
    runIndexer('git', ['-index', index, geometry]);
    runIndexer('dir', ['-index', index, join(work, 'repos', 'plugins')]);
    zoekt = await startWebserver({ indexDir: index, expectRepos: 2 });
    mcp = await connectStdio({ ZOEKT_URL: zoekt.url });
  });
  afterAll(async () => {
    await mcp?.close();
    await zoekt?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('finds types, methods, initializers and nested functions of a git repository, each with its parent and line', async () => {
    const find = async (args: Record<string, unknown>) => ok<{ symbols: Sym[] }>(await call(mcp.client, 'search_symbols', args)).symbols;
    const circle = await find({ name: 'Circle', kinds: ['struct'] });
    expect(circle.map((s) => [s.repo, s.path, s.line])).toEqual([['geometry', 'Sources/Shapes.swift', lineOf(SHAPES, 'public struct Circle')]]);
    const area = await find({ name: 'Circle.area' });
    expect(area.map((s) => [s.kind, s.parent, s.line])).toEqual([['method', 'Circle', lineOf(SHAPES, 'public func area()')]]);
    const unit = await find({ name: 'unit' });
    expect(unit.map((s) => [s.kind, s.parent, s.line])).toEqual([['method', 'Circle', lineOf(SHAPES, 'static func unit')]]);
    const squared = await find({ name: 'squared' });
    expect(squared.map((s) => [s.kind, s.parent, s.qualified_name, s.line])).toEqual([['function', 'area', 'area.squared', lineOf(SHAPES, 'func squared')]]);
    const init = await find({ name: 'init', repos: ['geometry'] });
    expect(init.map((s) => [s.kind, s.raw_kind, s.parent, s.line])).toEqual([['method', 'Constructor', 'Circle', lineOf(SHAPES, 'public init(')]]);
  });

  it('finds the definitions of a folder indexed with zoekt-index, enum cases among them', async () => {
    const out = ok<{ symbols: Sym[] }>(await call(mcp.client, 'search_symbols', { name: 'transform' }));
    expect(out.symbols.map((s) => [s.repo, s.kind, s.raw_kind, s.parent, s.line])).toEqual([['plugins', 'constant', 'EnumMember', 'Stage', lineOf(PLUGINS, 'case load, transform')]]);
  });

  it('get_health counts every Swift file as one with symbols', async () => {
    for (let attempt = 0; ; attempt++) {
      const health = ok<{ index: { symbols?: { languages: LanguageCoverage[] } } }>(await call(mcp.client, 'get_health', {}));
      const swift = health.index.symbols?.languages.find((l) => l.language === 'Swift');
      if (swift) {
        expect(swift).toMatchObject({ files: 2, files_with_symbols: 2, parser: 'tree-sitter' });
        return;
      }
      // The first answers may come before the coverage is read; they say so.
      expect(attempt).toBeLessThan(20);
      await new Promise((r) => setTimeout(r, 250));
    }
  });
});
