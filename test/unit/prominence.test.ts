import { describe, expect, it } from 'vitest';
import { isPublic, isTest, prominence, type Definition } from '../../src/search/definitions/prominence.js';

const def = (language: string, name: string, signature: string, extra: Partial<Definition> = {}): Definition => ({ name, language, signature, path: 'src/a', ...extra });

describe('isPublic', () => {
  it.each([
    [def('Go', 'Server', 'type Server struct {'), true],
    [def('Go', 'handle', 'func (s *Server) handle() {', { parent: 'Server' }), false],
    [def('Go', 'Ärger', 'func Ärger() {'), true],
    [def('TypeScript', 'createServer', 'export async function createServer(config) {'), true],
    [def('TypeScript', 'createServer', 'const { createServer } = foo'), false],
    [def('TypeScript', 'internal', 'function internal() {'), false],
    [def('TypeScript', 'Partial', 'type Partial<T> = {', { path: 'lib.es5.d.ts' }), true],
    [def('TypeScript', 'setTimeout', 'declare function setTimeout(handler: TimerHandler): number;', { path: 'lib.dom.d.ts' }), true],
    [def('TypeScript', 'helper', 'declare function helper(): void;', { path: 'src/a.ts' }), false],
    [def('TypeScript', 'find', 'find(id: string) {', { parent: 'UserService' }), true],
    [def('TypeScript', 'repo', 'private readonly repo: Repo;', { parent: 'UserService' }), false],
    [def('JavaScript', '#secret', '#secret = 1;', { parent: 'A' }), false],
    [def('JavaScript', 'handler', 'exports.handler = function () {};'), true],
    [def('Python', '_private', 'def _private():'), false],
    [def('Python', '__init__', 'def __init__(self):', { parent: 'A' }), true],
    [def('Python', 'run', 'def run():'), true],
    [def('Rust', 'new', 'pub fn new() -> Self {', { parent: 'Server' }), true],
    [def('Rust', 'helper', 'fn helper() {'), false],
    [def('Rust', 'handle', 'fn handle(&self, request: &str) -> String;', { parent: 'Handler', parent_kind: 'Trait' }), true],
    [def('Java', 'find', 'public String find(String id) {', { parent: 'UserService' }), true],
    [def('Java', 'load', 'String load(String id);', { parent: 'Repository', parent_kind: 'Interface' }), true],
    [def('Java', 'helper', 'private void helper() {', { parent: 'A' }), false],
    [def('C#', 'Area', 'double Area();', { parent: 'IShape', parent_kind: 'Interface' }), true],
    [def('C', 'buffer_is_empty', 'static int buffer_is_empty(const struct buffer *b) {'), false],
    [def('C', 'buffer_init', 'void buffer_init(struct buffer *b) {'), true],
    [def('Markdown', 'Guide', '# Guide'), true],
  ])('%o', (d, expected) => {
    expect(isPublic(d)).toBe(expected);
  });
});

describe('isTest', () => {
  it.each([
    ['internal/server/server_test.go', true],
    ['src/services/UserService.test.ts', true],
    ['src/pages/page01.spec.ts', true],
    ['tests/test_server.py', true],
    ['pkg/util_test.py', true],
    ['src/test/java/com/acme/UserServiceTest.java', true],
    ['packages/vite/src/node/__tests__/build.spec.ts', true],
    ['go/doc/testdata/a.go', true],
    ['playground/ssr/server.js', true],
    ['examples/basic/main.go', true],
    ['test/fixtures/webapp/src/a.ts', true],
    ['src/services/UserService.ts', false],
    ['src/testing.ts', false],
    ['contest/a.go', false],
    ['src/latest.py', false],
  ])('%s', (path, expected) => {
    expect(isTest(path)).toBe(expected);
  });
});

it('orders public before not, then outside tests, then shallower', () => {
  const api = def('TypeScript', 'createServer', 'export function createServer() {', { path: 'packages/vite/src/node/server/index.ts' });
  const binding = def('TypeScript', 'createServer', 'const createServer = () => {}', { path: 'packages/vite/src/a.ts' });
  const inTest = def('TypeScript', 'createServer', 'export function createServer() {', { path: 'src/a.test.ts' });
  const shallow = def('TypeScript', 'createServer', 'export function createServer() {', { path: 'server.ts' });
  const sorted = [binding, inTest, api, shallow].sort((a, b) => prominence(a) - prominence(b));
  expect(sorted).toEqual([shallow, api, inTest, binding]);
});
