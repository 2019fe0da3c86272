/**
 * Launch sequences in the host code of a CUDA file (issue 18): a host
 * function that launches kernels one after another (`k<<<grid, block>>>(…)`),
 * directly or through launcher functions of the same file, with host `for`
 * loops multiplying what they contain.
 *
 *   host function ──► statements in order
 *                     for (init; i < n; i += s) ──► cdiv(n − init, s) × the body
 *                     if (decided) ──► that arm; undecided ──► the first arm, said so
 *                     a launch ──► HostLaunchFact (site line, the launcher's parameter values)
 *                     a launcher call ──► its body, with the call's argument values
 *                     a library call (cuBLAS, cuDNN, …) ──► a launch without numbers
 *
 * Each launch carries the values of the host function around it (numbers,
 * from the call's arguments and the host code's declarations, followed to
 * the pipeline function's first call site) and the identity of every device
 * pointer it is passed (the host variable, followed through launchers,
 * casts and plain copies), so a buffer written by one launch and read by the
 * next can be found (fusion what-if). A host integer the code cannot give
 * (a size read from a checkpoint) is a symbol of its own name: the user's
 * `--set` of that name binds it, else it stays unknown.
 */
import type { FrontendContext } from '../../frontend';
import type { HostLaunchFact, HostPipelineFact } from '../../ir';
import { evalCond } from '../../engine/cond';
import { pipelineText } from '../../messages';
import { noteQuery, recordInto } from '../../deps';
import { evaluate, freeSymbols } from '../../sym/expr';
import { seedBindings } from '../common';
import { evalExpr } from './expr';
import type { FileInfo, FnDef, LaunchSite } from './file';
import { callerParams, HostStates, hostInterp, paramNames, type HostParams } from './launch';
import type { Interp } from './state';
import { brief, fileRow, hasToken, lineOf, named, type Node } from './syntax';

interface Walk {
  params: HostParams;
  ids: Map<string, string>;
  prefix: string;
  repeat: number | null;
  repeatNote?: string;
  depth: number;
  via?: string;
  callLine?: number;
  /** The functions on the way (no recursion). */
  stack: FnDef[];
  /**
   * Variables that change from one trip of an enclosing loop to the next (its
   * counter, what its body assigns): the host values hold their first trip's,
   * so a condition, a trip count or a launcher's argument that reads one is
   * not decided from them.
   */
  varying?: ReadonlySet<string>;
}

const MAX_DEPTH = 4;
const MAX_LAUNCHES = 200;
const MAX_NESTING = 200;

/** GPU library calls that run kernels of their own (work not counted): cuBLAS, cuDNN, … (not handles, descriptors or settings). */
const LIBRARY = /^(cublasLt|cublas|cudnn|cufft|cusparse|cusolver|curand|nccl)\w*$/;
const NOT_WORK = /(Create|Destroy|Set|Get|Init|Finalize|Check|Version|Handle|Desc|Plan|Error|Status|Workspace)/;
const LIBRARY_NAMES: Record<string, string> = { cublasLt: 'cuBLASLt', cublas: 'cuBLAS', cudnn: 'cuDNN', cufft: 'cuFFT', cusparse: 'cuSPARSE', cusolver: 'cuSOLVER', curand: 'cuRAND', nccl: 'NCCL' };

export function cudaPipelines(ctx: FrontendContext, file: FileInfo): HostPipelineFact[] {
  const out: HostPipelineFact[] = [];
  const b = seedBindings(ctx);
  const env = b.env();
  // What the pipelines read of the file's scan (src/core/deps.ts): every launch site, the kernels' names and
  // places (of a launched kernel only its parameters, not its body), the host functions' names and places.
  noteQuery('launches:*');
  noteQuery('kernelIndex:*');
  noteQuery('hostFns:*');
  const launchAt = new Map<number, LaunchSite>();
  for (const s of file.launches) launchAt.set(s.call.startIndex, s);
  const hostFns = hostFunctions(file);

  // Which host functions launch, read as one answer on the file (`reaches:*`, ./deps.ts): an edit in a host
  // function that launches nothing (a config dump, argument parsing) does not build the pipelines again.
  noteQuery('reaches:*');
  const runsAtMost = launchingFunctions(file);
  const launchesIn = (def: FnDef): boolean => (runsAtMost.get(def.name) ?? 0) > 0;

  /**
   * A host interpreter standing just before `node`, its function's parameters
   * given. A host integer it cannot evaluate (`int C = model->config.channels;`)
   * is a symbol of its own name, which the user's `--set C=768` binds.
   */
  const states = new HostStates(() => hostInterp(ctx, file, b));
  const hostAt = (node: Node, params: HostParams): Interp => states.at(node, params);
  /** A host expression's value, and the `--set` names it took. */
  const valueOf = (host: Interp, n: Node | null | undefined): { x: number | undefined; set: string[] } => {
    const e = n ? evalExpr(host, n).e : undefined;
    const x = e ? evaluate(e, env) : undefined;
    return { x, set: e && x !== undefined ? [...freeSymbols(e)].filter((s) => typeof ctx.user.set[s] === 'number') : [] };
  };
  const numberOf = (host: Interp, n: Node | null | undefined): number | undefined => valueOf(host, n).x;

  const names: Record<string, string> = {};
  const fresh = (w: Walk, x: string, at: number): string => {
    const id = `${w.prefix}.${x}@${at}`;
    names[id] ??= x;
    return id;
  };
  /** The identity of the buffer an argument names: a variable, a member (`acts.ln1`), through casts and parentheses. */
  const idOf = (w: Walk, n: Node | null | undefined): string | undefined => {
    if (!n) return undefined;
    switch (n.type) {
      case 'identifier': {
        const id = w.ids.get(n.text);
        if (id) return id;
        const made = fresh(w, n.text, 0);
        w.ids.set(n.text, made);
        return made;
      }
      case 'field_expression': {
        const key = n.text.replace(/\s+/g, '');
        const id = w.ids.get(key);
        if (id) return id;
        const made = fresh(w, key, 0);
        w.ids.set(key, made);
        return made;
      }
      case 'cast_expression':
        return idOf(w, n.childForFieldName('value'));
      case 'parenthesized_expression':
        return idOf(w, named(n)[0]);
      default:
        return undefined;
    }
  };
  /** `float* h = x;` shares x's buffer; `float* q = base + off;` (or anything else) is a buffer of its own. */
  const assigned = (w: Walk, name: string, value: Node | null | undefined, at: number): void => {
    const id = (value && idOf(w, value)) ?? fresh(w, name, at);
    w.ids.set(name, id);
    if (w.depth === 0) names[id] = name;
  };
  const track = (st: Node, w: Walk): void => {
    if (st.type === 'declaration')
      for (const d of st.childrenForFieldName('declarator')) {
        const name = declaredName(d);
        if (name) assigned(w, name, d.type === 'init_declarator' ? d.childForFieldName('value') : null, lineOf(d));
      }
    const e = st.type === 'expression_statement' ? named(st)[0] : undefined;
    if (e?.type === 'assignment_expression' && e.childForFieldName('operator')?.text === '=') {
      const l = e.childForFieldName('left');
      if (l?.type === 'identifier') assigned(w, l.text, e.childForFieldName('right'), lineOf(e));
    }
  };
  const mayLaunch = (st: Node): boolean => {
    for (const c of st.type === 'call_expression' ? [st] : st.descendantsOfType('call_expression')) {
      if (!c) continue;
      if (launchAt.has(c.startIndex) || library(c)) return true;
      const g = hostFns.get(calleeName(c) ?? '');
      if (g && launchesIn(g)) return true;
    }
    return false;
  };

  /** Whether walking an arm of an `if` can change the walk: it launches, or it is a statement `track` reads (`else p = q;`). */
  const armMatters = (arm: Node | null | undefined): boolean => !!arm && (arm.type === 'declaration' || arm.type === 'expression_statement' || mayLaunch(arm));

  const trips = (st: Node, w: Walk): { n: number | null; note: string } => {
    const init = st.childForFieldName('initializer');
    const cond = st.childForFieldName('condition');
    const upd = st.childForFieldName('update');
    const header = `for (${init ? brief(init, 30).replace(/;$/, '') : ''}; ${cond ? brief(cond, 30) : ''}; ${upd ? brief(upd, 20) : ''})`;
    const unknown = { n: null, note: pipelineText('loopUnknown', header, lineOf(st)) };
    let v: string | undefined;
    let lo: Node | null = null;
    if (init?.type === 'declaration') {
      const d = init.childrenForFieldName('declarator')[0];
      if (d?.type === 'init_declarator') {
        v = declaredName(d);
        lo = d.childForFieldName('value');
      }
    } else if (init?.type === 'assignment_expression' && init.childForFieldName('left')?.type === 'identifier') {
      v = init.childForFieldName('left')!.text;
      lo = init.childForFieldName('right');
    }
    if (!v || !lo || cond?.type !== 'binary_expression') return unknown;
    let op = cond.childForFieldName('operator')?.text ?? '';
    let bound = cond.childForFieldName('right');
    if (cond.childForFieldName('left')?.text !== v) {
      if (bound?.text !== v) return unknown;
      bound = cond.childForFieldName('left');
      op = ({ '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as Record<string, string>)[op] ?? op;
    }
    let step: number | undefined;
    let stepNode: Node | null = null;
    let sign = 0;
    if (upd?.type === 'update_expression' && upd.childForFieldName('argument')?.text === v) {
      step = 1;
      sign = upd.childForFieldName('operator')?.text === '--' ? -1 : 1;
    } else if (upd?.type === 'assignment_expression' && upd.childForFieldName('left')?.text === v) {
      const aop = upd.childForFieldName('operator')?.text;
      const r = upd.childForFieldName('right');
      if (aop === '+=' || aop === '-=') {
        stepNode = r;
        sign = aop === '+=' ? 1 : -1;
      } else if (aop === '=' && r?.type === 'binary_expression' && r.childForFieldName('left')?.text === v && /^[+-]$/.test(r.childForFieldName('operator')?.text ?? '')) {
        stepNode = r.childForFieldName('right');
        sign = r.childForFieldName('operator')!.text === '+' ? 1 : -1;
      }
    }
    if (readsVarying(lo, w) || readsVarying(bound, w) || readsVarying(stepNode, w)) return unknown;
    const host = hostAt(st, w.params);
    const vs = [valueOf(host, lo), valueOf(host, bound), stepNode ? valueOf(host, stepNode) : { x: step, set: [] }];
    const [a, z] = [vs[0].x, vs[1].x];
    step = vs[2].x;
    if (a === undefined || z === undefined || step === undefined || !(step > 0) || sign === 0) return unknown;
    const s = sign * step;
    let n: number | undefined;
    if (s > 0 && op === '<') n = Math.ceil((z - a) / s);
    else if (s > 0 && op === '<=') n = Math.floor((z - a) / s) + 1;
    else if (s < 0 && op === '>') n = Math.ceil((a - z) / -s);
    else if (s < 0 && op === '>=') n = Math.floor((a - z) / -s) + 1;
    else if (op === '!=' && (z - a) % s === 0 && (z - a) / s >= 0) n = (z - a) / s;
    if (n === undefined || !Number.isFinite(n)) return unknown;
    n = Math.max(0, n);
    const set = [...new Set(vs.flatMap((v) => v.set))].sort();
    return { n, note: set.length ? pipelineText('loopRunsSet', header, lineOf(st), n, set.join(', ')) : pipelineText('loopRuns', header, lineOf(st), n) };
  };

  const decide = (st: Node, w: Walk): boolean | undefined => {
    if (readsVarying(st.childForFieldName('condition'), w)) return undefined;
    const v = evalExpr(hostAt(st, w.params), st.childForFieldName('condition'));
    if (v.e) {
      const x = evaluate(v.e, env);
      if (x !== undefined) return x !== 0;
    }
    return v.cond ? evalCond(v.cond, env) : undefined;
  };

  /**
   * The index of the case a `switch` runs with the host values (the `default`
   * one when none matches; `cases.length` when nothing runs), undefined when
   * the value or a case's is not known.
   */
  const chooseCase = (st: Node, cases: Node[], w: Walk): number | undefined => {
    if (readsVarying(st.childForFieldName('condition'), w)) return undefined;
    const host = hostAt(st, w.params);
    const x = numberOf(host, st.childForFieldName('condition'));
    if (x === undefined) return undefined;
    let fallback = cases.length;
    for (let i = 0; i < cases.length; i++) {
      const value = cases[i].childForFieldName('value');
      if (!value) {
        fallback = i;
        continue;
      }
      const v = numberOf(host, value);
      if (v === undefined) return undefined;
      if (v === x) return i;
    }
    return fallback;
  };

  const walkStmt = (st: Node, w: Walk, launches: HostLaunchFact[], nesting: number): void => {
    if (ctx.budget.spent() || launches.length >= MAX_LAUNCHES || nesting > MAX_NESTING) return;
    if (!mayLaunch(st)) {
      track(st, w);
      return;
    }
    switch (st.type) {
      case 'compound_statement':
        for (const c of named(st)) walkStmt(c, w, launches, nesting + 1);
        return;
      case 'preproc_if':
      case 'preproc_ifdef':
        for (const c of file.liveChildren(st)) walkStmt(c, w, launches, nesting + 1);
        return;
      case 'for_statement': {
        const t = trips(st, w);
        const init = st.childForFieldName('initializer');
        if (init?.type === 'declaration') track(init, w);
        const inner: Walk = { ...w, repeat: w.repeat === null || t.n === null ? null : w.repeat * t.n, repeatNote: join(w.repeatNote, t.note), varying: varyingIn(st, w) };
        const body = st.childForFieldName('body');
        if (body) walkStmt(body, inner, launches, nesting + 1);
        return;
      }
      case 'while_statement':
      case 'do_statement':
      case 'for_range_loop': {
        const kind = st.type === 'while_statement' ? 'while' : st.type === 'do_statement' ? 'do' : 'for (… : …)';
        const inner: Walk = { ...w, repeat: null, repeatNote: join(w.repeatNote, pipelineText('whileUnknown', kind, lineOf(st))), varying: varyingIn(st, w) };
        const body = st.childForFieldName('body');
        if (body) walkStmt(body, inner, launches, nesting + 1);
        return;
      }
      case 'if_statement': {
        const cons = st.childForFieldName('consequence');
        const alt = st.childForFieldName('alternative');
        const altBody = alt ? named(alt)[0] : undefined;
        // The condition runs first, whichever arm follows: its launches (`if (run_and_check(…)) return;`).
        const condition = st.childForFieldName('condition');
        if (condition && mayLaunch(condition)) visitCalls(condition, w, launches);
        // Only the condition launches: which arm runs changes nothing the walk keeps, so the condition is not
        // evaluated (it can inline a large host function).
        if (!armMatters(cons) && !armMatters(altBody)) return;
        const t = decide(st, w);
        if (t === true) {
          if (cons) walkStmt(cons, w, launches, nesting + 1);
          return;
        }
        if (t === false) {
          if (altBody) walkStmt(altBody, w, launches, nesting + 1);
          return;
        }
        const c = st.childForFieldName('condition');
        const cond = c ? brief(c, 40).replace(/^\(\s*|\s*\)$/g, '') : '';
        const inner: Walk = { ...w, repeatNote: join(w.repeatNote, pipelineText('ifUndecided', cond, lineOf(st))) };
        if (cons && mayLaunch(cons)) walkStmt(cons, inner, launches, nesting + 1);
        else if (altBody) walkStmt(altBody, inner, launches, nesting + 1);
        return;
      }
      case 'switch_statement': {
        // One case runs (and the ones it falls through to, up to a `break`): the one the host values choose, or,
        // not decided, the first that launches, said so (as an undecided `if` counts its first arm).
        const body = st.childForFieldName('body');
        const cases = body ? named(body).filter((c) => c.type === 'case_statement') : [];
        const condition = st.childForFieldName('condition');
        if (condition && mayLaunch(condition)) visitCalls(condition, w, launches);
        const statements = (c: Node): Node[] => {
          const value = c.childForFieldName('value');
          return named(c).filter((x) => x !== value && x.startIndex !== value?.startIndex);
        };
        const from = chooseCase(st, cases, w);
        const start = from ?? cases.findIndex((c, i) => cases.slice(i).some((d) => statements(d).some(mayLaunch)));
        if (start < 0) return;
        const cond = condition ? brief(condition, 40).replace(/^\(\s*|\s*\)$/g, '') : '';
        const inner: Walk = from === undefined ? { ...w, repeatNote: join(w.repeatNote, pipelineText('switchUndecided', cond, lineOf(st))) } : w;
        for (let i = start; i < cases.length; i++) {
          for (const s of statements(cases[i])) {
            if (s.type === 'break_statement' || s.type === 'return_statement') {
              if (s.type === 'return_statement') walkStmt(s, inner, launches, nesting + 1);
              return;
            }
            walkStmt(s, inner, launches, nesting + 1);
            // `case 1: { …; break; }`
            if (s.type === 'compound_statement' && named(s).some((x) => x.type === 'break_statement' || x.type === 'return_statement')) return;
          }
        }
        return;
      }
      default:
        break;
    }
    visitCalls(st, w, launches);
    track(st, w);
  };

  /** The calls in `n`, innermost first (arguments run before the call they are passed to). */
  const visitCalls = (n: Node, w: Walk, launches: HostLaunchFact[], depth = 0): void => {
    if (depth > 60 || n.type === 'lambda_expression') return;
    for (const c of named(n)) visitCalls(c, w, launches, depth + 1);
    if (n.type === 'call_expression') call(n, w, launches);
  };

  const call = (c: Node, w: Walk, launches: HostLaunchFact[]): void => {
    if (launches.length >= MAX_LAUNCHES) return;
    const site = launchAt.get(c.startIndex);
    const callLine = w.callLine ?? lineOf(c);
    if (site) {
      const def = file.kernels.find((k) => k.name === site.name);
      noteQuery(`params:${site.name}`);
      const line = lineOf(site.call);
      const base = { kernel: site.name, line, callLine, ...(w.via ? { via: w.via } : {}), repeat: w.repeat, ...(w.repeatNote ? { repeatNote: w.repeatNote } : {}), names };
      if (!def) {
        launches.push({ ...base, tensors: {}, unresolved: pipelineText('kernelNotInFile', site.name) });
        return;
      }
      const tensors: Record<string, string> = {};
      recordInto(undefined, () => paramNames(def.node)).forEach((p, i) => {
        const id = p ? idOf(w, site.args[i]) : undefined;
        if (id) tensors[p] = id;
      });
      const frame = Object.fromEntries(w.params);
      launches.push({ ...base, tensors, inputs: { kernel: site.name, line, frame, label: pipelineText('launchLabel', callLine) } });
      return;
    }
    const lib = library(c);
    if (lib) {
      launches.push({ kernel: calleeName(c)!, line: lineOf(c), callLine, ...(w.via ? { via: w.via } : {}), repeat: w.repeat, ...(w.repeatNote ? { repeatNote: w.repeatNote } : {}), tensors: {}, names, unresolved: pipelineText('libraryCall', calleeName(c)!, lib) });
      return;
    }
    const g = hostFns.get(calleeName(c) ?? '');
    if (!g || w.depth >= MAX_DEPTH || w.stack.includes(g) || !launchesIn(g)) return;
    const host = hostAt(c, w.params);
    const list = c.childForFieldName('arguments');
    const args = list ? named(list) : [];
    const params: HostParams = new Map();
    const ids = new Map<string, string>();
    paramNames(g.node).forEach((p, i) => {
      if (!p || !args[i]) return;
      const x = readsVarying(args[i], w) ? undefined : numberOf(host, args[i]);
      if (x !== undefined) params.set(p, x);
      const id = idOf(w, args[i]);
      if (id) ids.set(p, id);
    });
    const inner: Walk = {
      params,
      ids,
      prefix: `${g.name}#${lineOf(c)}`,
      repeat: w.repeat,
      ...(w.repeatNote ? { repeatNote: w.repeatNote } : {}),
      depth: w.depth + 1,
      via: w.via ?? g.name,
      callLine,
      stack: [...w.stack, g],
    };
    walkStmt(g.body!, inner, launches, 0);
  };

  /**
   * Whether a host function's walk cannot make a pipeline (it needs two
   * launches, or one run twice): one launch site or library call, no call of
   * another function that launches, and no `for` around it. Such a function
   * (a launcher around one kernel, the most common kind) is not walked.
   */
  const oneRunAtMost = (def: FnDef): boolean => {
    let sites = 0;
    let site: Node | undefined;
    for (const c of def.node.descendantsOfType('call_expression')) {
      if (launchAt.has(c.startIndex) || library(c)) {
        site = c;
        if (++sites > 1) return false;
        continue;
      }
      const g = hostFns.get(calleeName(c) ?? '');
      if (g && g !== def && launchesIn(g)) return false;
    }
    for (let p = site?.parent; p && p !== def.node; p = p.parent) if (p.type === 'for_statement') return false;
    return true;
  };

  for (const def of hostFns.values()) {
    if (ctx.budget.spent()) break;
    // At most one launch runs (a launcher, a dispatcher): no pipeline, and its text is not read.
    if ((runsAtMost.get(def.name) ?? 0) < 2 || oneRunAtMost(def)) continue;
    const launches: HostLaunchFact[] = [];
    for (const k of Object.keys(names)) delete names[k];
    const given = callerParams(ctx, file, b, def.body!, 0, states);
    const w: Walk = { params: given?.params ?? new Map(), ids: new Map(), prefix: def.name, repeat: 1, depth: 0, stack: [def] };
    walkStmt(def.body!, w, launches, 0);
    const runs = launches.reduce((s, l) => s + (l.repeat ?? 1), 0);
    if (launches.length < 2 && runs < 2) continue;
    // A function whose launches all come from one call of another pipeline function repeats it.
    const calls = new Set(launches.map((l) => l.callLine));
    if (calls.size === 1 && launches.every((l) => l.via && l.via === launches[0].via)) continue;
    const own = { ...names };
    for (const l of launches) l.names = own;
    out.push({
      name: def.name,
      line: nameLine(def.node),
      endLine: fileRow(def.node.endPosition.row) + 1,
      launches,
      ...(launches.length >= MAX_LAUNCHES ? { notes: [pipelineText('truncatedNote', MAX_LAUNCHES)] } : {}),
    });
  }
  return out;
}

function calleeName(c: Node): string | undefined {
  let f = c.childForFieldName('function');
  // `launch<float>(…)`: the template's name.
  if (f?.type === 'template_function') f = f.childForFieldName('name');
  if (f?.type === 'identifier') return f.text;
  if (f?.type === 'qualified_identifier') return f.text.replace(/\s+/g, '').replace(/<.*$/, '').split('::').pop();
  return undefined;
}

/** The GPU library a call runs work of (`cublasSgemm`: cuBLAS), not a handle, descriptor or setting. */
function library(c: Node): string | undefined {
  const name = calleeName(c);
  const m = name ? LIBRARY.exec(name) : null;
  return m && !NOT_WORK.test(name!) ? LIBRARY_NAMES[m[1]] : undefined;
}

const launching = new WeakMap<FileInfo, Map<string, number>>();
const LOOPS = new Set(['for_statement', 'while_statement', 'do_statement', 'for_range_loop']);

/**
 * How many launches (kernels or library work) each host function can run,
 * directly or through host functions it calls (at most MAX_DEPTH calls
 * deep), by name: 0 (none), 1, or 2 for two or more (a launch in a loop, two
 * sites, both arms of an `if` added up: a bound, not a count). Worked out in
 * the order of the file's host functions, read without recording: the
 * pipelines read it as the query `reaches:*` (./deps.ts), so typing in a
 * host function that launches nothing, or in a launcher that runs one
 * kernel, does not build them again.
 */
export function launchingFunctions(file: FileInfo): Map<string, number> {
  const known = launching.get(file);
  if (known) return known;
  const runs = new Map<string, number>();
  recordInto(undefined, () => {
    const launchAt = new Set(file.launches.map((s) => s.call.startIndex));
    const hostFns = hostFunctions(file);
    const reaches = new Map<string, boolean>();
    const launchesIn = (def: FnDef, depth: number): boolean => {
      const hit = reaches.get(def.name);
      if (hit !== undefined) return hit;
      if (depth > MAX_DEPTH) return false;
      reaches.set(def.name, false);
      let r = false;
      for (const c of def.node.descendantsOfType('call_expression')) {
        if (!c) continue;
        if (launchAt.has(c.startIndex) || library(c)) {
          r = true;
          break;
        }
        const g = hostFns.get(calleeName(c) ?? '');
        if (g && g !== def && launchesIn(g, depth + 1)) {
          r = true;
          break;
        }
      }
      reaches.set(def.name, r);
      return r;
    };
    for (const def of hostFns.values()) launchesIn(def, 0);
    const inLoop = (c: Node, fn: Node): boolean => {
      for (let p = c.parent; p && p !== fn; p = p.parent) if (LOOPS.has(p.type)) return true;
      return false;
    };
    const runsOf = (def: FnDef): number => {
      const hit = runs.get(def.name);
      if (hit !== undefined) return hit;
      if (!reaches.get(def.name)) {
        runs.set(def.name, 0);
        return 0;
      }
      // Recursion: no bound.
      runs.set(def.name, 2);
      let n = 0;
      for (const c of def.node.descendantsOfType('call_expression')) {
        if (!c) continue;
        let k = 0;
        if (launchAt.has(c.startIndex) || library(c)) k = 1;
        else {
          const g = hostFns.get(calleeName(c) ?? '');
          if (g && g !== def) k = runsOf(g);
        }
        if (k > 0 && inLoop(c, def.node)) k = 2;
        n = Math.min(2, n + k);
        if (n >= 2) break;
      }
      runs.set(def.name, n);
      return n;
    };
    for (const def of hostFns.values()) runsOf(def);
  });
  launching.set(file, runs);
  return runs;
}

/** The variables a loop changes from one trip to the next (its header's and its body's assignments), with the enclosing loops'. */
function varyingIn(loop: Node, w: Walk): ReadonlySet<string> {
  const out = new Set(w.varying ?? []);
  const init = loop.childForFieldName('initializer');
  if (init?.type === 'declaration') for (const d of init.childrenForFieldName('declarator')) {
    const name = declaredName(d);
    if (name) out.add(name);
  }
  for (const a of loop.descendantsOfType(['assignment_expression', 'update_expression'])) {
    const target = a.childForFieldName(a.type === 'assignment_expression' ? 'left' : 'argument');
    if (target?.type === 'identifier') out.add(target.text);
  }
  return out;
}

/** Whether `n` reads a variable that changes from one trip of an enclosing loop to the next. */
function readsVarying(n: Node | null | undefined, w: Walk): boolean {
  if (!n || !w.varying?.size) return false;
  if (n.type === 'identifier') return w.varying.has(n.text);
  return n.descendantsOfType('identifier').some((x) => x !== null && w.varying!.has(x.text));
}

function join(a: string | undefined, b: string): string {
  return a ? `${a}; ${b}` : b;
}

/** The name a declarator declares (`*p`, `p = …`, `p[4]`). */
function declaredName(d: Node): string | undefined {
  let cur: Node | null = d;
  for (let i = 0; cur && i < 12; i++) {
    if (cur.type === 'identifier') return cur.text;
    cur = cur.childForFieldName('declarator') ?? named(cur).find((x) => x.type === 'identifier' || x.type.endsWith('declarator')) ?? null;
  }
  return undefined;
}

/** The line of a function's name (where its lens and hover sit). */
function nameLine(fn: Node): number {
  let d = fn.childForFieldName('declarator');
  while (d && d.type !== 'function_declarator') d = d.childForFieldName('declarator');
  const n = d?.childForFieldName('declarator');
  return lineOf(n ?? fn);
}

/**
 * The file's host functions by name (the first definition with a body that is
 * not device-only), read without recording: the pipelines' reads answer them
 * as `hostFns:*` (./deps.ts), so an edit inside a kernel or a device function
 * does not rebuild the pipelines.
 */
export function hostFunctions(file: FileInfo): Map<string, FnDef> {
  return recordInto(undefined, () => {
    const out = new Map<string, FnDef>();
    for (const [name, defs] of file.functions) {
      const def = defs.find((d) => !d.isGlobal && d.body && !(hasToken(d.node, '__device__') && !hasToken(d.node, '__host__')));
      if (def) out.set(name, def);
    }
    return out;
  });
}
