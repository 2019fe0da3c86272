/**
 * Review formats of `roofline-lens analyze`: the Markdown report and SARIF
 * against golden files (UPDATE_GOLDEN=1 rewrites them), SARIF validated
 * against the official SARIF 2.1.0 JSON schema, several GPUs at once, and
 * the hand-derived counts of the review fixtures.
 *
 * The schema (test/fixtures/review/sarif-2.1.0-rtm.5.json) is the OASIS
 * SARIF 2.1.0 schema as shipped in the npm package @microsoft/jest-sarif
 * 1.0.0-beta.0 (lib/schemas/). It is draft-04; the validator below
 * implements every keyword it uses and refuses any other, so nothing is
 * silently skipped.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { main } from '../src/cli/main';
import { assertSane, check } from './check';

const ROOT = path.join(__dirname, '..');
const REVIEW = path.join(__dirname, 'fixtures', 'review');
const GOLDEN = path.join(REVIEW, 'golden');
const BIG = path.join(REVIEW, 'tiled_matmul.py');
const SMALL = path.join(REVIEW, 'tiled_matmul_small.py');

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, (s) => (out += s), (s) => (err += s));
  return { code, out, err };
}

/** Compares with a golden file, or rewrites it when UPDATE_GOLDEN=1. */
function golden(name: string, actual: string): void {
  const file = path.join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    fs.mkdirSync(GOLDEN, { recursive: true });
    fs.writeFileSync(file, actual);
    return;
  }
  assert.ok(fs.existsSync(file), `golden file ${name} missing: run with UPDATE_GOLDEN=1`);
  assert.equal(actual, fs.readFileSync(file, 'utf8'), `${name} differs from the golden file (UPDATE_GOLDEN=1 rewrites it after review)`);
}

// ---------------------------------------------------------------------------
// A JSON Schema draft-04 validator for the keywords the SARIF schema uses
// ---------------------------------------------------------------------------

type Schema = { [k: string]: unknown };

const ANNOTATIONS = new Set(['description', 'default', 'title', 'id', '$schema', 'definitions']);
const KEYWORDS = new Set(['$ref', 'type', 'enum', 'properties', 'additionalProperties', 'required', 'items', 'minItems', 'uniqueItems', 'minimum', 'maximum', 'pattern', 'format', 'anyOf', 'oneOf', 'allOf']);

function typeOk(t: string, v: unknown): boolean {
  switch (t) {
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'null':
      return v === null;
    default:
      return typeof v === t;
  }
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Schema)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

function formatOk(format: string, v: string): boolean {
  if (format === 'uri') return URL.canParse(v);
  if (format === 'uri-reference') return URL.canParse(v, 'http://base.invalid/');
  if (format === 'date-time') return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v));
  throw new Error(`validator: unsupported format ${format}`);
}

function validate(schema: Schema, v: unknown, root: Schema, at: string, errors: string[]): void {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace(/^#\/definitions\//, '');
    const target = (root.definitions as Record<string, Schema>)[name];
    if (!target) throw new Error(`validator: unresolved $ref ${schema.$ref}`);
    validate(target, v, root, at, errors);
    return;
  }
  for (const k of Object.keys(schema)) if (!KEYWORDS.has(k) && !ANNOTATIONS.has(k)) throw new Error(`validator: unsupported keyword ${k} at ${at}`);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => typeOk(t, v))) {
      errors.push(`${at}: expected ${types.join('|')}, got ${JSON.stringify(v)}`);
      return;
    }
  }
  if (schema.enum && !(schema.enum as unknown[]).some((e) => canonicalJson(e) === canonicalJson(v))) errors.push(`${at}: ${JSON.stringify(v)} not in ${JSON.stringify(schema.enum)}`);
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!schema[key]) continue;
    const passing = (schema[key] as Schema[]).filter((s) => {
      const sub: string[] = [];
      validate(s, v, root, at, sub);
      return sub.length === 0;
    }).length;
    if (key === 'anyOf' ? passing === 0 : passing !== 1) errors.push(`${at}: ${passing} of the ${key} branches match`);
  }
  for (const s of (schema.allOf as Schema[] | undefined) ?? []) validate(s, v, root, at, errors);
  if (typeof v === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(v)) errors.push(`${at}: "${v}" does not match ${schema.pattern}`);
    if (typeof schema.format === 'string' && !formatOk(schema.format, v)) errors.push(`${at}: "${v}" is not a ${schema.format}`);
  }
  if (typeof v === 'number') {
    if (typeof schema.minimum === 'number' && v < schema.minimum) errors.push(`${at}: ${v} < minimum ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && v > schema.maximum) errors.push(`${at}: ${v} > maximum ${schema.maximum}`);
  }
  if (Array.isArray(v)) {
    if (typeof schema.minItems === 'number' && v.length < schema.minItems) errors.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.uniqueItems === true && new Set(v.map(canonicalJson)).size !== v.length) errors.push(`${at}: items are not unique`);
    if (schema.items) {
      if (Array.isArray(schema.items)) throw new Error('validator: tuple items unsupported');
      v.forEach((x, i) => validate(schema.items as Schema, x, root, `${at}[${i}]`, errors));
    }
  }
  if (typeOk('object', v)) {
    const obj = v as Record<string, unknown>;
    for (const r of (schema.required as string[] | undefined) ?? []) if (!(r in obj)) errors.push(`${at}: missing required ${r}`);
    const props = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const [k, x] of Object.entries(obj)) {
      if (props[k]) validate(props[k], x, root, `${at}.${k}`, errors);
      else if (schema.additionalProperties === false) errors.push(`${at}: unexpected property ${k}`);
      else if (typeof schema.additionalProperties === 'object') validate(schema.additionalProperties as Schema, x, root, `${at}.${k}`, errors);
    }
  }
}

const SARIF_SCHEMA: Schema = JSON.parse(fs.readFileSync(path.join(REVIEW, 'sarif-2.1.0-rtm.5.json'), 'utf8'));

function sarifErrors(doc: unknown): string[] {
  const errors: string[] = [];
  validate(SARIF_SCHEMA, doc, SARIF_SCHEMA, '$', errors);
  return errors;
}

// ---------------------------------------------------------------------------

const TWO_GPUS = ['--gpu', 'h100-sxm,mi300x'];

describe('review reports', () => {
  describe('fixtures (hand-derived counts)', () => {
    for (const f of [BIG, SMALL])
      it(path.basename(f), async () => {
        assertSane(await check(f));
      });
  });

  describe('Markdown', () => {
    it('matches the golden report for one GPU', async () => {
      const r = await run(['analyze', BIG, SMALL, '--format', 'markdown', '--root', ROOT]);
      assert.equal(r.code, 0, r.err);
      golden('tiled_matmul.md', r.out);
    });

    it('matches the golden report for two GPUs: a column per GPU', async () => {
      const r = await run(['analyze', BIG, SMALL, '--format', 'md', '--root', ROOT, ...TWO_GPUS]);
      assert.equal(r.code, 0, r.err);
      golden('tiled_matmul.two-gpus.md', r.out);
      assert.match(r.out, /\| H100 SXM \| Instinct MI300X \|/);
      assert.match(r.out, /memory \(L2\) · 308 TFLOP\/s \(31\.1 %\) \| compute · 1\.31 PFLOP\/s \(100 %\)/);
    });

    it('is short: the tables first, details folded', async () => {
      const { out } = await run(['analyze', BIG, SMALL, '--format', 'markdown', '--root', ROOT]);
      const open = out.split('\n').filter((l) => !l.startsWith('<details>') && !l.startsWith('</details>'));
      assert.ok(out.split('\n').length < 60, `${out.split('\n').length} lines`);
      assert.equal((out.match(/<details>/g) ?? []).length, 2, 'one details block per file');
      assert.ok(open.some((l) => l.includes('`test/fixtures/review/tiled_matmul.py:37`')), 'file:line relative to the root');
      assert.match(out, /ridge points \(FLOP\/B, DRAM \/ L2\): fp16 tensor 295 \/ 102/);
      assert.match(out, /`BLOCK_K=64`, `BLOCK_M=256`, `BLOCK_N=256`, `K=4096`, `M=4096`, `N=4096` \(launch at line 66\)/);
    });
  });

  describe('SARIF', () => {
    it('matches the golden log and is valid SARIF 2.1.0', async () => {
      const r = await run(['analyze', BIG, SMALL, '--format', 'sarif', '--root', ROOT, ...TWO_GPUS]);
      assert.equal(r.code, 0, r.err);
      golden('tiled_matmul.sarif.json', r.out);
      assert.deepEqual(sarifErrors(JSON.parse(r.out)), []);
    });

    it('one result per kernel at its definition line, the verdict in the message', async () => {
      const doc = JSON.parse((await run(['analyze', SMALL, BIG, path.join(ROOT, 'test/fixtures/triton/vector_add.py'), '--format', 'sarif', '--root', ROOT])).out);
      const run0 = doc.runs[0];
      assert.equal(run0.tool.driver.name, 'roofline-lens');
      assert.ok(run0.tool.driver.version && /^https:\/\//.test(run0.tool.driver.informationUri));
      assert.deepEqual(
        run0.tool.driver.rules.map((x: { id: string }) => x.id),
        ['roofline/memory-bound-dram', 'roofline/memory-bound-l2', 'roofline/compute-bound', 'roofline/bound-unknown'],
      );
      assert.equal(run0.results.length, 3);
      const [small, big, add] = run0.results;
      assert.equal(small.ruleId, 'roofline/memory-bound-l2');
      assert.equal(small.level, 'warning');
      assert.equal(run0.tool.driver.rules[small.ruleIndex].id, small.ruleId);
      assert.deepEqual(small.locations[0].physicalLocation.artifactLocation, { uri: 'test/fixtures/review/tiled_matmul_small.py', uriBaseId: 'SRCROOT' });
      assert.equal(small.locations[0].physicalLocation.region.startLine, 38);
      assert.equal(big.ruleId, 'roofline/compute-bound');
      assert.equal(big.level, 'note');
      assert.equal(
        add.message.text,
        'add_kernel: memory-bound (DRAM) on H100 SXM — compulsory AI 0.168 FLOP/B < ridge 39.9, attainable 563 GFLOP/s (0.421 % of fp16 vector peak)',
      );
      assert.deepEqual(sarifErrors(doc), []);
    });

    it('--sarif-level sets the level of each verdict kind', async () => {
      const doc = JSON.parse((await run(['analyze', SMALL, BIG, '--format', 'sarif', '--sarif-level', 'memory=error,compute=none', '--root', ROOT])).out);
      assert.deepEqual(doc.runs[0].results.map((x: { level: string }) => x.level), ['error', 'none']);
      assert.equal(doc.runs[0].tool.driver.rules[1].defaultConfiguration.level, 'error');
      for (const bad of ['memory=fatal', 'speed=note', 'memory']) {
        const r = await run(['analyze', SMALL, '--format', 'sarif', '--sarif-level', bad]);
        assert.equal(r.code, 2, bad);
        assert.match(r.err, /--sarif-level/);
      }
    });

    it('a kernel memory-bound on any GPU is a memory-bound result, all verdicts in the message', async () => {
      const doc = JSON.parse((await run(['analyze', SMALL, '--format', 'sarif', '--root', ROOT, '--gpu', 'mi300x,h100-sxm'])).out);
      const res = doc.runs[0].results[0];
      assert.equal(res.ruleId, 'roofline/memory-bound-l2');
      assert.match(res.message.text, /^matmul_kernel: compute-bound on Instinct MI300X — .*; memory-bound \(L2\) on H100 SXM — AI 31\.8 FLOP\/B < L2 ridge 102/);
      assert.deepEqual(Object.keys(res.properties.byGpu), ['mi300x', 'h100-sxm']);
    });

    it('file diagnostics become tool notifications; paths outside the root become file: URIs', async () => {
      const broken = path.join(ROOT, 'test/fixtures/triton/broken/half_typed.py');
      const doc = JSON.parse((await run(['analyze', broken, '--format', 'sarif', '--root', REVIEW])).out);
      const n = doc.runs[0].invocations[0].toolExecutionNotifications;
      assert.ok(n.length >= 1);
      assert.equal(n[0].level, 'warning');
      assert.match(n[0].message.text, /syntax error/);
      assert.match(n[0].locations[0].physicalLocation.artifactLocation.uri, /^file:\/\/\/.*half_typed\.py$/);
      assert.deepEqual(sarifErrors(doc), []);
    });

    it('the validator rejects what the schema forbids', () => {
      const good = { version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [{ message: { text: 'm' }, level: 'warning' }] }] };
      assert.deepEqual(sarifErrors(good), []);
      const bad: [unknown, RegExp][] = [
        [{ ...good, version: '2.0.0' }, /not in \["2\.1\.0"\]/],
        [{ version: '2.1.0', runs: [{ tool: { driver: {} } }] }, /missing required name/],
        [{ version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [{ message: { text: 'm' }, level: 'fatal' }] }] }, /"fatal" not in/],
        [{ version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [{ message: { text: 'm' }, colour: 1 }] }] }, /unexpected property colour/],
        [{ version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [{ message: { text: 'm' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'a' }, region: { startLine: 0 } } }] }] }] }, /minimum 1/],
      ];
      for (const [doc, re] of bad) assert.ok(sarifErrors(doc).some((e) => re.test(e)), `${re} in ${JSON.stringify(sarifErrors(doc))}`);
    });
  });

  describe('several GPUs', () => {
    it('JSON keeps gpu (the first) and adds gpus and byGpu', async () => {
      const doc = JSON.parse((await run(['analyze', SMALL, '--format', 'json', '--gpu', 'h100-sxm,mi300x,l4'])).out);
      assert.equal(doc.gpu.id, 'h100-sxm');
      assert.deepEqual(doc.gpus.map((g: { id: string }) => g.id), ['h100-sxm', 'mi300x', 'l4']);
      const k = doc.files[0].kernels[0];
      assert.deepEqual(Object.keys(k.byGpu), ['h100-sxm', 'mi300x', 'l4']);
      assert.deepEqual(k.byGpu['h100-sxm'], { bound: k.bound, boundLevel: k.boundLevel, attainableFlops: k.attainableFlops, ridgePoint: k.ridgePoint, l2RidgePoint: k.l2RidgePoint, peak: k.peak });
      assert.equal(k.byGpu['h100-sxm'].bound, 'memory');
      assert.equal(k.byGpu.mi300x.bound, 'compute');
      assert.equal(k.byGpu.mi300x.attainableFlops, 1307.4e12);
      // L4: fp16 tensor 121 TFLOP/s, DRAM 300 GB/s: ridge 403 < compulsory AI 1365 → compute-bound.
      assert.equal(k.byGpu.l4.bound, 'compute');
      assert.ok(Math.abs(k.byGpu.l4.ridgePoint - 121e12 / 300e9) < 1e-9);
    });

    it('one GPU: the JSON has neither gpus nor byGpu (schema unchanged)', async () => {
      const doc = JSON.parse((await run(['analyze', SMALL, '--format', 'json', '--gpu', 'mi300x'])).out);
      assert.equal(doc.gpu.id, 'mi300x');
      assert.equal('gpus' in doc, false);
      assert.equal('byGpu' in doc.files[0].kernels[0], false);
    });

    it('text has a column per GPU; repeated and aliased GPUs count once', async () => {
      const { out } = await run(['analyze', SMALL, '--gpu', 'h100', '--gpu', 'h100-sxm,mi300x']);
      assert.match(out, /matmul_kernel .* memory \(L2\) 308 TFLOP\/s 31\.1 % +compute 1\.31 PFLOP\/s 100 %/);
      assert.equal((out.match(/^GPU: /gm) ?? []).length, 2);
    });
  });
});
