/**
 * Every definition of a few fixture files, written down from the files: Rust impls, trait items,
 * a nested module and a function in a method; Java nested, inner and local classes, a record, an
 * enum with a constant body, an annotation type; C# namespaces (block and file-scoped), nested types, a record and a
 * delegate; a Python script without an extension (found by its `#!` line); JSX. Asked for through
 * search_symbols (`*` in one file lists its symbols), against the fixture index.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, connectInProcess, ok, type Connected } from '../support/mcp.js';
import { REPO_PREFIX } from '../support/zoekt.js';

/** `line name kind parent` (parent `-` when there is none): what search_symbols reports. */
const EXPECTED: Record<string, string[]> = {
  'rustlib/src/shapes.rs': [
    '4 Shape trait -',
    '6 Unit type Shape',
    '8 CORNERS constant Shape',
    '10 area method Shape',
    '12 describe method Shape',
    '18 Circle struct -',
    '19 radius field Circle',
    '23 Square struct -',
    // impl Shape for Circle: the items belong to the type, not to the trait.
    '26 Unit type Circle',
    '27 CORNERS constant Circle',
    '29 area method Circle',
    '35 Unit type Square',
    '36 CORNERS constant Square',
    '38 area method Square',
    '44 Labeled struct -',
    '45 inner field Labeled',
    '46 label field Labeled',
    // impl<T: Shape> Labeled<T>; the fn clip inside wrap is a function of its own, in wrap.
    '50 MAX_LABEL constant Labeled',
    '52 wrap method Labeled',
    '53 clip function wrap',
    '61 Bits struct -',
    '62 whole field Bits',
    '63 halves field Bits',
    '67 units module -',
    '69 MM_PER_M constant units',
    '72 to_mm function units',
  ],
  'javaapp/src/main/java/com/acme/Shapes.java': [
    '1 com.acme namespace -',
    '6 Shapes class -',
    '7 TAU field Shapes',
    '9 drawn field Shapes',
    '11 Shapes method Shapes',
    '16 Shape interface Shapes',
    '17 area method Shape',
    '19 describe method Shape',
    '25 Circle class Shapes',
    '26 radius field Circle',
    '28 Circle method Circle',
    '33 area method Circle',
    '39 Canvas class Shapes',
    '40 width field Canvas',
    // The local class Sum inside covered(), with its field.
    '42 covered method Canvas',
    '43 Sum class covered',
    '44 total field Sum',
    '53 Point class Shapes',
    '53 x field Point',
    '53 y field Point',
    '54 origin method Point',
    '60 Stroke enum Shapes',
    '61 SOLID constant Stroke',
    '62 DASHED constant Stroke',
    // The method of DASHED's constant-specific body.
    '64 pattern method DASHED',
    '69 pattern method Stroke',
    '75 Sketched interface Shapes',
    '76 by method Sketched',
  ],
  'csharplib/src/Shapes.cs': [
    '4 Acme.Geometry namespace -',
    '7 IShape interface Geometry',
    '9 Area method IShape',
    '10 Name property IShape',
    '14 Circle class Geometry',
    '16 Tau constant Circle',
    '17 radius field Circle',
    '19 Circle method Circle',
    '24 Name property Circle',
    '26 Area method Circle',
    '28 Resized field Circle',
    '31 Box struct Circle',
    '33 Side field Box',
    '38 Stroke enum Geometry',
    '40 Solid constant Stroke',
    '41 Dashed constant Stroke',
    '45 Point class Geometry',
    '45 X property Point',
    '45 Y property Point',
    '48 Painter type Geometry',
  ],
  'csharplib/src/Canvas.cs': ['1 Acme.Drawing namespace -', '7 Canvas class Drawing', '9 shapes field Canvas', '11 Count property Canvas', '13 Add method Canvas'],
  'pytools/bin/acme-report': ['5 REPORT_WIDTH variable -', '8 report_line function -', '12 ReportWriter class -', '13 write method ReportWriter'],
  'webapp/src/components/Badge.jsx': ['2 BADGE_COLORS constant -', '4 Badge function -', '8 BadgeList class -', '9 render method BadgeList'],
};

let mcp: Connected;
beforeAll(async () => {
  mcp = await connectInProcess({ url: inject('zoektUrl') });
});
afterAll(() => mcp.close());

interface Symbol {
  name: string;
  kind: string;
  parent?: string;
  line: number;
  language: string;
  raw_kind: string;
}

describe('every definition of a fixture file', () => {
  it.each(Object.entries(EXPECTED))('%s', async (file, expected) => {
    const [dir, ...rest] = file.split('/');
    const out = ok<{ symbols: Symbol[]; next_cursor?: string }>(
      await call(mcp.client, 'search_symbols', { name: '*', repos: [`${REPO_PREFIX}${dir}`], paths: [`/${rest.join('/')}`], limit: 100 }),
    );
    expect(out.next_cursor).toBeUndefined();
    const got = out.symbols.map((s) => `${s.line} ${s.name} ${s.kind} ${s.parent ?? '-'}`);
    const byLine = (a: string, b: string) => parseInt(a) - parseInt(b) || a.localeCompare(b);
    expect(got.sort(byLine)).toEqual([...expected].sort(byLine));
    // All of them from the tree-sitter extractor (its kind words are SCIP's, in PascalCase).
    for (const s of out.symbols) expect(s.raw_kind, `${s.name}: ${s.raw_kind}`).toMatch(/^[A-Z]/);
  });

  it('knows the script without an extension is Python, by its #! line', async () => {
    const out = ok<{ symbols: Symbol[] }>(await call(mcp.client, 'search_symbols', { name: 'ReportWriter', languages: ['python'], case_sensitive: true }));
    expect(out.symbols.map((s) => `${s.language}:${s.line}`)).toEqual(['Python:12']);
  });
});
