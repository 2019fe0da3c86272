/**
 * The message registry (src/core/messages.ts): every sentence renders from
 * arguments of its declared types without `undefined` or `[object …]`, reads
 * as the rest do (lower-case start, no trailing period), every message that
 * costs a kernel its completeness has a phrase for the lens and a row in
 * docs/counting.md, and every id is said somewhere in src/.
 *
 * The sample arguments are typed by the registry, so a new message fails to
 * compile here until it has its sample: its wording is then checked too.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ASSUMPTIONS, MESSAGES, assumption, lossOf, reasonPhrase, say, type AssumptionId, type MessageId } from '../src/core/messages';

type MessageSamples = { [K in MessageId]: Parameters<(typeof MESSAGES)[K]['text']> };
type AssumptionSamples = { [K in AssumptionId]: Parameters<(typeof ASSUMPTIONS)[K]> };

const MESSAGE_SAMPLES: MessageSamples = {
  binaryInput: [],
  parserGaveUp: ['Triton'],
  parseError: ['unexpected `)` at line 4'],
  noKernels: ['CUDA'],
  kernelsNotFound: ['Triton', '2 @triton.jit functions'],
  stale: ['add_kernel'],
  includeNotRead: ['common.h'],
  includeMacrosOnly: ['common.h'],
  importNotRead: ['config', 'config.wgsl, shared/config.wgsl'],
  shaderDefine: ['msaa16', false],
  interpolation: ['WORKGROUP'],
  unresolvedCode: ['shaderCode'],
  shaderFromFunction: ['makeShader'],
  shaderFromName: ['shaderCode'],
  interpolationParam: ['wg_size', 'wg_size', 'wg_size_param'],
  skippedElementwise: ['add_func', 'pointwise_dynamic'],
  unboundLoop: ['K'],
  unbound: [['M', 'N']],
  undefinedName: ['TILE'],
  unknownIdent: ['foo'],
  unusedSet: ['BLOK'],
  unknownDtype: ['x_ptr'],
  dtypeIgnored: ['data', 'fp8e4m3'],
  autotune: ['matmul_kernel'],
  workgroupSize: ['WG, 1'],
  workgroupSizeInvalid: ['.5'],
  blockSizeInvalid: ['blockDim.x', '0'],
  setSizeInvalid: ['blockDim.x', '0'],
  noWorkgroupSize: ['main'],
  dispatchUnresolved: ['n / 64'],
  badArange: ['0', 'BLOCK - 100', -36],
  unknownCondition: ['EVEN_K'],
  dataBranch: ['x > 0'],
  threadCondition: ['tid % s == 0'],
  firstUnitOnly: ['col == 0', ['num_workgroups.x']],
  unknownCall: ['libdevice.foo', 'define it in this file or bind its cost'],
  unknownPointerCall: ['helper', 'define it in this file'],
  unknownMember: ['cfg.scale'],
  unattributedLoad: ['tl.load(p)', 'derive the pointer from a pointer argument'],
  unattributedStore: ['tl.store(p, x)', 'derive the pointer from a pointer argument'],
  unknownDotShape: ['tl.dot(a, b)'],
  unknownDescriptor: ['desc'],
  unknownType: ['pathtags', 'TagMonoid'],
  unknownTexture: ['textureLoad(t, p, 0)', 'a texture the analysis cannot follow'],
  lambda: [],
  rangeFor: [],
  inlineAsm: ['mov.u32 %0, %1;'],
  fragmentUnknown: ['wmma::load_matrix_sync'],
  ppUnknown: ['defined(FOO) && BAR > 2'],
  ppUndefined: ['USE_FAST_MATH'],
  recursion: ['walk'],
  depthLimit: ['calls'],
  budget: [],
  syntaxErrorInKernel: ['scale_kernel', 12, 2],
  kernelTruncated: ['big_kernel'],
  partial: [3, 12],
  pipelinesPending: [],
  scanPending: [1200, 5000],
  tooLarge: [50000],
  overflow: [['FLOPs', 'loadBytes']],
  internal: ['TypeError: cannot read properties of null'],
  unreadable: ['k.cu', 'EACCES'],
  notAnalysed: ['binary file'],
  structLayoutUnknown: ['Particle', 'Particle'],
  cudaArch: [900, 'sm_90'],
  cudaArchUnknown: ['MI300X', '__CUDA_ARCH__ >= 800'],
};

const ASSUMPTION_SAMPLES: AssumptionSamples = {
  interiorTile: [],
  texelCuda: ['tex2D', 'texRef', 4, 'float'],
  earlyExit: ['if pid >= n: return', 12],
  spinWait: ['while (atomicCAS(lock, 0, 1) != 0)', 12],
  interiorElse: ['if i >= n', 3],
  branchTaken: ['if x > 0', 14],
  periodicBranch: ['if ki == k_tiles - 1', 12, 'ki', 'cdiv(K, BK)'],
  costlierArm: ['if x > 0 … else', 14],
  costlierChoice: ['if EVEN_K', 20, '`EVEN_K`'],
  persistentLoop: [8, 'cdiv(n, P)'],
  unitDependentTrips: [9, '(P − 1) / 2'],
  threadDependentTrips: [10, 'cdiv(n, 256)'],
  tripsPow2: [12, 'log2(n)'],
  geometricSymbolic: [13, 'log2(s)'],
  laneUncountable: [],
  maskMinBound: ['n_cols', '781', '1024'],
  elemAssumedFp32: ['x_ptr'],
  elemFromCast: ['out_ptr', 'fp16'],
  templateTypeFp32: ['T'],
  tf32Dot: [],
  ieeeDot: [],
  int8Dot: [],
  dotAccumulate: [],
  atomics: [],
  namedMath: ['fast_expf', 'exp'],
  namedLibrary: ['uint_to_uniform_float', 'tl.uint_to_uniform_float'],
  autotuneFirst: [],
  pointerNonNull: [],
  subgroup32: [],
  textureFormat: ['inputTex'],
  staleResult: [],
  indexIsInteger: ['idx'],
  hostSizes: ['matmul(a, b) at line 40'],
  footprintWhole: ['x_ptr', 7, 'is not affine in the program id'],
  armChosen: ['if USE_BIAS', 22, 'the then arm', 'the else arm', 'compile', true],
  peakFallback: ['fp8 has no vector peak on this GPU: the fp16 vector peak is used'],
};

function wellFormed(where: string, s: string): void {
  assert.ok(s.length > 0, `${where}: empty`);
  assert.doesNotMatch(s, /undefined|NaN|\[object /, `${where}: ${s}`);
  assert.doesNotMatch(s, /\.$/, `${where} ends with a period: ${s}`);
  assert.doesNotMatch(s, /^[A-Z][a-z]/, `${where} starts with a capital (messages follow a location or a bullet): ${s}`);
  assert.doesNotMatch(s, / {2}|\n/, `${where} has a double space or a line break: ${s}`);
  assert.equal((s.match(/`/g) ?? []).length % 2, 0, `${where} has an unbalanced backtick: ${s}`);
}

/** Every file of src/, for the "said somewhere" check. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.tsx?$/.test(e.name) ? [fs.readFileSync(p, 'utf8')] : [];
  });
}

describe('messages: the one registry', () => {
  it('every message renders from its sample arguments and reads like the others', () => {
    for (const id of Object.keys(MESSAGES) as MessageId[]) {
      const d = (say as (id: MessageId, line: number, ...a: unknown[]) => ReturnType<typeof say>)(id, 3, ...MESSAGE_SAMPLES[id]);
      assert.equal(d.code, id);
      assert.equal(d.severity, MESSAGES[id].severity);
      wellFormed(`message ${id}`, d.message);
    }
  });

  it('every assumption renders and reads like the others', () => {
    for (const id of Object.keys(ASSUMPTIONS) as AssumptionId[]) {
      if (id === 'peakFallback') continue; // the GPU table's own note, passed through
      const a = (assumption as (id: AssumptionId, ...a: unknown[]) => ReturnType<typeof assumption>)(id, ...ASSUMPTION_SAMPLES[id]);
      assert.equal(a.id, id);
      wellFormed(`assumption ${id}`, a.text);
    }
  });

  it('a message that costs completeness has a lens phrase and a row in docs/counting.md', () => {
    const doc = fs.readFileSync(path.join(__dirname, '..', 'docs', 'counting.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Honesty: what `complete: false` means here'));
    assert.ok(section.length > 100, 'docs/counting.md has the honesty table');
    for (const id of Object.keys(MESSAGES) as MessageId[]) {
      if (!lossOf(id)) continue;
      assert.notEqual(reasonPhrase(id, 2), id, `${id} has no phrase for the lens (REASONS in messages.ts)`);
      assert.match(reasonPhrase(id, 1), /^(1 |[a-z])/, `${id}: ${reasonPhrase(id, 1)}`);
      assert.ok(section.includes('`' + id + '`'), `${id} costs completeness but is not in the honesty table of docs/counting.md`);
    }
  });

  it('a message that asks for a binding says how to give it', () => {
    for (const id of ['unboundLoop', 'unbound', 'undefinedName', 'unknownDtype', 'unknownDescriptor'] as const) {
      const m = (say as (id: MessageId, line: number, ...a: unknown[]) => ReturnType<typeof say>)(id, 1, ...MESSAGE_SAMPLES[id]).message;
      assert.match(m, /--set|--dtype/, `${id}: ${m}`);
    }
  });

  it('every message and assumption is said somewhere in src/ (no dead wording)', () => {
    const src = sources(path.join(__dirname, '..', 'src'))
      .filter((t) => !t.includes('export const MESSAGES = {'))
      .join('\n');
    const dead = [...Object.keys(MESSAGES), ...Object.keys(ASSUMPTIONS)].filter((id) => !src.includes(`'${id}'`));
    assert.deepEqual(dead, []);
  });
});
