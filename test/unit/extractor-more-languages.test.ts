/**
 * The extractor's tag rules for Ruby, PHP, Kotlin and Swift (src/extractor/queries/ruby.scm,
 * php.scm, kotlin.scm, swift.scm): source in, tags out. The first three grammars' npm packages ship
 * WebAssembly; Swift's is built from its package's sources (scripts/build-grammar.sh). Each tag reads
 * `line name Kind parent`, the parent being the enclosing path (`-` for none).
 */
import { describe, expect, it } from 'vitest';
import { extract } from '../../src/extractor/extract.js';
import { grammar, grammarFor, type GrammarId } from '../../src/extractor/languages.js';

async function tags(id: GrammarId, source: string): Promise<string[]> {
  const { tags } = await extract(grammar(id), source, 10_000);
  return tags.map((t) => `${t.line} ${t.name} ${t.kind} ${t.scope ?? '-'}`);
}

it('knows the files by extension and by #! line', () => {
  expect(grammarFor('lib/acme.rb', '')?.id).toBe('ruby');
  expect(grammarFor('bin/tool', '#!/usr/bin/env ruby\n')?.id).toBe('ruby');
  expect(grammarFor('src/Server.php', '')?.id).toBe('php');
  expect(grammarFor('src/Main.kt', '')?.id).toBe('kotlin');
  expect(grammarFor('build.gradle.kts', '')?.id).toBe('kotlin');
  expect(grammarFor('Sources/App/main.swift', '')?.id).toBe('swift');
});

describe('Ruby', () => {
  it('modules, classes, methods at every depth, constants; not locals, blocks or attr calls', async () => {
    const src = [
      'module Acme', // 1
      '  VERSION = "1"', // 2
      '  class Server < Base', // 3
      '    attr_reader :port', // 4
      '    def initialize(port)', // 5
      '      @port = port', // 6
      '      local = 1', // 7
      '    end', // 8
      '    def self.create; new(80); end', // 9
      '    class << self', // 10
      '      def build; end', // 11
      '    end', // 12
      '  end', // 13
      'end', // 14
      'def helper; end', // 15
      'RSpec.describe Acme do', // 16
      '  def setup_thing; end', // 17
      '  let(:x) { 1 }', // 18
      'end', // 19
      'class Acme::Inner; end', // 20
    ].join('\n');
    expect(await tags('ruby', src)).toEqual([
      '1 Acme Module -',
      '2 VERSION Constant Acme',
      '3 Server Class Acme',
      '5 initialize Method Acme.Server',
      '9 create Method Acme.Server',
      '11 build Method Acme.Server',
      '15 helper Function -',
      '17 setup_thing Function -',
      '20 Acme::Inner Class -',
    ]);
  });
});

describe('PHP', () => {
  it('namespaces, types with their members, functions in functions; not variables or closures', async () => {
    const src = [
      '<?php', // 1
      'namespace App;', // 2
      'const LIMIT = 10;', // 3
      'function helper(int $a): int { $local = 1; function inner() {} return $a; }', // 4
      'class Server extends Base {', // 5
      '  const PORT = 80;', // 6
      '  public int $port = 80, $host;', // 7
      '  public function __construct(private string $name) {}', // 8
      '  public static function create(): static { $f = fn($x) => $x; return new static("a"); }', // 9
      '}', // 10
      'interface Runner { public function run(): void; }', // 11
      'trait Named { public function label() {} }', // 12
      'enum Suit: string { case Hearts = "H"; }', // 13
      '$anon = new class { public function m() {} };', // 14
    ].join('\n');
    expect(await tags('php', src)).toEqual([
      '2 App Namespace -',
      '3 LIMIT Constant App',
      '4 helper Function App',
      '4 inner Function App::helper',
      '5 Server Class App',
      '6 PORT Constant App::Server',
      '7 port Property App::Server',
      '7 host Property App::Server',
      '8 __construct Constructor App::Server',
      '8 name Property App::Server',
      '9 create Method App::Server',
      '11 Runner Interface App',
      '11 run Method App::Runner',
      '12 Named Trait App',
      '12 label Method App::Named',
      '13 Suit Enum App',
      '13 Hearts EnumMember App::Suit',
      '14 m Method App',
    ]);
  });
});

describe('Kotlin', () => {
  it('types, their members and constructor properties, functions in functions; not locals', async () => {
    const src = [
      'package com.acme', // 1
      'import x.y', // 2
      'val top = 1', // 3
      'fun helper(a: Int): Int {', // 4
      '    val local = 1', // 5
      '    fun inner() {}', // 6
      '    return a', // 7
      '}', // 8
      'class Server(val port: Int, name: String) {', // 9
      '    val host = "h"', // 10
      '    fun start() {', // 11
      '        val task = object : Runnable {', // 12
      '            override fun run() {}', // 13
      '        }', // 14
      '    }', // 15
      '    companion object {', // 16
      '        fun create() = Server(1, "")', // 17
      '    }', // 18
      '}', // 19
      'interface Runner {', // 20
      '    fun run()', // 21
      '}', // 22
      'object Single {', // 23
      '    val x = 1', // 24
      '}', // 25
      'enum class Color { RED, GREEN }', // 26
      'typealias Id = String', // 27
      'fun String.ext() = 1', // 28
    ].join('\n');
    expect(await tags('kotlin', src)).toEqual([
      '1 com.acme Package -',
      '3 top Variable -',
      '4 helper Function -',
      '6 inner Function helper',
      '9 Server Class -',
      '9 port Property Server',
      '10 host Property Server',
      '11 start Method Server',
      '13 run Method Server.start.task',
      '17 create Method Server',
      '20 Runner Interface -',
      '21 run Method Runner',
      '23 Single Class -',
      '24 x Property Single',
      '26 Color Enum -',
      '26 RED EnumMember Color',
      '26 GREEN EnumMember Color',
      '27 Id TypeAlias -',
      '28 ext Function -',
    ]);
  });
});

describe('Swift', () => {
  const src = [
    'import Foundation', // 1
    'protocol Shape {', // 2
    '  associatedtype Unit', // 3
    '  var name: String { get }', // 4
    '  func area() -> Double', // 5
    '}', // 6
    'public struct Circle: Shape {', // 7
    '  static let unit = Circle(r: 1)', // 8
    '  let r: Double', // 9
    '  var name: String { let n = "circle"; return n }', // 10
    '  init(r: Double) { let checked = max(0, r); self.r = checked }', // 11
    '  func area() -> Double {', // 12
    '    let k = 3.14', // 13
    '    func squared(_ x: Double) -> Double { x * x }', // 14
    '    struct Memo { var last: Double }', // 15
    '    return k * squared(r)', // 16
    '  }', // 17
    '  enum Style { case solid, dashed', // 18
    '    case pattern(String) }', // 19
    '}', // 20
    'extension Circle {', // 21
    '  func scaled(by f: Double) -> Circle { Circle(r: r * f) }', // 22
    '}', // 23
    'extension Circle.Style { var isPlain: Bool { self == .solid } }', // 24
    'final class Box<T> { private var items: [T] = []; deinit {} }', // 25
    'actor Counter { var n = 0 }', // 26
    'typealias Pair = (Int, Int)', // 27
    'let registry = [String: Int]()', // 28
    'func main() { let handler = { (x: Int) in x }; _ = handler }', // 29
    'enum Keyword { case `protocol`, `default` }', // 30
  ].join('\n');

  it('types at every depth with their members, enum cases, extensions under the type they extend, names in backticks as code calls them; not locals or closures', async () => {
    expect(await tags('swift', src)).toEqual([
      '2 Shape Interface -',
      '3 Unit TypeAlias Shape',
      '4 name Property Shape',
      '5 area Method Shape',
      '7 Circle Struct -',
      '8 unit Property Circle',
      '9 r Property Circle',
      '10 name Property Circle',
      '11 init Constructor Circle',
      '12 area Method Circle',
      '14 squared Function Circle.area',
      '15 Memo Struct Circle.area',
      '15 last Property Circle.area.Memo',
      '18 Style Enum Circle',
      '18 solid EnumMember Circle.Style',
      '18 dashed EnumMember Circle.Style',
      '19 pattern EnumMember Circle.Style',
      '22 scaled Method Circle',
      '24 isPlain Property Style',
      '25 Box Class -',
      '25 items Property Box',
      '26 Counter Class -',
      '26 n Property Counter',
      '27 Pair TypeAlias -',
      '28 registry Variable -',
      '29 main Function -',
      '30 Keyword Enum -',
      '30 protocol EnumMember Keyword',
      '30 default EnumMember Keyword',
    ]);
  });

  it('gives every parse of a file the same, right tags (the scanner of the grammar as published wrote past its state, and later parses lost methods)', async () => {
    const journal = [
      'final class Journal {', // 1
      '  struct Entry { var text: String }', // 2
      '  var texts: [String] { entries.map(\\.text) }', // 3
      '  private var entries: [Entry] = []', // 4
      '  func opened(_ name: String) {', // 5
      '    note("\\(#function)")',
      '  }',
      '  func closed(_ name: String, at time: Int) {', // 8
      '    note("\\(#function)")',
      '  }',
      '  func moved(_ name: String,', // 11
      '             to place: String) {',
      '    note("\\(#function)")',
      '  }',
      '  func renamed(_ name: String) {', // 15
      '    note("\\(#function)")',
      '  }',
      '  private func note(_ s: String) { entries.append(Entry(text: s)) }', // 18
      '}',
    ].join('\n');
    const want = ['1 Journal Class -', '2 Entry Struct Journal', '2 text Property Journal.Entry', '3 texts Property Journal', '4 entries Property Journal'];
    want.push('5 opened Method Journal', '8 closed Method Journal', '11 moved Method Journal', '15 renamed Method Journal', '18 note Method Journal');
    // Built without the fix, the third parse here lost `closed` and `renamed`, with no error.
    for (let i = 0; i < 4; i++) expect(await tags('swift', journal)).toEqual(want);
  });

  it('keeps what the grammar cannot read to its top-level statement: a macro as a default value does not take what follows with it', async () => {
    const withMacro = [
      'import Testing', // 1
      'func expectPositive(', // 2
      '  _ x: Int,',
      '  sourceLocation: SourceLocation = #_sourceLocation',
      ') throws {',
      '  try #require(',
      '    x > 0,',
      '    "positive \\(x)",',
      '    sourceLocation: sourceLocation',
      '  )',
      '}',
      'struct After { func later() {} }', // 12
      'func last() {}', // 13
    ].join('\n');
    expect(await tags('swift', withMacro)).toEqual(['2 expectPositive Function -', '12 After Struct -', '12 later Method After', '13 last Function -']);
  });
});
