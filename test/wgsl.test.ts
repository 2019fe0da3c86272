/**
 * The WGSL frontend: every fixture under test/fixtures/wgsl/ (WGSL files and
 * JS/TS hosts with embedded shaders) is checked against the counts derived by
 * hand in its header; broken inputs yield diagnostics and never throw; a
 * function that stops parsing keeps its last good analysis, marked stale.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeSource } from '../src/core/analyze';
import { findGpu } from '../src/core/gpus/catalog';
import { ANALYSIS_OPTIONS, readAnalysisSettings } from '../src/cli/analyze';
import { parseOptions, readDtypes } from '../src/cli/args';
import { foldBuiltin } from '../src/core/frontends/wgsl/arith';
import { texelBytes } from '../src/core/frontends/wgsl/texels';
import { readSettings, type RawSettings } from '../src/extension/settings';
import { lexJs } from '../src/core/frontends/wgsl/jsLexer';
import { assertSane, analyzeFile, check, fixtures, loadParsers } from './check';

const FIXTURES = path.join(__dirname, 'fixtures', 'wgsl');
const BROKEN = path.join(FIXTURES, 'broken');

describe('WGSL frontend', () => {
  describe('fixtures', () => {
    for (const f of fixtures('wgsl', ['.wgsl', '.ts', '.js']))
      it(path.basename(f), async () => {
        assertSane(await check(f));
      });
  });

  describe('the cache: an entry point is analysed again when what it reads changes, and only then', () => {
    const mk = (helper: string, c: string) =>
      `const C = ${c};\nfn helper(v: f32) -> f32 { return ${helper}; }\n@group(0) @binding(0) var<storage, read_write> x: array<f32>;\n` +
      `@compute @workgroup_size(64)\nfn uses(@builtin(global_invocation_id) g: vec3u) {\n  x[g.x] = helper(x[g.x]);\n}\n` +
      `@compute @workgroup_size(64)\nfn alone(@builtin(global_invocation_id) g: vec3u) {\n  x[g.x] = x[g.x] * C;\n}\n`;
    it('a helper or a constant edited in place: the entry points that name them follow', async () => {
      const p = await loadParsers();
      const gpu = findGpu('h100-sxm')!;
      const run = (src: string) => Object.fromEntries(analyzeSource(src, p, { gpu, path: 'cache-deps.wgsl' }).kernels.map((k) => [k.name, k.perUnit.flops]));
      assert.deepEqual(run(mk('v * 2.0', '2.0')), { uses: 64, alone: 64 });
      assert.deepEqual(run(mk('v * 2.0 + 1.0', '2.0')), { uses: 128, alone: 64 });
      assert.deepEqual(run(mk('v * 2.0 + 1.0', '2.0 * 1.5')), { uses: 128, alone: 64 });
      assert.deepEqual(run(mk('v', '2.0')), { uses: 0, alone: 64 });
    });
  });

  describe('#import of project files', () => {
    const file = path.join(FIXTURES, 'import_shared.wgsl');
    const source = fs.readFileSync(file, 'utf8');
    const run = async (related?: Record<string, { path: string; text: string }>) =>
      analyzeSource(source, await loadParsers(), { gpu: findGpu('h100-sxm')!, path: 'import_shared.wgsl', ...(related ? { related } : {}) });

    it('without the imported text: no syntax error, an info naming the import, and the kernel is incomplete', async () => {
      for (const r of [await run(), await run({})]) {
        assert.ok(!r.diagnostics.some((d) => d.code === 'parseError'), JSON.stringify(r.diagnostics));
        const note = r.diagnostics.find((d) => d.code === 'importNotRead')!;
        assert.equal(note.severity, 'info');
        assert.equal(note.line, 15);
        assert.equal(r.kernels[0].complete, false);
      }
      // A host that looked says where.
      assert.match((await run({})).diagnostics.find((d) => d.code === 'importNotRead')!.message, /not found at pair_monoid\.wgsl, shared\/pair_monoid\.wgsl/);
    });

    it("an imported file's entry points are not kernels of this file; its lines map to the #import", async () => {
      const text = fs.readFileSync(path.join(FIXTURES, 'shared', 'pair_monoid.wgsl'), 'utf8') + '\n@compute @workgroup_size(1) fn other() { }\n';
      const r = await run({ pair_monoid: { path: 'shared/pair_monoid.wgsl', text } });
      assert.deepEqual(r.kernels.map((k) => k.name), ['combine_pairs']);
      assert.equal(r.kernels[0].perUnit.flops, 128);
      const broken = await run({ pair_monoid: { path: 'shared/pair_monoid.wgsl', text: 'fn combine(a: Pair, b: Pair) -> Pair { return a +; }' } });
      assert.ok(broken.diagnostics.filter((d) => d.code === 'parseError').every((d) => d.line === 15), JSON.stringify(broken.diagnostics));
    });
  });

  describe('broken input', () => {
    for (const f of fs.readdirSync(BROKEN).sort())
      it(`${f}: diagnostics, no exception`, async () => {
        const r = await check(path.join(BROKEN, f));
        assertSane(r);
        assert.ok(r.diagnostics.length > 0, `${f}: expected diagnostics`);
      });

    it('half-typed and garbage text never throws', async () => {
      const parsers = await loadParsers();
      const gpu = findGpu('h100-sxm')!;
      const inputs = [
        '',
        '}}}{{{ fn fn @@ <<< >>>',
        '@compute @workgroup_size(',
        '@compute @workgroup_size(64) fn f() { for (;;) { } loop { } while (true) { } }',
        '@compute @workgroup_size(8) fn f(@builtin(local_invocation_id) l: vec3u) { if (l.x & 1u) == 0u { } }',
        'const A = B; const B = A; @compute @workgroup_size(A) fn f() { }',
        'fn g() { g(); } @compute @workgroup_size(1) fn f() { g(); }',
        'const s = `@compute @workgroup_size(${',
        'const s = /* wgsl */ `fn x(`; const r = /`[/; a / b / c; `${`${`',
      ];
      for (const [i, src] of inputs.entries()) {
        for (const ext of ['wgsl', 'ts']) {
          const r = analyzeSource(src, parsers, { gpu, path: `garbage-${i}.${ext}` });
          assertSane(r);
          assert.ok(!r.diagnostics.some((d) => d.code === 'internal'), `${JSON.stringify(src)} (${ext}): ${JSON.stringify(r.diagnostics)}`);
        }
      }
    });
  });

  describe('stale results', () => {
    const good = [
      '@group(0) @binding(0) var<storage, read_write> data: array<f32>;',
      '@compute @workgroup_size(64)',
      'fn scale_in_place(@builtin(global_invocation_id) gid: vec3<u32>) {',
      '  data[gid.x] = data[gid.x] * 3.0;',
      '}',
      '',
    ].join('\n');

    it('keeps the last good analysis of a function that stops parsing', async () => {
      const parsers = await loadParsers();
      const gpu = findGpu('h100-sxm')!;
      const p = 'stale-check/scale.wgsl';
      const first = analyzeSource(good, parsers, { gpu, path: p });
      assert.equal(first.kernels[0]?.perUnit.flops, 64);
      const broken = good.replace(/\}\n$/, '\n');
      const second = analyzeSource(broken, parsers, { gpu, path: p });
      assertSane(second);
      const k = second.kernels.find((x) => x.name === 'scale_in_place');
      assert.ok(k, `stale kernel missing; diagnostics: ${JSON.stringify(second.diagnostics)}`);
      assert.equal(k.perUnit.flops, 64);
      assert.ok(k.assumptions.some((a) => a.startsWith('stale:')), JSON.stringify(k.assumptions));
      assert.ok(second.diagnostics.some((d) => d.code === 'stale'));
      assert.ok(second.diagnostics.some((d) => d.code === 'parseError'));
    });

    it('does not show stale results for a file that parses', async () => {
      const parsers = await loadParsers();
      const gpu = findGpu('h100-sxm')!;
      const p = 'stale-check/renamed.wgsl';
      analyzeSource(good, parsers, { gpu, path: p });
      const renamed = analyzeSource(good.replace('scale_in_place', 'scale_twice'), parsers, { gpu, path: p });
      assert.deepEqual(renamed.kernels.map((k) => k.name), ['scale_twice']);
    });

    it('does not bring back a renamed kernel as stale when the file later stops parsing', async () => {
      const parsers = await loadParsers();
      const gpu = findGpu('h100-sxm')!;
      const p = 'stale-check/renamed-then-broken.wgsl';
      const other = good.replace(/^@group.*\n/, '').replace('scale_in_place', 'scale_other');
      analyzeSource(good + other, parsers, { gpu, path: p });
      const renamed = good.replace('scale_in_place', 'scale_twice') + other;
      assert.deepEqual(analyzeSource(renamed, parsers, { gpu, path: p }).kernels.map((k) => k.name), ['scale_twice', 'scale_other']);
      // scale_twice's closing brace deleted: it is shown stale; scale_in_place, gone since the rename, is not.
      const broken = renamed.replace('* 3.0;\n}', '* 3.0;\n');
      const r = analyzeSource(broken, parsers, { gpu, path: p });
      assert.ok(r.diagnostics.some((d) => d.code === 'parseError'));
      assert.ok(!r.kernels.some((k) => k.name === 'scale_in_place'), JSON.stringify(r.kernels.map((k) => k.name)));
    });

    it('shows a kernel stale only while its function is in the text', async () => {
      const parsers = await loadParsers();
      const gpu = findGpu('h100-sxm')!;
      const p = 'stale-check/deleted.wgsl';
      analyzeSource(good, parsers, { gpu, path: p });
      // The whole function deleted, and a syntax error elsewhere: nothing of it to show.
      const r = analyzeSource('@group(0) @binding(0) var<storage, read_write> data: array<f32>;\nfn helper( {\n', parsers, { gpu, path: p });
      assert.ok(r.diagnostics.some((d) => d.code === 'parseError'));
      assert.deepEqual(r.kernels.map((k) => k.name), []);
    });
  });

  describe('bindings', () => {
    it('--set binds an override workgroup size', async () => {
      const f = path.join(FIXTURES, 'automaton_int.wgsl');
      const r = await analyzeFile(f, { set: { WG_X: 16, 'grid.width': 256, 'grid.height': 256 } });
      const k = r.kernels[0];
      assert.equal(k.perUnit.intOps, 8 * 16 * 8);
      assert.equal(k.bindings.WG_X, 16);
      assert.equal(k.bindingSources.WG_X.source, 'user');
      assert.equal(k.bindingSources.WG_Y.detail.startsWith('override default'), true);
    });

    it('--dtype sets the texel format of a sampled texture', async () => {
      const f = path.join(FIXTURES, 'blur_texture.wgsl');
      const assumed = (await analyzeFile(f)).kernels[0];
      assert.ok(assumed.assumptions.some((a) => a.includes('assumed rgba8unorm')));
      const half = (await analyzeFile(f, { dtypes: { srcTex: 'fp16' } })).kernels[0];
      assert.equal(half.perUnit.loadBytes, 324 * 8);
      assert.ok(!half.assumptions.some((a) => a.includes('assumed rgba8unorm')));
    });

    it('--dtype takes a WGSL texel format for a texture (its bytes per texel)', async () => {
      const f = path.join(FIXTURES, 'blur_texture.wgsl');
      const half = (await analyzeFile(f, { texels: { srcTex: 'rgba16float' } })).kernels[0];
      assert.equal(half.perUnit.loadBytes, 324 * 8);
      assert.ok(!half.assumptions.some((a) => a.includes('assumed rgba8unorm')));
      const r8 = (await analyzeFile(f, { texels: { srcTex: 'r8unorm' } })).kernels[0];
      assert.equal(r8.perUnit.loadBytes, 324 * 1);
      const wide = (await analyzeFile(f, { texels: { srcTex: 'RGBA32Float', dstTex: 'rgb10a2unorm' } })).kernels[0];
      assert.equal(wide.perUnit.loadBytes, 324 * 16);
      assert.equal(wide.perUnit.storeBytes, 256 * 4);
    });

    // The WGSL specification's texel formats (storage textures, texture_formats_tier1 included), bytes per texel.
    const SPEC_FORMATS: Record<string, number> = {
      rgba8unorm: 4, rgba8snorm: 4, rgba8uint: 4, rgba8sint: 4, bgra8unorm: 4,
      rgba16unorm: 8, rgba16snorm: 8, rgba16uint: 8, rgba16sint: 8, rgba16float: 8,
      rg8unorm: 2, rg8snorm: 2, rg8uint: 2, rg8sint: 2,
      rg16unorm: 4, rg16snorm: 4, rg16uint: 4, rg16sint: 4, rg16float: 4,
      r32uint: 4, r32sint: 4, r32float: 4, rg32uint: 8, rg32sint: 8, rg32float: 8,
      rgba32uint: 16, rgba32sint: 16, rgba32float: 16,
      r8unorm: 1, r8snorm: 1, r8uint: 1, r8sint: 1,
      r16unorm: 2, r16snorm: 2, r16uint: 2, r16sint: 2, r16float: 2,
      rgb10a2unorm: 4, rgb10a2uint: 4, rg11b10ufloat: 4,
    };

    it('every WGSL texel format has its bytes per texel', () => {
      for (const [f, b] of Object.entries(SPEC_FORMATS)) assert.equal(texelBytes(f), b, f);
      assert.equal(texelBytes('rgba9unorm'), undefined);
    });

    it('--dtype and rooflineLens.dtypes accept every WGSL texel format name', () => {
      const names = Object.keys(SPEC_FORMATS);
      const cli = readDtypes([...names.map((f) => `tex_${f}=${f}`), 'a_ptr=fp16', 'inputTex=RGBA8Unorm']);
      assert.deepEqual(cli.dtypes, { a_ptr: 'fp16' });
      for (const f of names) assert.equal(cli.texels[`tex_${f}`], f);
      assert.equal(cli.texels.inputTex, 'rgba8unorm');
      assert.throws(() => readDtypes(['tex=rgba9unorm']), /texel format/);
      const p = parseOptions(['--dtype', 'inputTex=rgba16float', '--dtype', 'x=fp16'], ANALYSIS_OPTIONS);
      assert.deepEqual(readAnalysisSettings(p).user.texels, { inputTex: 'rgba16float' });
      const raw: RawSettings = { gpu: undefined, customGpus: undefined, bindings: undefined, kernelLenses: undefined, loopLenses: undefined, diagnostics: undefined,
        dtypes: { inputTex: 'rgba8unorm', outTex: 'rg11b10ufloat', a_ptr: 'bf16', bad: 'rgba9unorm' } };
      const s = readSettings(raw);
      assert.deepEqual(s.dtypes, { a_ptr: 'bf16' });
      assert.deepEqual(s.texels, { inputTex: 'rgba8unorm', outTex: 'rg11b10ufloat' });
      assert.equal(s.errors.length, 1);
      assert.match(s.errors[0], /rooflineLens\.dtypes\["bad"\]: unknown element type/);
    });

    it('the dispatch found in the host file is a launch binding; --grid overrides it', async () => {
      const f = path.join(FIXTURES, 'embedded_compute.ts');
      const found = (await analyzeFile(f)).kernels.find((k) => k.name === 'saxpy')!;
      assert.equal(found.bindingSources['num_workgroups.x'].source, 'launch');
      assert.match(found.bindingSources['num_workgroups.x'].detail, /dispatchWorkgroups\(Math\.ceil\(N \/ WORKGROUP_SIZE\)\)/);
      const given = (await analyzeFile(f, { grid: [10] })).kernels.find((k) => k.name === 'saxpy')!;
      assert.equal(given.units, 10);
      assert.equal(given.bindingSources['num_workgroups.x'].source, 'user');
    });
  });

  describe('textures the analysis cannot follow (N3)', () => {
    it('are a warning that costs completeness, never a silent 0', async () => {
      const parsers = await loadParsers();
      const gpu = findGpu('h100-sxm')!;
      const src = [
        '@group(0) @binding(0) var<storage, read_write> out: array<vec4f>;',
        '@compute @workgroup_size(64)',
        'fn sample_missing(@builtin(global_invocation_id) gid: vec3u) {',
        '  out[gid.x] = textureLoad(notDeclared, vec2u(gid.x, 0u), 0);',
        '}',
        '',
      ].join('\n');
      const r = analyzeSource(src, parsers, { gpu, path: 'n3/missing.wgsl' });
      assert.ok(r.diagnostics.some((d) => d.code === 'unknownTexture' && d.severity === 'warning' && d.line === 4), JSON.stringify(r.diagnostics));
      const k = r.kernels[0];
      assert.equal(k.complete, false);
      assert.ok(k.incompleteReasons?.includes('unknownTexture'), JSON.stringify(k.incompleteReasons));
    });
  });

  describe('builtins on constants (N4)', () => {
    it('fold by the WGSL definitions on 32-bit integers', () => {
      const cases: [string, number[], 'u32' | 'i32' | 'ai' | 'f32', number | undefined][] = [
        ['firstTrailingBit', [256], 'u32', 8],
        ['firstTrailingBit', [0], 'u32', 0xffffffff],
        ['firstTrailingBit', [0], 'i32', -1],
        ['firstLeadingBit', [256], 'u32', 8],
        ['firstLeadingBit', [-1], 'i32', -1],
        ['firstLeadingBit', [-8], 'i32', 2],
        ['countOneBits', [0x2c], 'u32', 3],
        ['countOneBits', [-1], 'i32', 32],
        ['countLeadingZeros', [1], 'u32', 31],
        ['countTrailingZeros', [0], 'u32', 32],
        ['reverseBits', [1], 'u32', 0x80000000],
        ['reverseBits', [1], 'i32', -0x80000000],
        ['extractBits', [0xabcd, 4, 4], 'u32', 0xc],
        ['extractBits', [0xf0, 4, 4], 'i32', -1],
        ['insertBits', [0xffff, 0, 4, 8], 'u32', 0xf00f],
        ['min', [7, 3], 'u32', 3],
        ['max', [7, 3], 'i32', 7],
        ['clamp', [9, 1, 8], 'u32', 8],
        ['select', [1, 2, 0], 'u32', 1],
        ['select', [1, 2, 1], 'u32', 2],
        ['abs', [-2], 'i32', 2],
        ['round', [2.5], 'f32', 2],
        ['round', [3.5], 'f32', 4],
        ['log2', [1024], 'f32', 10],
        ['log2', [1024], 'u32', undefined],
        ['countOneBits', [1.5], 'f32', undefined],
        ['sin', [1], 'f32', undefined],
      ];
      for (const [name, xs, kind, want] of cases) assert.equal(foldBuiltin(name, xs, kind), want, `${name}(${xs.join(', ')}) on ${kind}`);
    });

    it('an unknown loop bound is reported once, and not at all once it is bound', async () => {
      const parsers = await loadParsers();
      const gpu = findGpu('h100-sxm')!;
      const src = [
        '@group(0) @binding(0) var<storage, read_write> data: array<f32>;',
        '@compute @workgroup_size(64)',
        'fn twice(@builtin(local_invocation_id) lid: vec3u) {',
        '  let n = u32(data[0]);',
        '  for (var i = 0u; i < n; i++) {',
        '    data[lid.x] = data[lid.x] * 2.0;',
        '  }',
        '}',
        '',
      ].join('\n');
      const loopDiags = (r: ReturnType<typeof analyzeSource>) => r.diagnostics.filter((d) => d.code === 'unboundLoop');
      const free = analyzeSource(src, parsers, { gpu, path: 'once/twice.wgsl' });
      assert.equal(loopDiags(free).length, 1, JSON.stringify(free.diagnostics));
      assert.equal(loopDiags(free)[0].line, 5);
      const bound = analyzeSource(src, parsers, { gpu, path: 'once/twice.wgsl', set: { trips_L5: 4 } });
      assert.deepEqual(loopDiags(bound), []);
      assert.equal(bound.kernels[0].perUnit.flops, 4 * 64);
    });
  });

  describe('shaders built by host functions (P12)', () => {
    it('keep the builder\'s parameters as symbols to bind', async () => {
      const r = await analyzeFile(path.join(FIXTURES, 'shader_from_function.ts'), { set: {} });
      const byName = Object.fromEntries(r.kernels.map((k) => [k.name, k]));
      assert.deepEqual(Object.keys(byName).sort(), ['fill', 'relu4', 'scale', 'sum_rows']);
      assert.deepEqual(byName.sum_rows.unbound, ['cols']);
      assert.deepEqual(byName.fill.unbound, ['n_param']);
      assert.equal(byName.scale.bindingSources.wg.source, 'define');
      const bound = await analyzeFile(path.join(FIXTURES, 'shader_from_function.ts'), { set: { wg: 128, cols: 10, n_param: 16 } });
      const scale = bound.kernels.find((k) => k.name === 'scale')!;
      assert.equal(scale.perUnit.flops, 128);
      assert.equal(bound.kernels.find((k) => k.name === 'sum_rows')!.perUnit.flops, 64 * 10);
    });

    it('a file of many nested arrow functions is scanned in bounded time', async () => {
      const parsers = await loadParsers();
      const gpu = findGpu('h100-sxm')!;
      const src = `const f = ${Array.from({ length: 20000 }, (_, i) => `(a${i}) =>`).join(' ')} 1;\n`;
      const t0 = Date.now();
      const r = analyzeSource(src, parsers, { gpu, path: 'arrows/many.js' });
      assert.ok(Date.now() - t0 < 20000, `took ${Date.now() - t0} ms`);
      assert.equal(r.kernels.length, 0);
    });
  });

  describe('JS/TS lexer', () => {
    const kinds = (src: string) => lexJs(src).map((t) => `${t.kind}:${t.text}`);

    it('tells regular expressions from division', () => {
      assert.deepEqual(kinds('a / b / c'), ['ident:a', 'punct:/', 'ident:b', 'punct:/', 'ident:c']);
      assert.deepEqual(kinds('x = /`[/]`/g.test(s)').slice(0, 3), ['ident:x', 'punct:=', 'regex:/`[/]`/g']);
      assert.deepEqual(kinds('f(a) / 2'), ['ident:f', 'punct:(', 'ident:a', 'punct:)', 'punct:/', 'number:2']);
      assert.deepEqual(kinds('return /x/'), ['ident:return', 'regex:/x/']);
    });

    it('reads template literals with nested substitutions, and comments and strings holding backticks', () => {
      const toks = lexJs('const s = `a${ `b${ {k: 1}.k }` }c`; // `not a template\n/* ` */ "`"');
      const tpl = toks.find((t) => t.kind === 'template')!;
      assert.equal(tpl.parts!.length, 3);
      const inner = tpl.parts![1];
      assert.equal(inner.kind, 'expr');
      assert.equal(inner.kind === 'expr' && inner.tokens[0].kind, 'template');
      assert.deepEqual(toks.filter((t) => t.kind === 'comment').length, 2);
      assert.equal(toks[toks.length - 1].value, '`');
    });

    it('keeps the host offset of every character of a template', () => {
      const src = 'x = `ab\\n${1}\ncd`';
      const tpl = lexJs(src).find((t) => t.kind === 'template')!;
      const last = tpl.parts![tpl.parts!.length - 1];
      assert.equal(last.kind, 'text');
      if (last.kind === 'text') assert.equal(src[last.offsets[last.cooked.indexOf('c')]], 'c');
    });

    it('never throws on unterminated input', () => {
      for (const src of ['`abc', '"abc', '/* abc', '`${', '/[', '`${`${'])
        assert.doesNotThrow(() => lexJs(src));
    });
  });
});

describe('WGSL: in time slices, one parse of the shader', () => {
  it('each call of a sliced analysis reads the parse of the first; an edited text is parsed once more', async () => {
    const { wgslParseStats } = await import('../src/core/frontends/wgsl/frontend');
    const { clearCaches, progressOf } = await import('../src/core/analyze');
    const { fixtureFile } = await import('./bench/fixtures');
    const p = await loadParsers();
    const gpu = findGpu('h100-sxm')!;
    const src = fixtureFile(path.join(__dirname, '..'), 'wgsl', 600);
    clearCaches();
    const whole = analyzeSource(src, p, { gpu, path: 'parse-whole.wgsl' });
    const run = (text: string) => {
      const before = wgslParseStats.parses;
      let calls = 0;
      for (;;) {
        const r = analyzeSource(text, p, { gpu, path: 'parse-sliced.wgsl', sliceMs: 0 });
        calls++;
        if (!r.partial) return { r, calls, parses: wgslParseStats.parses - before };
        assert.ok(progressOf(r.partial) >= 0 && calls < 1000);
      }
    };
    const first = run(src);
    assert.ok(first.calls > 5, `${first.calls} calls`);
    assert.equal(first.parses, 1);
    const counts = (ks: typeof whole.kernels) => JSON.stringify(ks.map((k) => [k.name, k.line, k.perUnit]));
    assert.equal(counts(first.r.kernels), counts(whole.kernels));
    const edited = src.replace(/\n/, '\n// typed\n');
    const second = run(edited);
    assert.equal(second.parses, 1);
  });
});

describe('WGSL: a host file is scanned once per text', () => {
  it('the launches of its pipelines read the scan of the analysis, not a scan each', async () => {
    const { wgslHostScanStats } = await import('../src/core/frontends/wgsl/frontend');
    const { clearCaches } = await import('../src/core/analyze');
    const p = await loadParsers();
    const src = fs.readFileSync(path.join(__dirname, 'fixtures', 'wgsl', 'pipeline_two_passes.ts'), 'utf8');
    clearCaches();
    const before = wgslHostScanStats.scans;
    const r = analyzeSource(src, p, { gpu: findGpu('h100-sxm')!, path: 'host-scan.ts' });
    const launches = (r.pipelines ?? []).reduce((n, pl) => n + pl.launches.length, 0);
    assert.ok(launches >= 2, `${launches} launches`);
    assert.equal(wgslHostScanStats.scans - before, 1);
    // The same text again: kept; an edited one: scanned again.
    analyzeSource(src, p, { gpu: findGpu('h100-sxm')!, path: 'host-scan.ts' });
    assert.equal(wgslHostScanStats.scans - before, 1);
    analyzeSource(`${src}\n// edited\n`, p, { gpu: findGpu('h100-sxm')!, path: 'host-scan.ts' });
    assert.equal(wgslHostScanStats.scans - before, 2);
  });
});

describe("WGSL: a shader preprocessor's conditionals (vello, naga_oil `#ifdef`)", () => {
  const shader = [
    '@group(0) @binding(0) var<storage, read> x: array<f32>;',
    '@group(0) @binding(1) var<storage, read_write> y: array<f32>;',
    '@compute @workgroup_size(64)',
    'fn main(@builtin(global_invocation_id) gid: vec3<u32>) {',
    '    let v = x[gid.x];',
    '#ifdef twice',
    '    y[gid.x] = v * 2.0 + 1.0;',
    '#else',
    '    y[gid.x] = v * 3.0;',
    '#endif',
    '#ifndef quiet',
    '    y[gid.x + 64u] = v;',
    '#endif',
    '}',
  ];
  const run = async (text: string, set: Record<string, number> = {}, file = 'defines.wgsl') =>
    analyzeSource(text, await loadParsers(), { gpu: findGpu('h100-sxm')!, path: file, set, grid: [16, 1, 1] });
  it('are read as a build that defines only the names set (said once each), the directive lines and the branches not taken blanked', async () => {
    const plain = await run(shader.join('\n'));
    assert.ok(!plain.diagnostics.some((d) => d.code === 'parseError'), JSON.stringify(plain.diagnostics));
    const k = plain.kernels[0];
    assert.equal(k.complete, true);
    // `v * 3.0`: 1 FLOP; stores y[gid.x] and y[gid.x + 64] (the `+ 64u` is integer index arithmetic).
    assert.equal(k.perUnit.flops, 64);
    assert.equal(k.perUnit.storeBytes, 2 * 64 * 4);
    const said = plain.diagnostics.filter((d) => d.code === 'shaderDefine');
    assert.deepEqual(said.map((d) => d.line), [6, 11]);
    assert.match(said[0].message, /`twice` is not defined here, so the shader is read as a build without it; --set twice=1 reads it with/);
    const set = await run(shader.join('\n'), { twice: 1, quiet: 1 });
    assert.equal(set.kernels[0].perUnit.flops, 2 * 64);
    assert.equal(set.kernels[0].perUnit.storeBytes, 64 * 4);
    assert.match(set.diagnostics.find((d) => d.code === 'shaderDefine')!.message, /`twice` is set/);
    // Lines are kept: the kernel is where it was.
    assert.equal(set.kernels[0].line, 4);
  });
  it("an imported file's conditionals are read with the same names, again when its text or the names change", async () => {
    const main = ['#import scale', ...shader.slice(0, 4), '    let v = x[gid.x];', '    y[gid.x] = scaled(v);', '}'].join('\n');
    const lib = (k: string) => ['#ifdef twice', `fn scaled(v: f32) -> f32 { return v * ${k} + 1.0; }`, '#else', 'fn scaled(v: f32) -> f32 { return v; }', '#endif'].join('\n');
    const go = async (libText: string, set: Record<string, number>) =>
      analyzeSource(main, await loadParsers(), { gpu: findGpu('h100-sxm')!, path: 'imports-defines.wgsl', set, grid: [16, 1, 1], related: { scale: { path: 'scale.wgsl', text: libText } } });
    // Without `twice`: `scaled` is the identity (0 FLOPs); with it, 2; another text of the import, read again.
    assert.equal((await go(lib('2.0'), {})).kernels[0].perUnit.flops, 0);
    assert.equal((await go(lib('2.0'), { twice: 1 })).kernels[0].perUnit.flops, 2 * 64);
    assert.equal((await go(lib('2.0 * 3.0'), { twice: 1 })).kernels[0].perUnit.flops, 3 * 64);
    assert.equal((await go(lib('2.0 * 3.0'), {})).kernels[0].perUnit.flops, 0);
  });
  it('a conditional left open is left as written: a syntax error, and the kernel incomplete', async () => {
    // (A file of its own: not the last good analysis of the one above, which a WGSL file that stops parsing shows as stale.)
    const open = await run(shader.filter((l) => l !== '#endif').join('\n'), {}, 'defines-open.wgsl');
    assert.ok(open.diagnostics.some((d) => d.code === 'parseError'));
    assert.ok(!open.diagnostics.some((d) => d.code === 'shaderDefine'));
    assert.equal(open.kernels[0]?.complete ?? false, false);
  });
});
