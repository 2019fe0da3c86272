/**
 * The hand-checked accuracy set, without the corpora: cases.json is well
 * formed, has 40 cases in the language mix, and every `derive` string
 * evaluates to its expected number. The runner (`npm run accuracy`) is what
 * compares the analysis against these numbers.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bindingArgs, corpusDir, evalArithmetic, evalDerive, validateCase, validateCaseFile, within10, type AccuracyCase, type CaseFile } from './casefile';

const FILE = path.join(__dirname, 'cases.json');
const load = (): CaseFile => JSON.parse(fs.readFileSync(FILE, 'utf8')) as CaseFile;

describe('accuracy set: cases.json', () => {
  it('is valid: schema, 40 cases, the language mix, every derivation equals its number', () => {
    assert.deepEqual(validateCaseFile(load()), []);
  });

  it('has 22 Triton, 10 CUDA and 8 WGSL cases from well-known and less-known projects', () => {
    const { cases } = load();
    const by = (k: keyof AccuracyCase, v: string): number => cases.filter((c) => c[k] === v).length;
    assert.deepEqual([by('language', 'triton'), by('language', 'cuda'), by('language', 'wgsl')], [22, 10, 8]);
    assert.ok(by('familiarity', 'less-known') >= 12, 'at least 12 less-known cases');
    assert.ok(new Set(cases.map((c) => c.project)).size >= 12, 'at least 12 projects');
  });

  it('covers the issue-13 patterns it was built for', () => {
    const all = load().cases.flatMap((c) => c.patterns.map((p) => p.split(/[\s(]/)[0]));
    for (const p of ['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7', 'P9']) assert.ok(all.includes(p), `no case exercises ${p}`);
  });

  it('stores no source code: every text field is prose or arithmetic, short', () => {
    for (const c of load().cases) {
      for (const t of [...c.notes, ...Object.values(c.derive)]) {
        assert.ok(t.length < 800, `${c.id}: a note or derivation of ${t.length} characters`);
        assert.ok(!/^\s*(def |@triton|__global__|fn |import )/m.test(t), `${c.id}: looks like code: ${t.slice(0, 60)}`);
      }
    }
  });
});

describe('accuracy set: derivation arithmetic', () => {
  it('evaluates numbers, + − × * · / and parentheses with the usual precedence', () => {
    assert.equal(evalArithmetic('2 + 3 × 4'), 14);
    assert.equal(evalArithmetic('(2 + 3) · 4 − 6 / 3'), 18);
    assert.equal(evalArithmetic('-2 * -3'), 6);
    assert.equal(evalArithmetic('1.5 * 4'), 6);
  });

  it('ignores [comments], also nested ones', () => {
    assert.equal(evalArithmetic('4096×2 [x bf16] + 1×2 [X[y] bf16]'), 8194);
  });

  it('checks every `= N` in a chain', () => {
    assert.equal(evalDerive('64 × 2 = 128'), 128);
    assert.equal(evalDerive('3 + 1 = 2 × 2 = 4'), 4);
    assert.equal(evalDerive('2 [acc += x] + 2 [y = z] = 4'), 4);
    assert.throws(() => evalDerive('64 × 2 = 129'), /not 129/);
  });

  it('refuses anything but arithmetic', () => {
    assert.throws(() => evalArithmetic('process.exit(1)'), /unexpected 'p'/);
    assert.throws(() => evalArithmetic('2 ** 3'), /unexpected/);
    assert.throws(() => evalArithmetic('2 + [unclosed'), /unclosed/);
    assert.throws(() => evalArithmetic('2 + ] 3'), /unbalanced/);
    assert.throws(() => evalArithmetic('(2 + 3'), /missing '\)'/);
    assert.throws(() => evalArithmetic('1 / 0'), /division by zero/);
    assert.throws(() => evalArithmetic('[only a comment]'), /empty/);
    assert.throws(() => evalArithmetic('1.2.3'), /bad number/);
  });
});

describe('accuracy set: the validator catches mistakes', () => {
  const good = (): AccuracyCase => structuredClone(load().cases[0]);

  it('a derivation that does not equal its expected number', () => {
    const c = good();
    c.expected.flops += 1;
    assert.match(validateCase(c).join('\n'), /derive\.flops evaluates to \d+, expected\.flops is \d+/);
  });

  it('a malformed flag, commit or language', () => {
    const c = good();
    c.bindings = [...c.bindings, '--set K 4096'];
    c.commit = 'abc';
    c.language = 'cuda';
    const errs = validateCase(c).join('\n');
    assert.match(errs, /--set K 4096/);
    assert.match(errs, /commit/);
    assert.match(errs, /extension does not match/);
  });

  it('the wrong number of cases or a lopsided language mix', () => {
    const doc = load();
    doc.cases = doc.cases.filter((c) => c.language !== 'wgsl');
    const errs = validateCaseFile(doc).join('\n');
    assert.match(errs, /40 cases/);
    assert.match(errs, /wgsl: 0 cases/);
  });

  it('duplicate ids', () => {
    const doc = load();
    doc.cases[1] = { ...doc.cases[1], id: doc.cases[0].id };
    assert.match(validateCaseFile(doc).join('\n'), /duplicate id/);
  });
});

describe('accuracy set: scoring helpers', () => {
  it('within10: ±10 %, exact for 0, null and NaN miss', () => {
    assert.equal(within10(100, 110), true);
    assert.equal(within10(100, 89), false);
    assert.equal(within10(0, 0), true);
    assert.equal(within10(0, 1), false);
    assert.equal(within10(100, null), false);
    assert.equal(within10(100, Number.NaN), false);
  });

  it('turns bindings into argv and projects into corpus folders', () => {
    assert.deepEqual(bindingArgs(['--set K=4096', '--grid 2,3']), ['--set', 'K=4096', '--grid', '2,3']);
    assert.equal(corpusDir('linkedin/Liger-Kernel'), 'linkedin+Liger-Kernel');
  });
});
