/**
 * Every user-facing sentence of the analysis, once, behind a stable id: the
 * diagnostics (with their severity) and the assumptions the hover lists.
 * Tests assert on the ids (`expect-diagnostic: unknownCall`); one test checks
 * the wording (test/messages.test.ts). Frontends and the engine never write
 * free text for the user: they name an id and its arguments.
 *
 * The profile importer keeps its own registry (profile/messages.ts) with the
 * same shape.
 */
export type Severity = 'error' | 'warning' | 'info';

/** One message about a file or a kernel. */
export interface Diagnostic {
  /** 1-based line in the analysed file. */
  line: number;
  severity: Severity;
  message: string;
  /** Stable id from this registry. */
  code: string;
}

type Text = (...args: never[]) => string;
interface Def<T extends Text> {
  severity: Severity;
  text: T;
  /**
   * What a kernel loses when this is said about it: its FLOPs or bytes are
   * then only a lower bound (`complete: false`). Absent: nothing is lost.
   */
  loses?: 'flops' | 'bytes' | 'all';
}
const d = <T extends Text>(severity: Severity, text: T, loses?: Def<T>['loses']): Def<T> => ({ severity, text, ...(loses ? { loses } : {}) });

const bt = (s: string) => '`' + s + '`';

export const MESSAGES = {
  // ---------------------------------------------------------------- input
  binaryInput: d('warning', () => `file does not look like text (binary bytes): not analysed`),
  parserGaveUp: d('warning', (lang: string) => `the ${lang} parser gave up on this file (its time budget): not analysed; try again or split the file`),
  parseError: d('warning', (what: string) => `syntax error: ${what}; counts below cover only what could be read`),
  noKernels: d('info', (lang: string) => `no ${lang} kernels found in this file`),
  kernelsNotFound: d('warning', (lang: string, defs: string) =>
    `the file defines ${defs} but no ${lang} kernel could be read: check the syntax errors above`),
  stale: d('warning', (name: string) => `${bt(name)} does not parse now: showing its last good analysis (stale)`),
  shaderDefine: d('info', (name: string, on: boolean) =>
    on
      ? `${bt('#ifdef ' + name)}: ${bt(name)} is set, so the shader is read as a build that defines it`
      : `${bt('#ifdef ' + name)}: ${bt(name)} is not defined here, so the shader is read as a build without it; --set ${name}=1 reads it with`),
  importNotRead: d('info', (spec: string, tried: string) =>
    `${bt(`#import ${spec}`)} is not read${tried ? ` (not found at ${tried})` : ' (no file text was supplied)'}: types and functions defined there are unknown here`),
  includeNotRead: d('info', (path: string) => `${bt(`#include "${path}"`)} is not analysed: macros and helpers defined there are unknown here`),
  includeMacrosOnly: d('info', (path: string) =>
    `${bt(`#include "${path}"`)} is read for its macros only (past the first 16 headers, which are read whole): helpers and types defined there are unknown here`),
  interpolation: d('warning', (expr: string) =>
    `embedded WGSL skipped: cannot resolve the interpolation ${bt('${' + expr + '}')} (only consts declared in this file with a literal value are substituted)`),
  unresolvedCode: d('info', (what: string) => `createShaderModule code ${bt(what)} is not a literal in this file: not analysed`),
  shaderFromName: d('info', (name: string) => `WGSL held in ${bt(name)} is analysed as written (interpolations in it are resolved from this file only)`),
  interpolationParam: d('info', (expr: string, param: string, symbol: string) =>
    `the interpolation ${bt('${' + expr + '}')} uses ${bt(param)}, a parameter of the function that builds the shader: kept as the symbol ${bt(symbol)}; bind it with --set ${symbol}=…`),
  shaderFromFunction: d('info', (fn: string) => `WGSL returned by ${bt(fn + '()')} is analysed as written (interpolations in it are resolved from this file only)`),
  skippedElementwise: d('warning', (name: string, decorator: string) =>
    `${bt(name)} is a ${bt('@' + decorator)} element function (the library generates its kernel at run time): not analysed as a kernel`),

  // ---------------------------------------------------------------- bindings
  unboundLoop: d('info', (name: string) => `cannot estimate: loop bound ${bt(name)} unknown; bind it with --set ${name}=… or rooflineLens.bindings`),
  unbound: d('info', (names: string[]) =>
    `cannot estimate: ${names.map(bt).join(', ')} unknown; bind ${names.length > 1 ? 'them' : 'it'} with --set ${names[0]}=… or rooflineLens.bindings`),
  undefinedName: d('info', (name: string) => `${bt(name)} is not defined in this file (a macro from a header?): kept as a symbol; bind it with --set ${name}=…`),
  unknownIdent: d('warning', (name: string) => `unknown identifier ${bt(name)}: treated as a run-time value`),
  unusedSet: d('warning', (name: string) => `--set ${name}: no kernel in the analysed files uses ${bt(name)} (a typo?)`),
  unknownDtype: d('info', (name: string) => `element type of ${bt(name)} unknown: assumed fp32 (set it with --dtype ${name}=…)`),
  dtypeIgnored: d('warning', (name: string, dtype: string) => `--dtype ${name}=${dtype}: WGSL has no such type for a buffer; ignored`),
  autotune: d('info', (kernel: string) =>
    `autotune configs of ${bt(kernel)} are computed, not a literal list: bind the tile sizes with --set (e.g. the config you expect autotuning to pick)`),
  workgroupSize: d('warning', (what: string) => `cannot evaluate @workgroup_size(${what}): counted as a symbol`),
  workgroupSizeInvalid: d('warning', (what: string) => `@workgroup_size(${what}) is not a whole number of at least 1 (such a shader does not compile): counted as a symbol`),
  blockSizeInvalid: d('warning', (name: string, value: string) => `the launch gives ${name} = ${value}, not a whole number of at least 1 (such a launch fails): left a symbol to bind`),
  setSizeInvalid: d('warning', (name: string, value: string) => `--set ${name}=${value}: a unit's size is a whole number of at least 1; not taken`),
  noWorkgroupSize: d('warning', (name: string) => `${bt(name)} has no @workgroup_size: assumed 1×1×1`),
  dispatchUnresolved: d('info', (text: string) => `dispatchWorkgroups(${text}): the size is not a constant of this file; give --grid`),
  badArange: d('warning', (start: string, end: string, n: number) =>
    `tl.arange(${start}, ${end}) has ${n} elements with these bindings: a block needs a whole, non-negative size; its counts are unknown`, 'all'),

  // ---------------------------------------------------------------- conditions
  unknownCondition: d('info', (cond: string) =>
    `condition ${bt(cond)} depends on a compile-time value that is not bound: the costlier branch is counted (upper bound); bind it to decide`),
  dataBranch: d('info', (cond: string) => `data-dependent branch ${bt(cond)}: the costlier arm is counted (upper bound)`),
  firstUnitOnly: d('warning', (cond: string, axes: readonly string[]) =>
    `${bt(cond)} holds only in the first unit along an axis of unknown size: a typical unit skips it and its work is not counted; if the launch has one unit along it, bind it with --set ${axes[0]}=1 or rooflineLens.bindings`),
  threadCondition: d('info', (cond: string) => `thread condition ${bt(cond)} could not be counted by thread: all active threads counted`),

  // ---------------------------------------------------------------- what could not be counted
  unknownCall: d('warning', (name: string, fix: string) =>
    `unknown call ${bt(name)}: counted as 0 FLOPs and 0 bytes (its result keeps the shape of its arguments, so the arithmetic around it still counts); ${fix}`, 'flops'),
  unknownPointerCall: d('warning', (name: string, fix: string) =>
    `unknown call ${bt(name)} takes a pointer: its loads, stores and FLOPs are not counted; ${fix}`, 'all'),
  unknownType: d('warning', (name: string, type: string) =>
    `${bt(name)} has a type this file does not fully define (${bt(type)}; an #import?): its reads and writes count 4 B per element`, 'bytes'),
  unknownTexture: d('warning', (call: string, what: string) =>
    `${bt(call)} on ${bt(what)}: not a texture the analysis can follow (a module-scope texture, a binding_array element, a texel_buffer); its texels are not counted`, 'bytes'),
  unknownMember: d('warning', (what: string) => `member ${bt(what)} of a value the analysis does not know: counted as 0`, 'flops'),
  unattributedLoad: d('warning', (what: string, fix: string) => `load ${bt(what)} is not derived from a pointer argument: its bytes are not counted; ${fix}`, 'bytes'),
  unattributedStore: d('warning', (what: string, fix: string) => `store ${bt(what)} is not derived from a pointer argument: its bytes are not counted; ${fix}`, 'bytes'),
  unknownDotShape: d('warning', (what: string) => `${bt(what)}: operands of unknown shape, its FLOPs are not counted; bind the tile sizes of its operands`, 'flops'),
  unknownDescriptor: d('warning', (name: string) =>
    `tensor descriptor ${bt(name)} has an unknown block shape: its bytes are not counted; bind it with --set ${name}.block_shape=128,64`, 'bytes'),
  structLayoutUnknown: d('warning', (struct: string, what: string) =>
    `the layout of ${bt(struct)} is not known here (${what} is defined in a file the analysis does not read): the bytes of this access are not counted exactly`, 'bytes'),
  lambda: d('warning', () => `lambda expressions are not analysed: counted as 0`, 'all'),
  rangeFor: d('warning', () => `range-based ${bt('for')} is not analysed: its body is counted once`, 'all'),
  inlineAsm: d('warning', (what: string) => `inline assembly ${bt(what)} is not analysed: counted as 0`, 'all'),
  fragmentUnknown: d('warning', (what: string) => `${bt(what)} on a fragment or pointer the analysis cannot follow: counted as 0`, 'all'),
  ppUnknown: d('info', (cond: string) => `${bt('#if ' + cond)} cannot be evaluated: the ${bt('#if')} branch is analysed`),
  ppUndefined: d('info', (name: string) => `${bt('#if')} uses ${bt(name)}, which this file does not define: taken as 0 (set it with --set ${name}=…)`),
  cudaArch: d('info', (value: number, from: string) =>
    `${bt('__CUDA_ARCH__')} is ${value} (${from}, the selected GPU): the device code for that architecture is analysed; set another with --set __CUDA_ARCH__=…`),
  cudaArchUnknown: d('warning', (gpu: string, cond: string) =>
    `${bt('__CUDA_ARCH__')} has no value for ${gpu}: ${bt('#if ' + cond)} cannot be decided and its first branch is analysed; set the target with --set __CUDA_ARCH__=800 (sm_80) or pick an NVIDIA GPU with --gpu`),
  recursion: d('warning', (name: string) => `recursive call to ${bt(name)} not inlined: counted as 0`, 'all'),
  depthLimit: d('warning', (what: string) => `${what} nested too deeply to follow: counted as 0`, 'all'),
  budget: d('warning', () => `the file-level analysis stopped at its budget: later kernels or launches may be missing`),
  syntaxErrorInKernel: d('warning', (name: string, line: number, more: number) =>
    `${bt(name)} holds a syntax error (line ${line}${more ? ` and ${more} more` : ''}): its counts cover only what could be read; fix the syntax to get its numbers`, 'all'),
  kernelTruncated: d('warning', (name: string) =>
    `${bt(name)} was cut short by the analysis budget: no numbers are shown (they would be too small); analyse it alone or with fewer kernels per file`, 'all'),
  partial: d('info', (done: number, total: number) => `analysed ${done} of ${total} kernels in this time slice; the rest follow`),
  pipelinesPending: d('info', () => 'every kernel is analysed; the launch pipelines follow in the next time slice'),
  scanPending: d('info', (read: number, of: number) => `reading the file: ${read} of ${of} steps in this time slice; its kernels follow`),
  tooLarge: d('warning', (lines: number) => `file has ${lines} lines: analysed up to the budget; later kernels may be missing`),
  overflow: d('warning', (what: readonly string[]) => `${what.join(', ')} too large to represent (beyond 1.8e308) with these bindings: shown as unknown`),
  internal: d('error', (what: string) => `internal error: ${what}`, 'all'),
  unreadable: d('error', (file: string, why: string) => `cannot read ${file}: ${why}`),
  notAnalysed: d('error', (reason: string) => `not analysed: ${reason}`),
} as const;

export type MessageId = keyof typeof MESSAGES;
type Args<K extends MessageId> = Parameters<(typeof MESSAGES)[K]['text']>;

/** The sentence of a message. */
export function text<K extends MessageId>(id: K, ...args: Args<K>): string {
  return (MESSAGES[id].text as (...a: unknown[]) => string)(...args);
}

/** A diagnostic with the registry's severity. */
export function say<K extends MessageId>(id: K, line: number, ...args: Args<K>): Diagnostic {
  return { code: id, line, severity: MESSAGES[id].severity, message: text(id, ...args) };
}

/** What a message costs a kernel's counts (`complete: false`), if anything. */
export function lossOf(id: string): 'flops' | 'bytes' | 'all' | undefined {
  const def = (MESSAGES as Record<string, Def<Text>>)[id];
  return def?.loses;
}

/**
 * What a reason for incompleteness is called where the number is shown (the
 * lens, the hover, the CLI): `2 unknown calls`, `1 store not counted`.
 */
const REASONS: Partial<Record<MessageId, [string, string]>> = {
  unknownCall: ['unknown call', 'unknown calls'],
  unknownPointerCall: ['unknown call taking a pointer', 'unknown calls taking a pointer'],
  unknownMember: ['unknown member', 'unknown members'],
  unattributedLoad: ['load not counted', 'loads not counted'],
  unattributedStore: ['store not counted', 'stores not counted'],
  unknownDotShape: ['dot of unknown shape', 'dots of unknown shape'],
  unknownDescriptor: ['descriptor of unknown block shape', 'descriptors of unknown block shape'],
  unknownType: ['buffer of an imported type', 'buffers of imported types'],
  unknownTexture: ['texture not followed', 'textures not followed'],
  structLayoutUnknown: ['struct layout unknown', 'struct layouts unknown'],
  lambda: ['lambda not analysed', 'lambdas not analysed'],
  rangeFor: ['range-for counted once', 'range-fors counted once'],
  inlineAsm: ['inline assembly not counted', 'inline assemblies not counted'],
  fragmentUnknown: ['fragment not followed', 'fragments not followed'],
  recursion: ['recursive call not inlined', 'recursive calls not inlined'],
  depthLimit: ['too deep to follow', 'too deep to follow'],
  badArange: ['block of no size', 'blocks of no size'],
  syntaxErrorInKernel: ['syntax error', 'syntax errors'],
  kernelTruncated: ['cut short by the analysis budget', 'cut short by the analysis budget'],
  internal: ['internal error', 'internal errors'],
};

/** `2 unknown calls`, `1 store not counted` (the id itself for a reason this table does not name). */
export function reasonPhrase(id: string, n: number): string {
  const r = REASONS[id as MessageId];
  if (!r) return id;
  const countless = id === 'kernelTruncated' || id === 'depthLimit';
  return countless ? r[0] : `${n} ${n === 1 ? r[0] : r[1]}`;
}

// ---------------------------------------------------------------------------
// Assumptions: what the hover lists under "assumes".

export const ASSUMPTIONS = {
  interiorTile: () => 'masks and bounds checks are true (interior tile)',
  earlyExit: (what: string, line: number) => `early exit ${bt(what)} (line ${line}) not taken`,
  spinWait: (what: string, line: number) =>
    `${bt(what)} (line ${line}) only tests its condition (a spin-wait): counted as one test, the uncontended case`,
  interiorElse: (what: string, line: number) => `${bt(what)} (line ${line}) fails inside the tile: its else arm is counted (interior tile)`,
  branchTaken: (what: string, line: number) => `data-dependent branch ${bt(what)} (line ${line}) counted as taken (upper bound)`,
  periodicBranch: (what: string, line: number, counter: string, period: string) =>
    `${bt(what)} (line ${line}) holds once every ${period} trips: ${bt(counter)} counts 0, 1, … and wraps at ${period}; its arm is counted on 1 trip in ${period}`,
  costlierArm: (what: string, line: number) => `data-dependent ${bt(what)} (line ${line}): the costlier arm is counted (upper bound)`,
  costlierChoice: (what: string, line: number, names: string) =>
    `${bt(what)} (line ${line}) depends on ${names}, not bound: the costlier choice is counted; bind it to decide`,
  persistentLoop: (line: number, trips: string) => `persistent loop (line ${line}): trips averaged over programs, ${trips}`,
  unitDependentTrips: (line: number, trips: string) => `trip count of the loop at line ${line} depends on the unit index: averaged over units, ${trips}`,
  threadDependentTrips: (line: number, trips: string) =>
    `loop at line ${line} starts at a thread-dependent index: counted with the first thread's trip count, ${trips}`,
  tripsPow2: (line: number, trips: string) => `trip count of the loop at line ${line} (${trips}) assumes power-of-two bounds`,
  geometricSymbolic: (line: number, trips: string) =>
    `loop at line ${line}: its ${trips} geometric steps are kept symbolic (bounds unknown); conditions on its variable use the variable's mean`,
  laneUncountable: () => 'a condition on the local invocation id or a loop counter could not be evaluated: counted for every invocation (upper bound)',
  maskMinBound: (bound: string, lanes: string, block: string) => `mask ${bt('< ' + bound)} covers ${lanes} of ${block} lanes: counted min(block, bound)`,
  elemAssumedFp32: (name: string) => `element type of ${bt(name)} assumed fp32 (set it with --dtype ${name}=…)`,
  elemFromCast: (name: string, dtype: string) => `element type of ${bt(name)} taken from the cast of the stored value (${dtype})`,
  templateTypeFp32: (name: string) => `template type ${bt(name)} assumed fp32`,
  tf32Dot: () => "fp32 tl.dot uses tf32 tensor cores (Triton's default input_precision)",
  ieeeDot: () => 'fp32 tl.dot with input_precision="ieee" runs on CUDA cores (vector fp32 peak)',
  int8Dot: () => 'int8 matrix products run on the int8 tensor-core peak: intensity in OP/B',
  dotAccumulate: () => '`acc += tl.dot(…)` fused into the dot (its add is the MMA accumulation: no extra FLOPs)',
  atomics: () => 'atomics count one store of each element (done in L2) and one load when the old value is used; 0 FLOPs (integer ones: 1 integer op)',
  namedMath: (name: string, what: string) => `${bt(name)} counted as the math function its name says (${what})`,
  namedLibrary: (name: string, what: string) => `${bt(name)} (imported from another module) counted as Triton's ${bt(what)}, whose name it has`,
  autotuneFirst: () => 'tile sizes from the first autotune config (autotuning may pick another)',
  pointerNonNull: () => 'pointer arguments assumed non-null',
  texelCuda: (call: string, name: string, bytes: number, type: string) =>
    `${bt(call)} on ${bt(name)}: one texel of ${type} (${bytes} B) per thread, a global ${call.includes('write') ? 'store' : 'load'} (filtering costs 0; set the texel type with --dtype ${name}=…)`,
  subgroup32: () => 'subgroup reductions assume 32-wide subgroups: 31 operations per subgroup',
  textureFormat: (name: string) =>
    `texel format of ${bt(name)} is not in its WGSL type: assumed rgba8unorm (4 B per texel); set it with --dtype ${name}=rgba16float (8 B) or =rgba32float (16 B)`,
  staleResult: () => 'stale: showing the last good analysis (the function does not parse now)',
  indexIsInteger: (name: string) => `${bt(name)} is used as an index: read as integers, not data to compute on`,
  hostSizes: (what: string) => `sizes from the host code: ${what}`,
  footprintWhole: (target: string, line: number, why: string) =>
    `compulsory traffic: the index of ${bt(target)} (line ${line}) ${why}; assumed to touch the whole array`,
  armChosen: (what: string, line: number, arm: string, others: string, why: 'data' | 'compile' | 'index', probed: boolean) =>
    `${bt(what)} (line ${line}): the costlier arm, ${arm}, is counted${others ? ` (not ${others})` : ''} — ${
      why === 'data'
        ? 'the condition depends on data (upper bound)'
        : why === 'index'
          ? 'the condition compares two indices (a diagonal or causal mask), so tiles on either side take different arms (upper bound)'
          : 'a compile-time value is not bound (bind it to decide)'
    }${probed ? '; arms compared with unbound sizes at 1024' : ''}`,
  peakFallback: (note: string) => note,
} as const;

export type AssumptionId = keyof typeof ASSUMPTIONS;

export interface Assumption {
  id: AssumptionId;
  text: string;
}

export function assumption<K extends AssumptionId>(id: K, ...args: Parameters<(typeof ASSUMPTIONS)[K]>): Assumption {
  return { id, text: (ASSUMPTIONS[id] as (...a: unknown[]) => string)(...args) };
}

// ---------------------------------------------------------------------------
// Pipelines (docs/pipelines.md): how often a launch runs, why it has no
// numbers, and the notes under a pipeline's totals.

export const PIPELINE_TEXT = {
  // how often a launch runs (repeatNote)
  loopRuns: (loop: string, line: number, n: number) => `${bt(loop)} (line ${line}) runs ${n} times`,
  loopRunsSet: (loop: string, line: number, n: number, names: string) => `${bt(loop)} (line ${line}) runs ${n} times (${names} from --set)`,
  loopUnknown: (loop: string, line: number) => `the trip count of ${bt(loop)} (line ${line}) is unknown`,
  loopUnknownAt: (line: number) => `the trip count of the loop at line ${line} is unknown`,
  whileUnknown: (kind: string, line: number) => `a ${bt(kind)} loop (line ${line}) runs an unknown number of times`,
  ifUndecided: (cond: string, line: number) => `inside ${bt('if ' + cond)} (line ${line}), not decided: counted as taken`,
  switchUndecided: (cond: string, line: number) => `inside ${bt('switch ' + cond)} (line ${line}), not decided: its first case that launches counted`,
  // the per-launch analysis (LaunchInputs.label, shown in the bindings' details)
  launchLabel: (line: number) => `pipeline launch at line ${line}`,
  // why a launch has no numbers (unresolved)
  cannotAnalyse: () => 'the launch cannot be analysed',
  notAnalysed: (kernel: string) => `kernel ${bt(kernel)} not analysed`,
  kernelNotFound: (kernel: string) => `kernel ${bt(kernel)} not found in this file`,
  kernelFailed: () => 'the analysis of the kernel failed',
  launchTruncated: () => 'the analysis of this launch was cut short by the analysis budget: no numbers are shown (they would be too small)',
  internal: (what: string) => `internal error: ${what}`,
  unitsUnknown: (names: readonly string[]) => `number of units unknown${names.length ? ` (bind ${names.map(bt).join(', ')})` : ''}`,
  geometryUnknown: (names: readonly string[]) =>
    `number of units unknown: the launch's size is not a value of this file${names.length ? ` (bind ${names.map(bt).join(', ')}, or give --grid)` : ''}`,
  countsUnknown: (names: readonly string[]) => `counts unknown${names.length ? `: bind ${names.map(bt).join(', ')}` : ''}`,
  kernelNotInFile: (kernel: string) => `kernel ${bt(kernel)} is not defined in this file (a header?): not analysed`,
  libraryCall: (name: string, lib: string) => `${bt(name)} is a ${lib} call: its work is not counted (no source in this file)`,
  shaderNotInFile: (module: string) => `the shader module ${bt(module)} is not WGSL written in this file (imported?): not analysed`,
  noPipelineSet: () => `no ${bt('setPipeline')} before this dispatch that the analysis can follow`,
  pipelineUnknown: (name: string) => `${bt(name)} is not a ${bt('createComputePipeline')} of this file the analysis can read`,
  entryUnknown: (entry: string) => `entry point ${bt(entry)} is not a ${bt('@compute')} function of the shader`,
  // notes under the totals
  unknownLoopNote: () => 'a host loop with an unknown trip count: its launches are counted once',
  lowerBoundsNote: (missing: number, runs: number) => `${missing} of ${runs} launches have no numbers: the totals are lower bounds`,
  truncatedNote: (max: number) => `the host code launches more than ${max} kernels: only the first ${max} are listed`,
} as const;

export type PipelineTextId = keyof typeof PIPELINE_TEXT;

/** A pipeline sentence by id. */
export function pipelineText<K extends PipelineTextId>(id: K, ...args: Parameters<(typeof PIPELINE_TEXT)[K]>): string {
  return (PIPELINE_TEXT[id] as (...a: unknown[]) => string)(...args);
}
