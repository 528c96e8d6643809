/**
 * The extractor's tag rules for Ruby, PHP and Kotlin (src/extractor/queries/ruby.scm, php.scm,
 * kotlin.scm), grammars whose npm packages ship WebAssembly: source in, tags out. Each tag reads
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
