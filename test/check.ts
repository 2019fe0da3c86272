/**
 * The one data-driven check every fixture goes through.
 *
 * A fixture states its expectations in its header comment, next to the hand
 * derivation of each number:
 *
 *   # args: --set n_cols=1000 --grid 4096 --gpu h100-sxm --dtype x_ptr=fp16
 *   # expect: softmax_kernel.perUnit.flops = 3999
 *   # expect: softmax_kernel.bound = "memory"
 *   # expect: softmax_kernel.arithmeticIntensity ~ 0.5        (±0.5 %)
 *   # expect-diagnostic: loop bound `n_rows` unknown
 *   # expect-kernels: 2
 *
 * (`//` instead of `#` in CUDA, WGSL and JS/TS files.) Paths index into the
 * kernel's report (`perUnit.loadBytes`, `regions.0.trips`, `bindings.BLOCK`).
 */
import { strict as assert } from 'node:assert';
import { readRelated } from '../src/cli/related';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeSource, languageOf, type AnalyzeOptions } from '../src/core/analyze';
import { parseBindingValue } from '../src/core/bindings';
import { parseDtype } from '../src/core/frontends/common';
import { findGpu } from '../src/core/gpus/catalog';
import { initParsers, type Parsers } from '../src/core/parsers';
import type { FileReport } from '../src/core/report/types';

const ROOT = path.join(__dirname, '..');

export function loadParsers(): Promise<Parsers> {
  const files: Record<string, string> = {
    'web-tree-sitter.wasm': 'web-tree-sitter/web-tree-sitter.wasm',
    'tree-sitter-python.wasm': 'tree-sitter-python/tree-sitter-python.wasm',
    'tree-sitter-cuda.wasm': 'tree-sitter-cuda/tree-sitter-cuda.wasm',
  };
  return initParsers(async (name) => fs.readFileSync(path.join(ROOT, 'node_modules', files[name])));
}

/** Parses `--set A=1 --dtype x=fp16 --grid 4,2 --gpu l4` from a fixture's `args:` line. */
export function parseFixtureArgs(line: string): Partial<AnalyzeOptions> {
  const opts: Partial<AnalyzeOptions> = { set: {}, dtypes: {} };
  const toks = line.trim().split(/\s+/).filter(Boolean);
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    const v = toks[i + 1];
    if (t === '--set') {
      const eq = v.indexOf('=');
      opts.set![v.slice(0, eq)] = parseBindingValue(v.slice(eq + 1));
      i++;
    } else if (t === '--dtype') {
      const eq = v.indexOf('=');
      opts.dtypes![v.slice(0, eq)] = parseDtype(v.slice(eq + 1))!;
      i++;
    } else if (t === '--grid') {
      opts.grid = v.split(',').map(Number);
      i++;
    } else if (t === '--gpu') {
      opts.gpu = findGpu(v)!;
      i++;
    }
  }
  return opts;
}

export interface Expectation {
  kernel: string;
  path: string;
  op: '=' | '~';
  value: unknown;
  line: number;
  /** `expect-pipeline: forward.total.flops = …`: a path into the pipeline of that name. */
  pipeline?: boolean;
}

export interface FixtureSpec {
  args: Partial<AnalyzeOptions>;
  expects: Expectation[];
  diagnostics: string[];
  kernels?: number;
  /** `derive: 1823 * 781 * 4 = 5695052`: a derivation the checker evaluates. */
  derives: { expr: string; value: string; line: number }[];
}

/**
 * Evaluates a derivation's arithmetic: numbers (with `_` or thin-space
 * grouping), + − × ÷ * / ^ and parentheses. No `eval`: a tiny parser.
 */
export function evalArithmetic(src: string): number {
  const text = src.replace(/[×·]/g, '*').replace(/÷/g, '/').replace(/−/g, '-').replace(/(\d)[_ ,](?=\d{3}\b)/g, '$1');
  let i = 0;
  const peek = () => {
    while (text[i] === ' ') i++;
    return text[i];
  };
  const expr = (): number => {
    let v = term();
    for (let c = peek(); c === '+' || c === '-'; c = peek()) {
      i++;
      v = c === '+' ? v + term() : v - term();
    }
    return v;
  };
  const term = (): number => {
    let v = power();
    for (let c = peek(); c === '*' || c === '/'; c = peek()) {
      i++;
      v = c === '*' ? v * power() : v / power();
    }
    return v;
  };
  const power = (): number => {
    const b = unary();
    if (peek() === '^') {
      i++;
      return Math.pow(b, power());
    }
    return b;
  };
  const unary = (): number => {
    if (peek() === '-') {
      i++;
      return -unary();
    }
    if (peek() === '(') {
      i++;
      const v = expr();
      if (peek() !== ')') throw new Error(`derive: missing ) in ${src}`);
      i++;
      return v;
    }
    const m = /^\d+(\.\d+)?(e[-+]?\d+)?/i.exec(text.slice(i));
    if (!m) throw new Error(`derive: cannot read "${text.slice(i)}" in ${src}`);
    i += m[0].length;
    return Number(m[0]);
  };
  const v = expr();
  if (peek() !== undefined) throw new Error(`derive: unexpected "${text.slice(i)}" in ${src}`);
  return v;
}

/** Checks a derivation: its arithmetic equals the stated value to the digits written. */
export function checkDerive(d: { expr: string; value: string }): { ok: boolean; got: number; want: number } {
  if (!d.value) throw new Error(`derive: no "= value" in ${d.expr}`);
  const got = evalArithmetic(d.expr);
  const want = evalArithmetic(d.value);
  const decimals = /\.(\d+)/.exec(d.value.replace(/[_ ,]/g, ''))?.[1].length ?? 0;
  const tol = Math.max(0.5 * 10 ** -decimals, Math.abs(want) * 1e-9);
  return { ok: Math.abs(got - want) <= tol, got, want };
}

export function readSpec(source: string): FixtureSpec {
  const spec: FixtureSpec = { args: {}, expects: [], diagnostics: [], derives: [] };
  const lines = source.split('\n');
  lines.forEach((raw, i) => {
    const m = /^\s*(?:#|\/\/|\*)\s*(args|expect|expect-pipeline|expect-diagnostic|expect-kernels|derive):\s*(.*)$/.exec(raw);
    if (!m) return;
    const [, kind, rest] = m;
    if (kind === 'derive') {
      const eq = rest.lastIndexOf('=');
      spec.derives.push({ expr: eq < 0 ? rest : rest.slice(0, eq).trim(), value: eq < 0 ? '' : rest.slice(eq + 1).trim(), line: i + 1 });
    } else if (kind === 'args') spec.args = { ...spec.args, ...parseFixtureArgs(rest) };
    else if (kind === 'expect-diagnostic') spec.diagnostics.push(rest.trim());
    else if (kind === 'expect-kernels') spec.kernels = Number(rest.trim());
    else {
      const e = /^([\w$]+)\.([\w.$()]+)\s*(=|~)\s*(.+?)\s*(\(.*\))?$/.exec(rest.trim());
      if (!e) throw new Error(`bad expect line ${i + 1}: ${raw}`);
      let value: unknown;
      try {
        value = JSON.parse(e[4]);
      } catch {
        throw new Error(`bad expect value on line ${i + 1}: ${e[4]}`);
      }
      spec.expects.push({ kernel: e[1], path: e[2], op: e[3] as '=' | '~', value, line: i + 1, ...(kind === 'expect-pipeline' ? { pipeline: true } : {}) });
    }
  });
  return spec;
}

/** Follows a dotted path; keys that contain dots themselves (`bindings.blockDim.x`) match longest first. */
function get(obj: unknown, p: string): unknown {
  let cur: unknown = obj;
  const parts = p.split('.');
  for (let i = 0; i < parts.length; ) {
    if (cur === null || cur === undefined) return undefined;
    const rec = cur as Record<string, unknown>;
    let j = parts.length;
    while (j > i + 1 && !(parts.slice(i, j).join('.') in rec)) j--;
    cur = rec[parts.slice(i, j).join('.')];
    i = j;
  }
  return cur;
}

export async function analyzeFile(file: string, extra: Partial<AnalyzeOptions> = {}): Promise<FileReport> {
  const parsers = await loadParsers();
  const source = fs.readFileSync(file, 'utf8');
  const spec = readSpec(source);
  // Related files (`#import name`) are read as the CLI reads them.
  const related = readRelated(file, languageOf(file), source);
  const opts: AnalyzeOptions = {
    gpu: findGpu('h100-sxm')!,
    path: path.relative(ROOT, file),
    ...(related ? { related } : {}),
    ...spec.args,
    ...extra,
  };
  return analyzeSource(source, parsers, opts);
}

/** Analyses a fixture and asserts every expectation in its header. */
export async function check(file: string): Promise<FileReport> {
  const source = fs.readFileSync(file, 'utf8');
  const spec = readSpec(source);
  const report = await analyzeFile(file);
  const where = path.relative(ROOT, file);
  for (const d of spec.derives) {
    const r = checkDerive(d);
    assert.ok(r.ok, `${where}:${d.line}: derive ${d.expr} = ${r.got}, but the header says ${d.value}`);
  }
  if (spec.kernels !== undefined) assert.equal(report.kernels.length, spec.kernels, `${where}: number of kernels`);
  for (const e of spec.expects) {
    const k = e.pipeline ? report.pipelines?.find((x) => x.name === e.kernel) : report.kernels.find((x) => x.name === e.kernel);
    assert.ok(k, `${where}:${e.line}: ${e.pipeline ? 'pipeline' : 'kernel'} ${e.kernel} not found (have ${report.kernels.map((x) => x.name).join(', ')}); diagnostics: ${JSON.stringify(report.diagnostics)}`);
    const actual = get(k, e.path);
    const ctx = `${where}:${e.line}: ${e.kernel}.${e.path}`;
    if (e.op === '~') {
      assert.equal(typeof actual, 'number', `${ctx}: expected a number, got ${JSON.stringify(actual)}`);
      const want = e.value as number;
      const tol = Math.abs(want) * 0.005 + 1e-12;
      assert.ok(Math.abs((actual as number) - want) <= tol, `${ctx}: expected ≈ ${want}, got ${actual}`);
    } else if (e.value === null) {
      assert.equal(actual, null, `${ctx}: expected null, got ${JSON.stringify(actual)}`);
    } else if (typeof e.value === 'number' && typeof actual === 'number') {
      const tol = Math.abs(e.value) * 1e-9 + 1e-12;
      assert.ok(Math.abs(actual - e.value) <= tol, `${ctx}: expected ${e.value}, got ${actual}`);
    } else {
      assert.deepEqual(actual, e.value, `${ctx}: expected ${JSON.stringify(e.value)}, got ${JSON.stringify(actual)}`);
    }
  }
  for (const d of spec.diagnostics) {
    assert.ok(
      report.diagnostics.some((x) => x.code === d || x.message.includes(d)),
      `${where}: expected a diagnostic containing ${JSON.stringify(d)}; got ${JSON.stringify(report.diagnostics.map((x) => x.message))}`,
    );
  }
  return report;
}

/** Every fixture file under test/fixtures/<lang>/ (not the broken/ ones). */
export function fixtures(lang: string, exts: string[]): string[] {
  const dir = path.join(ROOT, 'test', 'fixtures', lang);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => exts.some((e) => f.endsWith(e)))
    .sort()
    .map((f) => path.join(dir, f));
}

/** Sanity every report must satisfy whatever the input: no NaN, no negative, integer counts. */
export function assertSane(r: FileReport): void {
  for (const k of r.kernels) {
    for (const [key, v] of Object.entries(k.perUnit)) {
      if (v === null || v === undefined) continue;
      assert.ok(Number.isFinite(v) && v >= 0, `${k.name}.perUnit.${key} = ${v}`);
    }
    for (const v of [k.arithmeticIntensity, k.compulsoryIntensity, k.attainableFlops])
      if (v !== null) assert.ok(Number.isFinite(v) && v >= 0, `${k.name}: ${v}`);
    if (k.attainableFlops !== null) assert.ok(k.attainableFlops <= k.peak.flops * (1 + 1e-12), `${k.name}: above the roof`);
  }
}
