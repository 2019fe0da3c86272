/**
 * The statement walker: control flow of one WGSL compute entry point, with
 * helper functions inlined, turned into the region tree of the kernel IR.
 *
 *   entry point ──► builtin inputs, workgroup size ──► statements
 *     if:   constant → the branch taken; local-id condition → only the
 *           invocations that satisfy it; bounds check → true (interior);
 *           early exit → not taken; data → a branch region counted as taken
 *     loops: trip count from the counter (loops.ts); a loop whose body has a
 *           local-id predicate on its counter is unrolled and summed
 *     calls: inlined (recursion and runaway depth guarded)
 */
import type { BlockElem, ExpressionElem, FnElem, ForElem, IfElem, LoopElem, Statement, SwitchElem, WhileElem } from 'wesl/core';
import { decide } from '../../engine/branch';
import { accumulate, Notes, Recorder, scaleRegion } from '../../engine/recorder';
import type { Region } from '../../ir';
import { add, exprKey, max as emax, min as emin, mul, num, scale, sub, type Expr } from '../../sym/expr';
import { countActive, type ActivePred } from './conditions';
import { ExprWalker, type Frame } from './expressions';
import { counterCondition, MAX_UNROLL, stepOf, tripCount, unknownTrips, unparen, type StepSyntax, type TripInfo } from './loops';
import { builtinName } from './module';
import { I32, scalarOf, U32, UNKNOWN, type WType } from './types';
import { constVal, DEP, hasDep, isConst, joinDeps, mergeLoops, opaqueVal, type Slot, type Val } from './values';

/** Inlining deeper than this is a runaway (WGSL forbids recursion, but broken input may still loop). */
const MAX_CALL_DEPTH = 32;

const NEGATE: Record<string, string> = { '<': '>=', '<=': '>', '>': '<=', '>=': '<', '==': '!=', '!=': '==' };

type CondClass =
  | { kind: 'const'; value: boolean | undefined; missing: string[] }
  | { kind: 'lid'; preds: ActivePred[] }
  | { kind: 'bounds' }
  | { kind: 'data'; preds: ActivePred[] };

export class KernelWalker extends ExprWalker {
  /** Walks an entry point; the result is its body region. */
  walkEntry(fn: FnElem): Region {
    const line = this.lineOf(fn.name.start);
    const body: Region = { kind: 'kernel', line, trips: num(1), label: `@compute fn ${fn.name.ident.originalName}`, events: [], children: [] };
    this.rec = new Recorder(body);
    this.wg = this.workgroupSize(fn);
    this.active = mul(...this.wg);
    const frame: Frame = { fnName: fn.name.ident.originalName, scopes: [new Map()], ret: undefined };
    this.frames.push(frame);
    for (const p of fn.params) {
      const type = this.types.resolve(p.name.typeRef);
      this.declare(p.name.decl.ident.originalName, { val: this.entryInput(p.attributes, type), mutable: false, loopVar: false });
    }
    this.walkBlock(fn.body);
    this.frames.pop();
    return body;
  }

  private entryInput(attrs: FnElem['params'][number]['attributes'], type: WType): Val {
    const b = builtinName(attrs);
    if (b) return this.builtinInput(b, type);
    if (type.k !== 'struct') return opaqueVal(type, DEP.LID);
    const st = this.mod.structs.get(type.name);
    const fields: Record<string, Val> = {};
    for (const m of st?.members ?? []) {
      const mb = builtinName(m.attributes);
      const mt = type.members.find((x) => x.name === m.name.name)?.type ?? UNKNOWN;
      fields[m.name.name] = mb ? this.builtinInput(mb, mt) : opaqueVal(mt, DEP.LID);
    }
    return { type, deps: DEP.LID, fields };
  }

  // -------------------------------------------------------------------------
  // Functions

  protected callUser(fn: FnElem, args: Val[], line: number): Val {
    const name = fn.name.ident.originalName;
    const retType = this.types.resolve(fn.returnType);
    if (this.frames.some((f) => f.fnName === name)) {
      this.notes.say('recursion', line, name);
      return opaqueVal(retType, joinDeps(...args) | DEP.MUT);
    }
    if (this.frames.length >= MAX_CALL_DEPTH) {
      this.notes.say('depthLimit', line, `helper \`${name}\``);
      return opaqueVal(retType, joinDeps(...args) | DEP.MUT);
    }
    const frame: Frame = { fnName: name, scopes: [new Map()], ret: undefined };
    const predBase = this.preds.length;
    this.frames.push(frame);
    fn.params.forEach((p, i) => {
      const type = this.types.resolve(p.name.typeRef);
      const a = args[i] ?? opaqueVal(type, DEP.MUT);
      this.declare(p.name.decl.ident.originalName, { val: a.type.k === 'unknown' || type.k === 'ptr' ? a : { ...a, type }, mutable: false, loopVar: false });
    });
    this.walkBlock(fn.body);
    this.frames.pop();
    this.restorePreds(predBase);
    const ret = frame.ret ?? opaqueVal(retType, 0);
    return retType.k === 'unknown' ? ret : { ...ret, type: retType };
  }

  // -------------------------------------------------------------------------
  // Statements

  /** Walks a block in its own scope; true when it ends in an unconditional exit. */
  protected walkBlock(b: BlockElem): boolean {
    const f = this.frames[this.frames.length - 1];
    f.scopes.push(new Map());
    const exits = this.walkStatements(b.body);
    f.scopes.pop();
    return exits;
  }

  private walkStatements(stmts: Statement[]): boolean {
    for (const s of stmts) {
      if (this.budget.spent()) return true;
      if (this.walkStatement(s)) return true;
    }
    return false;
  }

  private walkStatement(s: Statement): boolean {
    switch (s.kind) {
      case 'let':
      case 'var':
      case 'const':
        this.declareLocal(s.name.decl.ident.originalName, s.name.typeRef ? this.types.resolve(s.name.typeRef) : undefined, s.init, s.kind === 'var');
        return false;
      case 'assign':
        this.assign(s);
        return false;
      case 'increment':
      case 'decrement':
        this.step(s.target, s.kind === 'increment' ? '+' : '-');
        return false;
      case 'call':
        this.discarded = true;
        try {
          this.evalExpr(s.call);
        } finally {
          this.discarded = false;
        }
        return false;
      case 'if':
        return this.walkIf(s);
      case 'for':
        this.walkFor(s);
        return false;
      case 'while':
        this.walkWhile(s);
        return false;
      case 'loop':
        this.walkLoopStmt(s);
        return false;
      case 'switch':
        this.walkSwitch(s);
        return false;
      case 'block':
        return this.walkBlock(s);
      case 'return':
        this.returnValue(s.value);
        return true;
      case 'break':
      case 'continue':
      case 'discard':
        return true;
      default:
        return false;
    }
  }

  private declareLocal(name: string, type: WType | undefined, init: ExpressionElem | undefined, mutable: boolean): void {
    const v = init ? this.evalExpr(init) : constVal(type ?? UNKNOWN, scalarOf(type ?? UNKNOWN) ? num(0) : undefined, this.env);
    const t = type && type.k !== 'unknown' ? type : v.type.k === 'scalar' && v.type.s === 'ai' ? I32 : v.type;
    const ctx = this.dataDepth > 0 && mutable ? DEP.DATA : 0;
    this.declare(name, { val: { ...v, type: v.type.k === 'ptr' ? v.type : t, deps: v.deps | ctx }, mutable, loopVar: false });
  }

  private assign(s: Extract<Statement, { kind: 'assign' }>): void {
    const rhs = this.evalExpr(s.rhs);
    if (s.lhs.kind === 'phony') return;
    const place = this.evalPlace(s.lhs);
    if (!place) return;
    const line = this.lineOf(s.start);
    const what = this.text(s.lhs);
    if (s.op.value === '=') return this.writePlace(place, rhs, line, what);
    const old = this.readPlace(place, s.lhs.start, what);
    this.writePlace(place, this.binary(s.op.value.slice(0, -1), old, rhs, line), line, what);
  }

  private step(target: ExpressionElem, op: '+' | '-'): void {
    const place = this.evalPlace(target);
    if (!place) return;
    const what = this.text(target);
    const old = this.readPlace(place, target.start, what);
    const one = constVal(old.type.k === 'scalar' ? old.type : U32, num(1), this.env);
    this.writePlace(place, this.binary(op, old, one, this.lineOf(target.start)), this.lineOf(target.start), what);
  }

  private returnValue(value: ExpressionElem | undefined): void {
    if (!value) return;
    const v = this.evalExpr(value);
    const f = this.frames[this.frames.length - 1];
    f.ret = f.ret ? { type: f.ret.type, deps: joinDeps(f.ret, v), loops: mergeLoops(f.ret, v) } : v;
  }

  // -------------------------------------------------------------------------
  // Conditions

  private walkIf(s: IfElem): boolean {
    const line = this.lineOf(s.start);
    const cls = this.classify(s.condition);
    const text = this.text(s.condition);
    let exited = false;
    const then = () => {
      exited = this.walkBlock(s.body);
    };
    const otherwise = s.else
      ? () => {
          exited = this.walkElse(s.else!);
        }
      : undefined;
    switch (cls.kind) {
      case 'const':
        if (cls.value === undefined) for (const n of cls.missing) this.notes.need(n);
        decide(this, cls.value === undefined ? { k: 'compile', names: cls.missing } : { k: 'const', value: cls.value }, { line, text, then, else: otherwise, exits: !s.else && endsInExit(s.body) && cls.value === undefined });
        // A decided branch that leaves ends the walk; an undecided one does not.
        return cls.value === undefined ? false : exited;
      case 'lid': {
        const others = negatePreds(cls.preds);
        decide(
          this,
          { k: 'thread' },
          { line, text, then, else: otherwise, exits: !s.else && endsInExit(s.body) },
          {
            threads: (holds, arm, rest) => {
              const preds = holds ? cls.preds : [others];
              if (rest) {
                // The invocations that left: the rest of the block runs on the others.
                const base = this.preds.length;
                this.pushPreds(cls.preds);
                this.walkBlock(s.body);
                this.restorePreds(base);
                this.pushPreds(preds);
                return;
              }
              const base = this.preds.length;
              this.pushPreds(preds);
              arm?.();
              this.restorePreds(base);
            },
          },
        );
        return false;
      }
      case 'bounds':
        decide(
          this,
          { k: 'bounds' },
          { line, text, then, exits: !s.else && endsInExit(s.body) },
          {
            narrow: (holds, arm) => {
              const undo = this.narrow(s.condition, !holds || !arm);
              if (!arm) return;
              arm();
              undo();
            },
          },
        );
        return false;
      default: {
        const base = this.preds.length;
        this.pushPreds(cls.preds);
        this.dataDepth++;
        try {
          decide(this, { k: 'data' }, { line, text, then, else: otherwise, exits: !s.else && isGuard(s.body) });
        } finally {
          this.dataDepth--;
          this.restorePreds(base);
        }
        return false;
      }
    }
  }

  private walkElse(e: IfElem | BlockElem): boolean {
    return e.kind === 'if' ? this.walkIf(e) : this.walkBlock(e);
  }

  /** Classifies a condition by what it depends on; conjunctions are split. */
  private classify(cond: ExpressionElem): CondClass {
    const parts = conjuncts(cond);
    const vals = parts.map((p) => this.evalExpr(p));
    const consts = vals.filter(isConst);
    for (const v of consts) {
      const x = v.fn?.(this.env);
      if (x === 0) return { kind: 'const', value: false, missing: [] };
    }
    const rest = vals.filter((v) => !isConst(v));
    if (rest.length === 0) {
      const missing = consts.filter((v) => v.fn?.(this.env) === undefined);
      return { kind: 'const', value: missing.length ? undefined : true, missing: missing.flatMap((v) => this.missingNames(v)) };
    }
    const lids = rest.filter(isLocal);
    if (rest.some((v) => hasDep(v, DEP.DATA) || hasDep(v, DEP.MUT))) return { kind: 'data', preds: lids.map(toPred) };
    if (lids.length > 0) return { kind: 'lid', preds: lids.map(toPred) };
    const uniforms = rest.filter((v) => !hasDep(v, DEP.GID) && !hasDep(v, DEP.WID));
    if (uniforms.length === rest.length) {
      const values = uniforms.map((v) => v.fn?.(this.env));
      if (values.every((x) => x !== undefined)) return { kind: 'const', value: values.every((x) => x !== 0), missing: [] };
      // A uniform (or `arrayLength`) not bound is a run-time value: either arm may run.
      for (const n of uniforms.flatMap((v) => this.missingNames(v))) this.notes.need(n);
      return { kind: 'data', preds: [] };
    }
    return { kind: 'bounds' };
  }

  private pushPreds(preds: ActivePred[]): void {
    this.preds.push(...preds);
    this.recount();
  }

  protected restorePreds(length: number): void {
    if (this.preds.length === length) return;
    this.preds.length = length;
    this.recount();
  }

  /** Recomputes the active invocations after the predicates changed. */
  private recount(): void {
    const r = countActive(this.preds, this.wg, this.env, this.unrollEnv);
    if (r.ok) {
      this.active = r.count;
      return;
    }
    for (const l of r.missingLoops) this.needsUnroll.add(l);
    const known = this.preds.filter((p) => p.fn && p.loops.every((l) => this.unrollEnv.has(l)));
    const fallback = countActive(known, this.wg, this.env, this.unrollEnv);
    this.active = fallback.ok ? fallback.count : mul(...this.wg);
    this.notes.assume('laneUncountable');
  }

  /**
   * Narrows the intervals of the variables a bounds check compares (`i < n`
   * → `i ≤ n − 1`), for footprints. `negated` reads the condition of an early
   * exit (what holds after it). Returns a function that undoes the narrowing.
   */
  private narrow(cond: ExpressionElem, negated: boolean): () => void {
    const undo: (() => void)[] = [];
    for (const c of negated ? disjuncts(cond) : conjuncts(cond)) {
      const u = unparen(c);
      if (u.kind !== 'binary-expression' || !(u.operator.value in NEGATE)) continue;
      const op = negated ? NEGATE[u.operator.value] : u.operator.value;
      const r = this.narrowOne(u.left, op, u.right) ?? this.narrowOne(u.right, FLIP[op], u.left);
      if (r) undo.push(r);
    }
    return () => undo.reverse().forEach((f) => f());
  }

  private narrowOne(target: ExpressionElem, op: string, boundExpr: ExpressionElem): (() => void) | undefined {
    const t = unparen(target);
    const member = t.kind === 'component-member-expression' ? unparen(t.base) : undefined;
    const name = t.kind === 'ref' ? t.ident.originalName : member?.kind === 'ref' ? member.ident.originalName : undefined;
    const slot = name ? this.lookup(name) : undefined;
    if (!slot || slot.loopVar) return undefined;
    const bound = this.quietly(() => this.evalExpr(boundExpr));
    if (!bound.sym || hasDep(bound, DEP.DATA)) return undefined;
    const before = slot.val;
    const comp = t.kind === 'component-member-expression' ? 'xyz'.indexOf(t.access.name) : -1;
    const cur = comp >= 0 ? before.comps?.[comp] : before;
    if (!cur?.range || (member && comp < 0)) return undefined;
    const range = narrowRange(cur.range, op, bound.sym);
    if (!range) return undefined;
    const next = { ...cur, range };
    slot.val = comp >= 0 ? { ...before, comps: before.comps!.map((c, i) => (i === comp ? next : c)) } : next;
    const after = slot.val;
    return () => {
      if (slot.val === after) slot.val = before;
    };
  }

  private walkSwitch(s: SwitchElem): void {
    const sel = this.evalExpr(s.selector);
    const line = this.lineOf(s.start);
    const labels = s.clauses.map((c) => c.selectors.map((x) => (x === 'default' ? undefined : this.evalExpr(x).fn?.(this.env))));
    const known = labels.flat().filter((v): v is number => v !== undefined);
    const matches = (i: number, v: number) => labels[i].some((x, j) => x === v || (s.clauses[i].selectors[j] === 'default' && !known.includes(v)));
    const value = isConst(sel) ? sel.fn?.(this.env) : undefined;
    if (value !== undefined) {
      const i = s.clauses.findIndex((_, k) => matches(k, value));
      if (i >= 0) this.walkBlock(s.clauses[i].body);
      return;
    }
    if (isLocal(sel) && sel.fn) {
      s.clauses.forEach((c, i) => {
        const base = this.preds.length;
        this.pushPreds([{ fn: (env) => lift(sel.fn!(env), (v) => (matches(i, v) ? 1 : 0)), sym: undefined, loops: sel.loops ?? [] }]);
        this.walkBlock(c.body);
        this.restorePreds(base);
      });
      return;
    }
    this.notes.assume('allCases', line);
    this.dataDepth++;
    try {
      for (const c of s.clauses) this.rec.taken(this.lineOf(c.start), c.selectors.includes('default') ? 'default' : 'case', () => this.walkBlock(c.body));
    } finally {
      this.dataDepth--;
    }
  }

  // -------------------------------------------------------------------------
  // Loops

  private walkFor(s: ForElem): void {
    const f = this.frames[this.frames.length - 1];
    f.scopes.push(new Map());
    if (s.init) this.walkStatement(s.init);
    const header = s.condition ? counterCondition(s.condition, false) : undefined;
    const step = header ? stepOf(s.update, header.v) : undefined;
    const line = this.lineOf(s.start);
    const clause = (e: { start: number; end: number } | undefined) => (e ? this.text(e).replace(/;\s*$/, '') : '');
    const label = `for (${clause(s.init)}; ${clause(s.condition)}; ${clause(s.update)})`;
    const info = this.trips(header, step, line);
    const body = [...s.body.body, ...(s.update ? [s.update] : [])];
    this.walkLoop(info, header?.v, line, label, body);
    f.scopes.pop();
  }

  private walkWhile(s: WhileElem): void {
    const header = counterCondition(s.condition, false);
    const step = header ? lastStep(s.body.body, header.v) : undefined;
    const line = this.lineOf(s.start);
    this.walkLoop(this.trips(header, step, line), header?.v, line, `while (${this.text(unparen(s.condition))})`, s.body.body);
  }

  private walkLoopStmt(s: LoopElem): void {
    const line = this.lineOf(s.start);
    const stmts = s.body.body.filter((x) => x.kind !== 'continuing');
    const cont = s.continuing?.body.body.filter((x) => x.kind !== 'break') ?? [];
    const first = stmts[0];
    let header: ReturnType<typeof counterCondition>;
    let body = [...stmts, ...cont];
    if (first?.kind === 'if' && !first.else && first.body.body.length === 1 && first.body.body[0].kind === 'break') {
      header = counterCondition(first.condition, true);
      body = [...stmts.slice(1), ...cont];
    } else if (s.continuing?.breakIf) header = counterCondition(s.continuing.breakIf, true);
    const step = header ? lastStep([...cont, ...stmts], header.v) : undefined;
    this.walkLoop(this.trips(header, step, line), header?.v, line, 'loop', body);
  }

  /** Derives a loop's trip count from its counter (engine/trips.ts); unknown counts become a named symbol. */
  private trips(header: ReturnType<typeof counterCondition>, step: StepSyntax | undefined, line: number): TripInfo {
    const slot = header && this.lookup(header.v);
    let info: TripInfo;
    if (!header || !step || !slot) info = unknownTrips(line);
    else {
      const bound = this.evalExpr(header.bound);
      const int = slot.val.type.k === 'scalar' && slot.val.type.s === 'i32' ? I32 : U32;
      const c = step.rhs ? this.evalExpr(step.rhs) : constVal(int, num(1), this.env);
      info = tripCount(header.op, slot.val, bound, step.op, c, this.env, line, this.quiet ? new Notes() : this.notes, this.wg);
    }
    if (info.unknown) this.notes.say('unboundLoop', line, `trips_L${line}`);
    return info;
  }

  private walkLoop(info: TripInfo, counter: string | undefined, line: number, label: string, body: Statement[]): void {
    const key = `@L${line}`;
    const slot = counter ? this.lookup(counter) : undefined;
    const start = slot?.val;
    const mark = this.markLog();
    this.markMutated(body, counter);
    const counterVal = (value: number | undefined): Val => ({
      type: start?.type ?? U32,
      deps: DEP.LOOP | ((start?.deps ?? 0) & ~DEP.UNIFORM),
      loops: mergeLoops(start, { type: U32, deps: 0, loops: [key] }),
      range: value === undefined ? info.range : [num(value), num(value)],
      sym: value === undefined ? undefined : num(value),
      fn: (env) => env.get(key),
    });
    let region = this.loopBody(info.trips, line, label, body, slot, counterVal(undefined));
    if (this.needsUnroll.has(key) && info.values && info.values.length <= MAX_UNROLL) {
      this.resetLog(mark);
      const parts = info.values.map((v) => {
        this.unrollEnv.set(key, v);
        return this.loopBody(num(1), line, label, body, slot, counterVal(v));
      });
      this.unrollEnv.delete(key);
      region = mergeUnrolled(parts, line, `${label} (unrolled: ${parts.length} iterations)`);
    }
    this.needsUnroll.delete(key);
    if (slot && start) slot.val = opaqueVal(start.type, start.deps | DEP.MUT);
    if (!this.quiet) this.rec.region.children.push(region);
  }

  private loopBody(trips: Expr, line: number, label: string, body: Statement[], slot: Slot | undefined, counter: Val): Region {
    const region: Region = { kind: 'loop', line, trips, label, events: [], children: [] };
    const base = this.preds.length;
    if (slot) {
      slot.val = counter;
      slot.loopVar = true;
    }
    const f = this.frames[this.frames.length - 1];
    f.scopes.push(new Map());
    // Walked apart and attached by the caller (an unrolled loop merges its iterations first).
    const quiet = this.quiet;
    this.rec.detached(region, () => {
      this.rec.quiet = quiet;
      this.walkStatements(body);
    });
    f.scopes.pop();
    if (slot) slot.loopVar = false;
    this.restorePreds(base);
    return region;
  }

  /** Variables assigned in a loop body change from trip to trip: their values are no longer constants. */
  private markMutated(body: Statement[], counter: string | undefined): void {
    for (const name of assignedNames(body)) {
      if (name === counter) continue;
      const slot = this.lookup(name);
      if (slot && !slot.loopVar) slot.val = opaqueVal(slot.val.type, slot.val.deps | DEP.MUT, slot.val.loops);
    }
  }

  private markLog(): { notes: [number, number]; accesses: number } {
    return { notes: this.notes.mark(), accesses: this.log.accesses.length };
  }

  private resetLog(m: { notes: [number, number]; accesses: number }): void {
    this.notes.reset(m.notes);
    this.log.accesses.length = m.accesses;
  }
}

// ---------------------------------------------------------------------------
// Helpers (pure)

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };

function conjuncts(e: ExpressionElem): ExpressionElem[] {
  const u = unparen(e);
  return u.kind === 'binary-expression' && u.operator.value === '&&' ? [...conjuncts(u.left), ...conjuncts(u.right)] : [u];
}

function disjuncts(e: ExpressionElem): ExpressionElem[] {
  const u = unparen(e);
  return u.kind === 'binary-expression' && u.operator.value === '||' ? [...disjuncts(u.left), ...disjuncts(u.right)] : [u];
}

function isExit(s: Statement | undefined): boolean {
  return !!s && (s.kind === 'return' || s.kind === 'continue' || s.kind === 'break');
}

function endsInExit(b: BlockElem): boolean {
  return isExit(b.body[b.body.length - 1]);
}

/** An early-exit guard: a body that only leaves (`{ return; }`, `{ continue; }`). */
function isGuard(b: BlockElem): boolean {
  const only = b.body.length === 1 ? b.body[0] : undefined;
  return isExit(only) && !(only!.kind === 'return' && only!.value);
}

/** Depends only on the local invocation id and loop counters (and constants, uniforms): countable per invocation. */
function isLocal(v: Val): boolean {
  const other = DEP.GID | DEP.WID | DEP.DATA | DEP.MUT;
  return (v.deps & other) === 0 && (hasDep(v, DEP.LID) || hasDep(v, DEP.LOOP));
}

function lift(v: number | undefined, f: (v: number) => number): number | undefined {
  return v === undefined ? undefined : f(v);
}

function toPred(v: Val): ActivePred {
  return { fn: v.fn, sym: v.pred, loops: v.loops ?? [] };
}

/** The invocations that satisfy none of `preds` (the ones an exit leaves running). */
function negatePreds(preds: ActivePred[]): ActivePred {
  const fns = preds.map((p) => p.fn);
  const fn = fns.every((f) => f)
    ? (env: Parameters<NonNullable<ActivePred['fn']>>[0]) => {
        for (const f of fns) {
          const v = f!(env);
          if (v === undefined) return undefined;
          if (!v) return 1;
        }
        return 0;
      }
    : undefined;
  const sym = preds.length === 1 && preds[0].sym ? { ...preds[0].sym, op: NEGATE[preds[0].sym.op] } : undefined;
  return { fn, sym, loops: [...new Set(preds.flatMap((p) => p.loops))] };
}

function narrowRange(r: readonly [Expr, Expr], op: string, b: Expr): [Expr, Expr] | undefined {
  switch (op) {
    case '<':
      return [r[0], emin(r[1], sub(b, num(1)))];
    case '<=':
      return [r[0], emin(r[1], b)];
    case '>':
      return [emax(r[0], add(b, num(1))), r[1]];
    case '>=':
      return [emax(r[0], b), r[1]];
    default:
      return undefined;
  }
}

/** The last top-level statement of a body that steps the counter `v`. */
function lastStep(stmts: Statement[], v: string): StepSyntax | undefined {
  for (let i = stmts.length - 1; i >= 0; i--) {
    const s = stmts[i];
    if (s.kind === 'assign' || s.kind === 'increment' || s.kind === 'decrement') {
      const st = stepOf(s, v);
      if (st) return st;
    }
  }
  return undefined;
}

/** Names of the local variables a statement list assigns (also in nested blocks). */
function assignedNames(stmts: Statement[], out = new Set<string>()): Set<string> {
  const root = (e: ExpressionElem): string | undefined => {
    const u = unparen(e);
    if (u.kind === 'ref') return u.ident.originalName;
    if (u.kind === 'component-expression' || u.kind === 'component-member-expression') return root(u.base);
    return undefined;
  };
  for (const s of stmts) {
    if (s.kind === 'assign' && s.lhs.kind !== 'phony') {
      const n = root(s.lhs);
      if (n) out.add(n);
    } else if (s.kind === 'increment' || s.kind === 'decrement') {
      const n = root(s.target);
      if (n) out.add(n);
    }
    for (const b of childBlocks(s)) assignedNames(b, out);
  }
  return out;
}

function childBlocks(s: Statement): Statement[][] {
  switch (s.kind) {
    case 'block':
      return [s.body];
    case 'if':
      return [s.body.body, ...(s.else ? [s.else.kind === 'if' ? [s.else] : s.else.body] : [])];
    case 'for':
      return [s.body.body, ...(s.update ? [[s.update]] : [])];
    case 'while':
    case 'loop':
      return [s.body.body];
    case 'continuing':
      return [s.body.body];
    case 'switch':
      return s.clauses.map((c) => c.body.body);
    default:
      return [];
  }
}

/** Sums the regions of an unrolled loop's iterations into one loop region that holds their mean. */
function mergeUnrolled(parts: Region[], line: number, label: string): Region {
  const merged: Region = { kind: 'loop', line, trips: num(parts.length), label, events: [], children: [] };
  for (const p of parts) accumulate(merged, p);
  scaleRegion(merged, 1 / Math.max(1, parts.length));
  return merged;
}
