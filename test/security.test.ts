/**
 * Security (issue 8; docs/security.md says what and why).
 *
 * 1. The extension never executes user code. The built bundles are parsed
 *    with TypeScript's parser and every construct that could run code is
 *    listed: `eval`, the `Function` constructor, string timers, `vm`,
 *    `child_process`, `WebAssembly` compilation, `require`/`import()` of a
 *    computed name. Each occurrence is traced through the bundle's source map
 *    to the file it came from and must be on the allow-list below, each entry
 *    with its reason. The CLI may start a child process only as
 *    `execFileSync('git', …)` (the diff command). The webview must render
 *    with vega-interpreter, so vega's expression code generator never runs.
 * 2. Custom GPUs (`rooflineLens.customGpus`, `--gpu-file`) are validated: a
 *    hostile value — deep nesting, 10^6-element arrays, huge strings,
 *    `__proto__` keys, throwing getters and proxies — yields errors quickly
 *    and never throws, hangs or pollutes prototypes.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import ts from 'typescript';
import { findGpu } from '../src/core/gpus/catalog';
import { validateGpu } from '../src/core/gpus/validate';
import { chartKernels, rooflineSpec } from '../src/core/report/chart';
import { loadGpuFile } from '../src/cli/gpus';
import { readSettings, type RawSettings } from '../src/extension/settings';
import { analyzeFile } from './check';

const ROOT = path.join(__dirname, '..');

// ---------------------------------------------------------------------------
// What counts as running code, and where it is allowed
// ---------------------------------------------------------------------------

type Kind =
  | 'eval'
  | 'Function constructor'
  | 'string timer'
  | 'vm'
  | 'child_process'
  | 'WebAssembly'
  | 'computed require'
  | 'computed import';

interface Site {
  kind: Kind;
  /** 1-based line and 0-based column in the bundle. */
  line: number;
  column: number;
  /** The original file (from the source map), relative to the repository. */
  source: string;
  snippet: string;
}

interface Allowed {
  kind: Kind;
  /** Bundles (relative to dist/) where the occurrence may appear. */
  bundles: readonly string[];
  /** The original file (or folder, ending in `/` or `-`) it must come from. */
  source: string;
  /** How many occurrences each of those bundles has: a new one (a dependency update) needs a look. */
  count: number;
  reason: string;
}

const TREE_SITTER_BUNDLES = ['cli-main.js', 'extension.js', 'web/extension.js', 'worker-main.js', 'web/worker.js'];

/** Every known occurrence, with why it is safe. Anything else fails the test. */
const ALLOWED: readonly Allowed[] = [
  {
    kind: 'WebAssembly',
    bundles: TREE_SITTER_BUNDLES,
    source: 'node_modules/web-tree-sitter/',
    count: 9,
    reason:
      'web-tree-sitter instantiates its runtime and the grammars; src/core/parsers.ts hands it only the bytes of web-tree-sitter.wasm, tree-sitter-python.wasm and tree-sitter-cuda.wasm (the WasmName union), read from the extension itself',
  },
  {
    kind: 'eval',
    bundles: TREE_SITTER_BUNDLES,
    source: 'node_modules/web-tree-sitter/',
    count: 2,
    reason:
      "Emscripten's dynamic linker evaluates JavaScript a side module embeds (EM_ASM / EM_JS, found through its `__start_em_asm` and `__em_js__*` exports); the grammars we ship export neither (checked below), so it never runs",
  },
  {
    kind: 'child_process',
    bundles: ['cli-main.js'],
    source: 'src/cli/git.ts',
    count: 1,
    reason: "the CLI's diff command runs git through execFileSync('git', [...]) (no shell); checked separately below",
  },
  {
    kind: 'vm',
    bundles: ['cli.js', 'worker.js'],
    source: 'src/node/codeCache.ts',
    count: 1,
    reason:
      "the CLI's entry and the desktop analysis worker's compile their own bundle (dist/cli-main.js, dist/worker-main.js: a fixed path beside them) with V8's code cache (the build's; the worker's own, in the extension's global storage); never the user's text",
  },
  {
    kind: 'Function constructor',
    bundles: ['webview.js'],
    source: 'node_modules/d3-dsv/',
    count: 1,
    reason:
      "d3-dsv compiles a CSV/TSV row converter from the header row; vega's loader reaches it only for `format: csv/tsv` data, and the chart spec carries its data inline (checked below); the webview's CSP would block it anyway",
  },
  {
    kind: 'Function constructor',
    bundles: ['webview.js'],
    source: 'node_modules/vega-',
    count: 3,
    reason:
      "vega's expression code generator; the webview renders with vega-interpreter (`ast: true, expr: expressionInterpreter`), checked below, so it is never called (the webview's CSP would block it anyway)",
  },
];

// ---------------------------------------------------------------------------
// Source maps: which original file a bundle position came from
// ---------------------------------------------------------------------------

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decodes one source-map segment's base64 VLQ fields. */
function vlq(segment: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of segment) {
    const digit = BASE64.indexOf(ch);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}

/** Per generated line, the segments as [generated column, source index], in order. */
class SourceMap {
  private readonly lines: [number, number][][] = [];
  readonly sources: string[];

  constructor(file: string) {
    const map = JSON.parse(fs.readFileSync(file, 'utf8')) as { sources: string[]; mappings: string };
    this.sources = map.sources.map((s) => path.relative(ROOT, path.resolve(path.dirname(file), s)).split(path.sep).join('/'));
    let src = 0;
    for (const line of map.mappings.split(';')) {
      const segs: [number, number][] = [];
      let col = 0;
      for (const seg of line.split(',')) {
        if (!seg) continue;
        const f = vlq(seg);
        col += f[0];
        if (f.length >= 4) src += f[1];
        segs.push([col, src]);
      }
      this.lines.push(segs);
    }
  }

  /** The original file of a bundle position (1-based line, 0-based column). */
  sourceAt(line: number, column: number): string {
    const segs = this.lines[line - 1] ?? [];
    let best: number | undefined;
    for (const [col, src] of segs) if (col <= column) best = src;
    return best === undefined ? '(unmapped)' : this.sources[best];
  }
}

// ---------------------------------------------------------------------------
// The scan
// ---------------------------------------------------------------------------

const GLOBALS = new Set(['globalThis', 'window', 'self', 'global']);
const WASM_COMPILERS = new Set(['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming', 'Module', 'Instance']);

/** `x`, `(x)`, `(0, x)`: the expression a callee really is. */
function unwrap(e: ts.Expression): ts.Expression {
  if (ts.isParenthesizedExpression(e)) return unwrap(e.expression);
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.CommaToken) return unwrap(e.right);
  return e;
}

function isName(e: ts.Expression, name: string): boolean {
  return ts.isIdentifier(e) && e.text === name;
}

/** `eval`, `globalThis.eval`, `window["eval"]`. */
function isGlobalMember(e: ts.Expression, name: string): boolean {
  const x = unwrap(e);
  if (isName(x, name)) return true;
  if (ts.isPropertyAccessExpression(x)) return x.name.text === name && GLOBALS.has(x.expression.getText());
  if (ts.isElementAccessExpression(x)) return ts.isStringLiteralLike(x.argumentExpression) && x.argumentExpression.text === name && GLOBALS.has(x.expression.getText());
  return false;
}

function moduleName(arg: ts.Expression | undefined): string | undefined {
  return arg && ts.isStringLiteralLike(arg) ? arg.text.replace(/^node:/, '') : undefined;
}

function callKind(call: ts.CallExpression): Kind | undefined {
  const callee = unwrap(call.expression);
  const first = call.arguments[0];
  if (call.expression.kind === ts.SyntaxKind.ImportKeyword) return first && !ts.isStringLiteralLike(first) ? 'computed import' : undefined;
  if (isGlobalMember(callee, 'eval')) return 'eval';
  if (isGlobalMember(callee, 'Function')) return 'Function constructor';
  if ((isName(callee, 'setTimeout') || isName(callee, 'setInterval')) && first && (ts.isStringLiteralLike(first) || ts.isTemplateExpression(first))) return 'string timer';
  if (isName(callee, 'require')) {
    const m = moduleName(first);
    if (m === undefined) return 'computed require';
    if (m === 'child_process') return 'child_process';
    if (m === 'vm') return 'vm';
  }
  if (ts.isPropertyAccessExpression(callee) && isName(callee.expression, 'WebAssembly') && WASM_COMPILERS.has(callee.name.text)) return 'WebAssembly';
  return undefined;
}

function newKind(n: ts.NewExpression): Kind | undefined {
  const callee = unwrap(n.expression);
  if (isGlobalMember(callee, 'Function')) return 'Function constructor';
  if (ts.isPropertyAccessExpression(callee) && isName(callee.expression, 'WebAssembly') && WASM_COMPILERS.has(callee.name.text)) return 'WebAssembly';
  return undefined;
}

function importKind(n: ts.ImportDeclaration): Kind | undefined {
  const m = moduleName(n.moduleSpecifier as ts.Expression);
  return m === 'child_process' ? 'child_process' : m === 'vm' ? 'vm' : undefined;
}

function kindOf(n: ts.Node): Kind | undefined {
  if (ts.isCallExpression(n)) return callKind(n);
  if (ts.isNewExpression(n)) return newKind(n);
  if (ts.isImportDeclaration(n)) return importKind(n);
  return undefined;
}

interface Scan {
  sf: ts.SourceFile;
  sites: Site[];
}

function scanBundle(file: string): Scan {
  const code = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const map = fs.existsSync(`${file}.map`) ? new SourceMap(`${file}.map`) : undefined;
  const sites: Site[] = [];
  const visit = (n: ts.Node): void => {
    const kind = kindOf(n);
    if (kind) {
      const { line, character } = sf.getLineAndCharacterOfPosition(n.getStart(sf));
      const source = map ? map.sourceAt(line + 1, character) : '(no source map)';
      sites.push({ kind, line: line + 1, column: character, source, snippet: n.getText(sf).slice(0, 100) });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { sf, sites };
}

function allowed(bundle: string, s: Site): Allowed | undefined {
  return ALLOWED.find((a) => a.kind === s.kind && a.bundles.includes(bundle) && (a.source.endsWith('/') || a.source.endsWith('-') ? s.source.startsWith(a.source) : s.source === a.source));
}

/**
 * Every use of a binding of `require('child_process')` must be
 * `execFileSync('git', …)`: returns the uses that are not.
 */
function childProcessMisuse(sf: ts.SourceFile): string[] {
  const bindings = new Set<string>();
  const findBindings = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && isName(unwrap(n.expression), 'require') && moduleName(n.arguments[0]) === 'child_process') {
      let p: ts.Node = n.parent;
      while (p && !ts.isVariableDeclaration(p) && !ts.isSourceFile(p)) p = p.parent;
      if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) bindings.add(p.name.text);
      else bad.push(`require('child_process') not bound to a plain variable: ${n.parent.getText(sf).slice(0, 80)}`);
    }
    ts.forEachChild(n, findBindings);
  };
  const bad: string[] = [];
  findBindings(sf);
  const checkUse = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && bindings.has(n.text) && !ts.isVariableDeclaration(n.parent)) {
      const member = n.parent;
      const ok =
        ts.isPropertyAccessExpression(member) &&
        member.name.text === 'execFileSync' &&
        isGitCall(member);
      if (!ok) bad.push(`line ${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${member.parent.getText(sf).slice(0, 100)}`);
    }
    ts.forEachChild(n, checkUse);
  };
  checkUse(sf);
  return bad;
}

/** The property access `cp.execFileSync` is the callee (maybe as `(0, cp.execFileSync)`) of a call whose first argument is 'git'. */
function isGitCall(member: ts.PropertyAccessExpression): boolean {
  let callee: ts.Node = member;
  while (ts.isParenthesizedExpression(callee.parent) || (ts.isBinaryExpression(callee.parent) && callee.parent.right === callee)) callee = callee.parent;
  const call = callee.parent;
  if (!ts.isCallExpression(call) || call.expression !== callee) return false;
  const first = call.arguments[0];
  return first !== undefined && ts.isStringLiteralLike(first) && first.text === 'git';
}

// ---------------------------------------------------------------------------
// The webview renders with vega-interpreter
// ---------------------------------------------------------------------------

function tsFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** True when some object literal has `ast: true` and `expr: <the name imported from vega-interpreter>`. */
function usesVegaInterpreter(files: string[]): boolean {
  return files.some((f) => {
    const sf = ts.createSourceFile(f, fs.readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
    const imported = new Set<string>();
    let found = false;
    const visit = (n: ts.Node): void => {
      if (ts.isImportDeclaration(n) && moduleName(n.moduleSpecifier as ts.Expression) === 'vega-interpreter') {
        const named = n.importClause?.namedBindings;
        if (named && ts.isNamedImports(named)) for (const el of named.elements) imported.add(el.name.text);
      }
      if (ts.isObjectLiteralExpression(n)) {
        const prop = (name: string): ts.Expression | undefined => {
          const p = n.properties.find((x) => x.name && ts.isIdentifier(x.name) && x.name.text === name);
          return p && ts.isPropertyAssignment(p) ? p.initializer : undefined;
        };
        const ast = prop('ast');
        const expr = prop('expr');
        if (ast?.kind === ts.SyntaxKind.TrueKeyword && expr && ts.isIdentifier(expr) && imported.has(expr.text)) found = true;
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
    return found;
  });
}

/** Every Content-Security-Policy the extension writes into a webview. */
function contentSecurityPolicies(files: string[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    const sf = ts.createSourceFile(f, fs.readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      if ((ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n) || ts.isStringLiteral(n)) && n.getText(sf).includes('Content-Security-Policy')) {
        out.push(n.getText(sf));
        return;
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

/** The `content` of every CSP meta tag of a page, entities decoded. */
function metaPolicies(html: string): string[] {
  const out: string[] = [];
  const marker = 'http-equiv="Content-Security-Policy" content="';
  for (let at = html.indexOf(marker); at !== -1; at = html.indexOf(marker, at + 1)) {
    const start = at + marker.length;
    const raw = html.slice(start, html.indexOf('"', start));
    out.push(raw.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))).replace(/&amp;/g, '&'));
  }
  return out;
}

// ---------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------

const BUNDLES = ['cli.js', 'cli-main.js', 'extension.js', 'web/extension.js', 'worker.js', 'worker-main.js', 'web/worker.js', 'webview.js'];

describe('security: no user code runs', function () {
  this.timeout(180_000);
  const scans = new Map<string, Scan>();

  before(() => {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'pipe' });
    for (const b of BUNDLES) {
      const file = path.join(ROOT, 'dist', b);
      if (fs.existsSync(file)) scans.set(b, scanBundle(file));
    }
  });

  it('the build produced the CLI bundle (and the others whose sources exist)', () => {
    assert.ok(scans.has('cli.js') && scans.has('cli-main.js'));
    if (fs.existsSync(path.join(ROOT, 'src', 'extension', 'extension.ts')))
      assert.ok(scans.has('extension.js') && scans.has('web/extension.js') && scans.has('worker.js') && scans.has('worker-main.js') && scans.has('web/worker.js'));
    if (fs.existsSync(path.join(ROOT, 'src', 'webview', 'main.ts'))) assert.ok(scans.has('webview.js'));
  });

  for (const b of BUNDLES) {
    it(`dist/${b}: every eval, Function, child_process, vm, WebAssembly, computed require/import is allow-listed`, function () {
      const scan = scans.get(b);
      if (!scan) this.skip();
      const bad = scan!.sites.filter((s) => !allowed(b, s)).map((s) => `${s.kind} at dist/${b}:${s.line}:${s.column} from ${s.source}: ${s.snippet}`);
      assert.deepEqual(bad, [], `not on the allow-list:\n  ${bad.join('\n  ')}`);
    });
  }

  it('the allow-list is exact: each entry occurs as often as it says in each bundle built', () => {
    const wrong: string[] = [];
    for (const a of ALLOWED)
      for (const b of a.bundles) {
        const scan = scans.get(b);
        if (!scan) continue;
        const n = scan.sites.filter((s) => allowed(b, s) === a).length;
        if (n !== a.count) wrong.push(`${a.kind} from ${a.source} in dist/${b}: ${n} occurrence(s), the allow-list says ${a.count}`);
      }
    assert.deepEqual(wrong, []);
  });

  it("our own code (src/) has no such construct at all, except the CLI running git and two entries compiling their own bundle", () => {
    const ours = [...scans.entries()].flatMap(([b, s]) => s.sites.filter((x) => x.source.startsWith('src/')).map((x) => ({ b, ...x })));
    const bad = ours.filter((x) => !((x.kind === 'child_process' && x.source === 'src/cli/git.ts' && x.b === 'cli-main.js') || (x.kind === 'vm' && x.source === 'src/node/codeCache.ts' && (x.b === 'cli.js' || x.b === 'worker.js'))));
    assert.deepEqual(bad.map((x) => `${x.kind} in ${x.source} (dist/${x.b}:${x.line})`), []);
  });

  it('the CLI starts child processes only as execFileSync("git", …)', () => {
    assert.deepEqual(childProcessMisuse(scans.get('cli-main.js')!.sf), []);
  });

  it('the extension bundles never load child_process, nor vm but in the desktop worker\'s entry, to compile its own bundle', () => {
    for (const b of ['extension.js', 'web/extension.js', 'worker.js', 'worker-main.js', 'web/worker.js', 'webview.js']) {
      const s = scans.get(b);
      if (!s) continue;
      const own = (x: { kind: string; source: string }): boolean => b === 'worker.js' && x.kind === 'vm' && x.source === 'src/node/codeCache.ts';
      assert.deepEqual(s.sites.filter((x) => (x.kind === 'child_process' || x.kind === 'vm') && !own(x)).map((x) => `${x.kind} from ${x.source}`), [], b);
    }
  });

  it("the desktop worker's entry compiles only dist/worker-main.js, a path beside it", () => {
    const entry = fs.readFileSync(path.join(ROOT, 'src', 'desktop', 'workerLaunch.ts'), 'utf8');
    assert.match(entry, /compileBundle\(path\.join\(__dirname, 'worker-main\.js'\), file\)/);
    assert.equal(entry.match(/compileBundle\(/g)?.length, 1);
  });

  it('tree-sitter loads only the grammars we ship: Language.load and Parser.init appear only in src/core/parsers.ts', () => {
    const users = tsFiles(path.join(ROOT, 'src'))
      .filter((f) => !f.includes(`${path.sep}fuzz${path.sep}`))
      .filter((f) => {
        const text = fs.readFileSync(f, 'utf8');
        return text.includes('Language.load') || text.includes('Parser.init') || text.includes('WebAssembly.');
      })
      .map((f) => path.relative(ROOT, f).split(path.sep).join('/'));
    assert.deepEqual(users, ['src/core/parsers.ts']);
  });

  it('the grammars we ship embed no JavaScript for the dynamic linker to eval (no EM_ASM / EM_JS exports)', () => {
    for (const f of ['tree-sitter-python/tree-sitter-python.wasm', 'tree-sitter-cuda/tree-sitter-cuda.wasm']) {
      const exports = WebAssembly.Module.exports(new WebAssembly.Module(fs.readFileSync(path.join(ROOT, 'node_modules', f)))).map((e) => e.name);
      assert.deepEqual(exports.filter((n) => n.startsWith('__start_em_asm') || n.startsWith('__em_js__')), [], f);
    }
  });

  it('the webview renders with vega-interpreter (ast: true), so vega never compiles expressions', function () {
    const files = tsFiles(path.join(ROOT, 'src', 'webview'));
    const webviewHasVega = scans.get('webview.js')?.sf.text.includes('vega') ?? false;
    if (files.length === 0 && !webviewHasVega) this.skip();
    if (webviewHasVega || files.some((f) => fs.readFileSync(f, 'utf8').includes('vega'))) assert.ok(usesVegaInterpreter(files), 'src/webview must pass { ast: true, expr: <vega-interpreter> } to vega');
  });

  it('the chart spec carries its data inline: no URL, no CSV/TSV for d3-dsv to compile', async () => {
    const files = [await analyzeFile(path.join(ROOT, 'test', 'fixtures', 'triton', 'vector_add.py'))];
    const spec = rooflineSpec(chartKernels(files), { gpu: findGpu('h100-sxm')! });
    const bad: string[] = [];
    const visit = (x: unknown, at: string): void => {
      if (Array.isArray(x)) x.forEach((v, i) => visit(v, `${at}[${i}]`));
      else if (x && typeof x === 'object')
        for (const [k, v] of Object.entries(x)) {
          if (k === 'url') bad.push(`${at}.url`);
          if (k === 'format' && v && typeof v === 'object' && ['csv', 'tsv', 'dsv'].includes(String((v as { type?: unknown }).type))) bad.push(`${at}.format`);
          visit(v, `${at}.${k}`);
        }
    };
    visit(spec, 'spec');
    assert.deepEqual(bad, []);
  });

  it("no webview Content-Security-Policy allows 'unsafe-eval' or inline scripts", async () => {
    const policies = contentSecurityPolicies(tsFiles(path.join(ROOT, 'src', 'extension')));
    const page = path.join(ROOT, 'src', 'extension', 'panelHtml.ts');
    if (fs.existsSync(page)) {
      const { pageHtml } = (await import(page)) as { pageHtml: (r: { cspSource: string; nonce: string; script: string; style: string }) => string };
      const html = pageHtml({ cspSource: 'vscode-webview://x', nonce: 'n0nce', script: 'webview.js', style: 'panel.css' });
      policies.push(...metaPolicies(html));
      assert.ok(policies.length > 0, 'the roofline page has a Content-Security-Policy');
    }
    for (const p of policies) {
      assert.ok(!p.includes("'unsafe-eval'"), `unsafe-eval in ${p.slice(0, 200)}`);
      const script = /script-src([^;"]*)/.exec(p)?.[1] ?? '';
      assert.ok(!script.includes("'unsafe-inline'"), `script-src allows inline scripts: ${p.slice(0, 200)}`);
    }
  });
});

// ---------------------------------------------------------------------------
// Hostile custom GPUs
// ---------------------------------------------------------------------------

/** Runs `f`, returns its result and how long it took (ms). */
function timed<T>(f: () => T): { value: T; ms: number } {
  const t0 = performance.now();
  const value = f();
  return { value, ms: performance.now() - t0 };
}

const GOOD = { id: 'my-gpu', name: 'My GPU', memoryBandwidth: 1e12, peaks: { vector: { fp32: 1e13 } } };

function deep(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

function throwingGetter(field: string): unknown {
  const x: Record<string, unknown> = { ...GOOD };
  Object.defineProperty(x, field, {
    enumerable: true,
    get() {
      throw new Error('boom');
    },
  });
  return x;
}

/** Hostile values: each must give errors (no GPU), quickly, without throwing. */
const HOSTILE: [string, () => unknown][] = [
  ['nested 100,000 deep as peaks', () => ({ ...GOOD, peaks: deep(100_000) })],
  ['nested 100,000 deep as the whole GPU', () => deep(100_000)],
  ['a 10^6-element array as the GPU', () => new Array(1_000_000).fill(GOOD)],
  ['10^6 notes', () => ({ ...GOOD, notes: new Array(1_000_000).fill('x') })],
  ['10^6 keys in sources', () => ({ ...GOOD, sources: Object.fromEntries(Array.from({ length: 1_000_000 }, (_, i) => [`k${i}`, 'x'])) })],
  ['10^6 keys in peaks.vector', () => ({ ...GOOD, peaks: { vector: Object.fromEntries(Array.from({ length: 1_000_000 }, (_, i) => [`d${i}`, 1e12])) } })],
  ['a 10^7-character id', () => ({ ...GOOD, id: 'a'.repeat(10_000_000) })],
  ['a 10^7-character name', () => ({ ...GOOD, name: 'n'.repeat(10_000_000) })],
  ['a 10^7-character key', () => ({ ...GOOD, ['k'.repeat(10_000_000)]: 1 })],
  ['__proto__ as an own key (JSON)', () => JSON.parse(`{"id":"my-gpu","name":"x","memoryBandwidth":1e12,"peaks":{"vector":{"fp32":1e13}},"__proto__":{"polluted":true}}`)],
  ['__proto__ inside peaks (JSON)', () => JSON.parse(`{"id":"my-gpu","name":"x","memoryBandwidth":1e12,"peaks":{"__proto__":{"vector":{"fp32":1e13}}}}`)],
  ['constructor.prototype keys (JSON)', () => JSON.parse(`{"id":"my-gpu","name":"x","memoryBandwidth":1e12,"peaks":{"vector":{"fp32":1e13}},"constructor":{"prototype":{"polluted":true}}}`)],
  ['a getter that throws (memoryBandwidth)', () => throwingGetter('memoryBandwidth')],
  ['a getter that throws (peaks)', () => throwingGetter('peaks')],
  ['a proxy whose ownKeys throws', () => new Proxy({ ...GOOD }, { ownKeys: () => { throw new Error('boom'); } })],
  ['a proxy whose get throws', () => new Proxy({ ...GOOD }, { get: () => { throw new Error('boom'); } })],
  ['a revoked proxy', () => { const p = Proxy.revocable({ ...GOOD }, {}); p.revoke(); return p.proxy; }],
  ['Infinity, NaN and -0 as rates', () => ({ ...GOOD, memoryBandwidth: Infinity, l2Bandwidth: NaN, peaks: { vector: { fp32: -0 } } })],
  ['numbers as strings', () => ({ ...GOOD, memoryBandwidth: '3.35e12', peaks: { vector: { fp32: '1e13' } } })],
  ['a BigInt bandwidth', () => ({ ...GOOD, memoryBandwidth: 10n ** 12n })],
  ['a symbol id', () => ({ ...GOOD, id: Symbol('x') })],
  ['a function as the GPU', () => () => GOOD],
];

describe('security: hostile custom GPUs', function () {
  this.timeout(60_000);

  // "Quickly": no hang and nothing quadratic — under 2 s, or ten times what building the value took
  // (10^6 keys) — loose enough for a loaded 2-core machine; speed itself is measured in `npm run bench`.
  for (const [what, make] of HOSTILE) {
    it(`${what}: errors, quickly, no exception`, () => {
      const built = timed(make);
      const { value, ms } = timed(() => validateGpu(built.value, 'customGpus[0]'));
      assert.equal(value.gpu, undefined);
      assert.ok(value.errors.length > 0 && value.errors.length <= 51, `${value.errors.length} errors`);
      assert.ok(value.errors.every((e) => typeof e === 'string' && e.length < 2000), 'every error is a short string');
      assert.ok(ms < Math.max(2000, 10 * built.ms), `took ${ms.toFixed(0)} ms (building the value took ${built.ms.toFixed(0)} ms)`);
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype polluted');
    });
  }

  it('a valid GPU next to the hostile ones still validates', () => {
    assert.equal(validateGpu(GOOD).gpu?.id, 'my-gpu');
  });

  it('rooflineLens.customGpus with 10^6 entries reads only the first 100, quickly', () => {
    const raw: RawSettings = { gpu: 'my-gpu', customGpus: new Array(1_000_000).fill(GOOD), bindings: {}, dtypes: {}, kernelLenses: true, loopLenses: true, diagnostics: true };
    const { value, ms } = timed(() => readSettings(raw));
    assert.equal(value.customGpus.length, 1);
    assert.ok(value.errors.some((e) => e.includes('only the first 100')));
    assert.ok(ms < 1000, `took ${ms.toFixed(0)} ms`);
  });

  describe('--gpu-file', () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'roofline-gpu-file-'));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    /** Writes `text` to a file and loads it: it must fail with a message, quickly. */
    const rejects = (name: string, text: string | Buffer, expected: RegExp): void => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      const t0 = performance.now();
      assert.throws(() => loadGpuFile(file), expected);
      const ms = performance.now() - t0;
      assert.ok(ms < 2000, `${name}: took ${ms.toFixed(0)} ms`);
    };

    it('a file over the size limit is refused before it is read', () => {
      rejects('big.json', Buffer.alloc(2 * 1024 * 1024, 0x20), /more than the \d+ bytes allowed/);
    });

    it('JSON nested 500,000 deep is refused', () => {
      rejects('deep.json', '['.repeat(500_000) + ']'.repeat(500_000), /gpu-file/);
    });

    it('more than 100 GPUs are refused', () => {
      rejects('many.json', JSON.stringify(new Array(101).fill(GOOD)), /at most 100 allowed/);
    });

    it('a __proto__ key is an error and pollutes nothing', () => {
      rejects('proto.json', `[{"id":"my-gpu","name":"x","memoryBandwidth":1e12,"peaks":{"vector":{"fp32":1e13}},"__proto__":{"polluted":true}}]`, /__proto__: unknown field/);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    it('100,000 notes are refused', () => {
      rejects('notes.json', JSON.stringify([{ ...GOOD, notes: new Array(100_000).fill('n') }]), /too many notes/);
    });

    it('not JSON, binary bytes and an empty file are refused', () => {
      rejects('junk.json', '{"gpus": [', /not valid JSON/);
      rejects('binary.json', Buffer.from([0, 159, 146, 150, 255]), /not valid JSON/);
      rejects('empty.json', '', /not valid JSON/);
    });
  });
});
