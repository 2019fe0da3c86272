/**
 * What the CUDA frontend reads from the whole file before it analyses any
 * kernel: macros (with the position from which each applies), `#if` branch
 * choices, includes, functions, structs, globals, launch sites and explicit
 * instantiations.
 *
 * The walk visits only the nodes that can hold declarations or statements,
 * in document order, so `#define`s and `#if`s are seen as the preprocessor
 * would see them.
 */
import type { Diagnostic } from '../../ir';
import { say } from '../../messages';
import { foldNumbers } from '../../sym/fold';
import { descendantsByStatement } from '../../syntax-tree';
import { asQuery, noteQuery, recordInto } from '../../deps';
import { RecordedMap } from '../../recorded';
import { coverDescribed } from './describe';
import { CUDA_ARCH, type TargetArch } from './arch';
import { brief, hasQualifier, hasToken, joinContinuations, lineOf, named, type Node, type Snippets } from './syntax';

export interface MacroDef {
  name: string;
  /** Parameter names of a function-like macro; null for an object-like one. */
  params: string[] | null;
  /** The body parsed as an expression or a statement (null when empty). */
  body: Node | null;
  text: string;
  line: number;
  /** Position from which the definition applies; an `#undef` is a definition with `undef` set. */
  pos: number;
  undef?: boolean;
}

export interface TParam {
  name: string;
  kind: 'type' | 'value';
  /** Default value or type node. */
  dflt: Node | null;
}

export interface FnDef {
  name: string;
  node: Node;
  /** The template declaration around the function, if any. */
  template: Node | null;
  tparams: TParam[];
  params: Node[];
  body: Node | null;
  isGlobal: boolean;
  /** The struct the function is a method of. */
  owner?: StructDef;
}

export interface StructDef {
  name: string;
  node: Node;
  tparams: TParam[];
  methods: Map<string, FnDef[]>;
  conversion: FnDef | null;
  /** Non-static data members by name. */
  fields: Map<string, { type: Node; declarator: Node }>;
  /** The data members in declaration order, for the layout (an anonymous struct or union member is inlined). */
  members: ({ name: string; type: Node; declarator: Node } | { anon: StructDef })[];
  /** A `union`: every member at offset 0. */
  union: boolean;
  /** `alignas(N)` / `__align__(N)` on the struct. */
  alignas: Node | null;
  /** Base classes (`struct B : A`), laid out first. */
  bases: Node[];
}

/** `typedef T name;` / `using name = T;`: the aliased type and, for `typedef`, its declarator (pointers). */
export interface TypeAlias {
  type: Node;
  declarator: Node | null;
}

/** A texture or surface reference declared at file scope (`texture<float, 2, cudaReadModeElementType> tex;`). */
export interface TextureRef {
  name: string;
  /** The element type argument. */
  elem: Node | null;
  /** `cudaReadModeNormalizedFloat`: reads return floats (`uchar4` texels read as `float4`). */
  normalized: boolean;
}

export interface GlobalDef {
  name: string;
  /** The declaration node and the declarator of this name. */
  decl: Node;
  declarator: Node;
  space: 'constant' | 'global' | 'const';
}

export interface LaunchSite {
  call: Node;
  name: string;
  targs: Node[];
  /** `<<<grid, block, smem, stream>>>`. */
  config: Node[];
  args: Node[];
}

export interface Instantiation {
  name: string;
  targs: Node[];
  line: number;
}

export interface Include {
  path: string;
  system: boolean;
  line: number;
  /** Offset in the analysed text (headers read in front of the file come first). */
  offset: number;
  /** A project header read whole in front of the file (its functions are known). */
  read?: true;
}

/**
 * What visiting one top-level statement added to the scan, when nothing in
 * it depends on what came before it (no macro, `#if`, include or
 * diagnostic): replayed for the same statement after an edit elsewhere (a
 * statement carried over into the new tree is the same node object), so an
 * edit re-walks only the statements it touched. Places are read from the
 * nodes when replayed (a statement moved by an edit above it).
 */
type ScanOp =
  | { k: 'fn'; def: FnDef }
  | { k: 'struct'; name: string; def: StructDef; at: Node }
  | { k: 'typedef'; name: string; alias: TypeAlias }
  | { k: 'texture'; name: string; ref: TextureRef }
  | { k: 'global'; name: string; def: GlobalDef }
  | { k: 'inst'; name: string; targs: Node[]; at: Node };

const statementOps = new WeakMap<Node, readonly ScanOp[]>();

/**
 * What a scan in slices searches each top-level statement for ahead: one of
 * the searches made together in a statement's one walk (frontend.ts
 * `SEARCHED_TOGETHER`), so all of them are made.
 */
const SEARCHED_AHEAD = 'call_expression';

/** File scans made, and top-level statements visited and replayed by them (tests). */
export const cudaScanStats = { scans: 0, visited: 0, replayed: 0 };

/** The types of nodes whose children can be declarations, statements or directives. */
const CONTAINERS = new Set([
  'translation_unit',
  'declaration_list',
  'compound_statement',
  'linkage_specification',
  'namespace_definition',
  'template_declaration',
  'function_definition',
  'field_declaration_list',
  'if_statement',
  'else_clause',
  'for_statement',
  'while_statement',
  'do_statement',
  'switch_statement',
  'case_statement',
  'labeled_statement',
  'ERROR',
]);

/** Declarations nested deeper than this (in pathological input) are not looked at. */
const MAX_WALK_DEPTH = 200;
/** How deep a `#if` expression (macros within macros) is evaluated; definitions are memoised. */
const MAX_PP_DEPTH = 400;

/** `FileInfo.callables`, read without recording (also the answer to its read: ./deps.ts). */
export function callablesOf(file: FileInfo, name: string, scope: string | undefined): FnDef[] {
  return (file.functions.get(name) ?? []).filter((d) => !d.isGlobal && d.body && (scope === undefined || inScope(file, d, scope)));
}

/** A namespace the respelling read as top-level code (`flatNamespaces` in frontend.ts): its name, and from its keyword to its `}`. */
export interface FlatScope {
  name: string;
  from: number;
  to: number;
}

/** `FileInfo.kernelParams`, read without recording (also the answer to its read: ./deps.ts). */
export function kernelParamsOf(file: FileInfo, name: string): Node[] | undefined {
  return (file.functions.get(name) ?? []).find((d) => d.isGlobal)?.params;
}

/** Whether a function is a member of a struct, or in a namespace, named `scope` (also one defined out of it: `Get<0>::of`). */
function inScope(file: FileInfo, d: FnDef, scope: string): boolean {
  if (d.owner?.name === scope) return true;
  let decl = d.node.childForFieldName('declarator');
  while (decl && decl.type !== 'function_declarator') decl = decl.childForFieldName('declarator');
  const qualified = decl?.childForFieldName('declarator');
  const outer = qualified?.type === 'qualified_identifier' ? qualified.childForFieldName('scope')?.text.replace(/\s+/g, '').replace(/<.*$/, '') : undefined;
  if (outer === scope) return true;
  for (let p = d.node.parentNode(); p; p = p.parentNode()) if (p.rawType() === 'namespace_definition' && p.childForFieldName('name')?.text === scope) return true;
  const at = d.node.startIndex;
  return file.flatScopes.some((f) => f.name === scope && at > f.from && at < f.to);
}

export class FileInfo {
  readonly macros = new Map<string, MacroDef[]>();
  readonly includes: Include[] = [];
  readonly functions = new RecordedMap<string, FnDef[]>('functions', undefined, coverDescribed);
  readonly kernels: FnDef[] = [];
  readonly structs = new RecordedMap<string, StructDef>('structs', undefined, coverDescribed);
  readonly typedefs = new RecordedMap<string, TypeAlias>('typedefs', undefined, coverDescribed);
  /** Structs by the position of their specifier (anonymous ones are found this way). */
  readonly structsAt = new RecordedMap<number, StructDef>('structsAt', undefined, coverDescribed);
  readonly textures = new RecordedMap<string, TextureRef>('textures', undefined, coverDescribed);
  readonly globals = new RecordedMap<string, GlobalDef>('globals', undefined, coverDescribed);
  readonly launches: LaunchSite[] = [];
  readonly instantiations: Instantiation[] = [];
  readonly diagnostics: Diagnostic[] = [];
  /** The branch chosen at each `#if` (by start index): the node whose children are live, or null for none. */
  private readonly chosen = new Map<number, Node | null>();
  /** Byte ranges of branches the preprocessor drops. */
  private readonly dead: [number, number][] = [];
  private readonly undefinedInIf = new Set<string>();
  private helpers: string | undefined;
  private depth = 0;
  /** While a top-level statement is visited: what it adds (null once something makes it depend on what came before). */
  private ops: ScanOp[] | null = null;

  /** `__CUDA_ARCH__` as the analysis uses it: the user's value, else the selected GPU's (arch.ts); said once. */
  readonly archValue: number | undefined;
  private archSaid = false;

  constructor(
    readonly root: Node,
    readonly snippets: Snippets,
    private readonly userValues: ReadonlyMap<string, number>,
    private readonly arch: TargetArch = { from: 'no GPU selected' },
    sliced = false,
    /** The namespaces the text was respelled without (their places in the analysed text). */
    readonly flatScopes: readonly FlatScope[] = [],
  ) {
    this.archValue = userValues.get(CUDA_ARCH) ?? arch.value;
    if (!sliced) this.scanOn();
  }

  /** The top-level statements the scan walks (comments left out). */
  private tops: Node[] | undefined;
  /** Of them, those walked so far (a scan in slices: `scanOn`). */
  private walked = 0;
  /** Top-level nodes searched ahead for calls, launches and braces (`scanOn`). */
  private searched = 0;

  /**
   * A scan made in time slices (constructed with `sliced`): walks on from the
   * statement where the last call stopped until `over()`, at least one
   * statement a call; then searches each statement ahead for the calls,
   * launches and braces the kernels and launches look for (kept with the
   * statement: a whole-file search in a kernel would be one long block);
   * then the launch sites. Done (true) once the scan is what the constructor
   * makes without `sliced`; otherwise how many of `of` units it has done.
   * Without `over`, the rest of the scan in one call (no search ahead: the
   * first search of a fresh tree is one search of all of it).
   */
  scanOn(over?: () => boolean): true | { done: number; of: number } {
    const statements = (this.tops ??= named(this.root));
    const tops = this.root.children;
    const of = statements.length + tops.length + 1;
    // Each call does one unit at least (a zero-length slice still progresses).
    let did = false;
    if (this.walked < statements.length) {
      this.walkTop(this.root, over ?? (() => false));
      did = true;
    }
    if (over) {
      if (this.walked < statements.length || (did && over())) return { done: this.walked, of };
      recordInto(undefined, () => {
        while (this.searched < tops.length) {
          tops[this.searched++].descendantsOfType(SEARCHED_AHEAD);
          did = true;
          if (over()) return;
        }
      });
      if (this.searched < tops.length || (did && over())) return { done: statements.length + this.searched, of };
    }
    this.collectLaunches();
    return true;
  }

  /**
   * The text of every function that is not a kernel (helpers a kernel may
   * call), computed once. Not a read of the kernel that happens to ask first:
   * what it reads of this text is its `helperMentions:` query.
   */
  helperText(): string {
    this.helpers ??= recordInto(undefined, () =>
      [...this.functions.values()]
        .flat()
        .filter((f) => !f.isGlobal)
        .map((f) => f.body?.text ?? '')
        .join('\n'),
    );
    return this.helpers;
  }

  /**
   * The functions named `name` a call can run (not kernels; with a body),
   * recorded as `callables:name`: a call in host code to a kernel's name (a
   * launch) does not read that kernel, so typing in the kernel does not
   * analyse the launches of others again. A qualified call (`scope`: `cg`
   * of `cg::reduce`) runs only a function of a namespace or struct of that
   * name, not a global one of the file that happens to share its name.
   */
  callables(name: string, scope?: string): FnDef[] {
    const defs = asQuery(`callables:${scope ? `${scope}::` : ''}${name}`, () => callablesOf(this, name, scope));
    coverDescribed(defs);
    return defs;
  }

  /**
   * The parameters of the kernel named `name` (its first definition), recorded
   * as `kernelParams:name`: their text, not the kernel's body.
   */
  kernelParams(name: string): Node[] | undefined {
    const params = asQuery(`kernelParams:${name}`, () => kernelParamsOf(this, name));
    coverDescribed(params);
    return params;
  }

  /** The macro `name` as defined at position `pos`, or undefined. */
  macro(name: string, pos: number): MacroDef | undefined {
    noteQuery(`macro:${name}`);
    const defs = this.macros.get(name);
    if (!defs) return undefined;
    let best: MacroDef | undefined;
    for (const d of defs) if (d.pos <= pos && (!best || d.pos >= best.pos)) best = d;
    return best && !best.undef ? best : undefined;
  }

  /** The live children of a `#if`/`#ifdef` node (the chosen branch), as the kernel walk needs them. */
  liveChildren(n: Node): Node[] {
    const top = n.readUnit();
    if (top) noteQuery(`live:${top.startPosition.row}`);
    const branch = this.chosen.get(n.startIndex);
    return branch ? liveOf(branch) : [];
  }

  /**
   * The branch chosen at each `#if` within `st` (a top-level statement), as
   * offsets from its start: the answer to a kernel's `live:` read (deps.ts).
   */
  decisionsIn(st: Node): string {
    const out: string[] = [];
    for (const [at, branch] of this.chosen) if (at >= st.startIndex && at < st.endIndex) out.push(`${at - st.startIndex}:${branch ? branch.startIndex - st.startIndex : '-'}`);
    return out.sort().join(',');
  }

  /** Whether the text of a function that is not a kernel mentions `word` (a kernel's `helperMentions:` read). */
  helperMentions(word: string): boolean {
    noteQuery(`helperMentions:${word}`);
    return this.helperText().includes(word);
  }

  /** The project headers the file and its headers include and that were not read whole: where an unknown function may come from (a kernel's `includes:*` read). */
  projectIncludes(): Include[] {
    noteQuery('includes:*');
    const seen = new Set<string>();
    return this.includes.filter((i) => !i.system && !i.read && !seen.has(i.path) && !!seen.add(i.path));
  }

  isDead(n: Node): boolean {
    for (const [a, b] of this.dead) if (n.startIndex >= a && n.endIndex <= b) return true;
    return false;
  }

  /**
   * The file's top-level statements from the `walked`-th, each replayed from
   * what it added last time when it can be (`ScanOp`), until `over()` (after
   * one statement at least).
   */
  private walkTop(root: Node, over: () => boolean): void {
    if (this.walked === 0) cudaScanStats.scans++;
    this.depth++;
    const tops = (this.tops ??= named(root));
    while (this.walked < tops.length) {
      const c = tops[this.walked++];
      const known = statementOps.get(c);
      if (known) {
        cudaScanStats.replayed++;
        for (const op of known) this.apply(op);
      } else {
        cudaScanStats.visited++;
        this.ops = [];
        this.visit(c, null);
        if (this.ops) statementOps.set(c, this.ops);
        this.ops = null;
      }
      if (over()) break;
    }
    this.depth--;
  }

  /** Adds to the scan what a statement's visit found (and notes it while the statement's ops are kept). */
  private emit(op: ScanOp): void {
    this.ops?.push(op);
    this.apply(op);
  }

  /** Something of the statement depends on what came before it (a macro, an `#if`): its ops are not kept. */
  private stateful(): void {
    this.ops = null;
  }

  private apply(op: ScanOp): void {
    switch (op.k) {
      case 'fn': {
        const def = op.def;
        const list = this.functions.get(def.name) ?? [];
        list.push(def);
        this.functions.set(def.name, list);
        if (def.isGlobal && def.body) this.kernels.push(def);
        return;
      }
      case 'struct':
        this.structs.set(op.name, op.def);
        this.structsAt.set(op.at.startIndex, op.def);
        return;
      case 'typedef':
        this.typedefs.set(op.name, op.alias);
        return;
      case 'texture':
        this.textures.set(op.name, op.ref);
        return;
      case 'global':
        this.globals.set(op.name, op.def);
        return;
      case 'inst':
        this.instantiations.push({ name: op.name, targs: op.targs, line: lineOf(op.at) });
        return;
    }
  }

  private walk(n: Node, owner: StructDef | null): void {
    if (++this.depth <= MAX_WALK_DEPTH) for (const c of named(n)) this.visit(c, owner);
    this.depth--;
  }

  private visit(c: Node, owner: StructDef | null): void {
    switch (c.type) {
      case 'preproc_def':
      case 'preproc_function_def':
        this.define(c);
        return;
      case 'preproc_call':
        this.directive(c);
        return;
      case 'preproc_include':
        this.include(c);
        return;
      case 'preproc_if':
      case 'preproc_ifdef':
        this.conditional(c, owner);
        return;
      case 'function_definition':
        this.func(c, owner);
        this.walk(c, owner);
        return;
      case 'struct_specifier':
      case 'class_specifier':
      case 'union_specifier':
        this.struct(c);
        return;
      case 'declaration':
        this.declaration(c, owner);
        this.structsIn(c);
        return;
      case 'type_definition':
        this.typedef(c);
        return;
      case 'alias_declaration': {
        const name = c.childForFieldName('name')?.text;
        const type = c.childForFieldName('type');
        if (name && type) this.emit({ k: 'typedef', name, alias: { type, declarator: null } });
        return;
      }
      case 'template_instantiation':
        this.instantiation(c);
        return;
      default:
        if (CONTAINERS.has(c.type)) this.walk(c, c.type === 'ERROR' ? null : owner);
    }
  }

  private define(c: Node): void {
    // A macro's body is parsed by the scan's snippets (freed with it), and it changes what follows.
    this.stateful();
    const name = c.childForFieldName('name')?.text;
    if (!name) return;
    const ps = c.childForFieldName('parameters');
    const params = ps ? named(ps).filter((p) => p.type === 'identifier').map((p) => p.text) : null;
    const text = joinContinuations(c.childForFieldName('value')?.text ?? '').trim();
    const body = text ? this.snippets.statement(text) : null;
    const expr = body && body.type === 'expression_statement' && !body.hasError ? (named(body)[0] ?? null) : body;
    this.addMacro({ name, params, body: expr, text, line: lineOf(c), pos: c.startIndex });
  }

  private addMacro(d: MacroDef): void {
    const list = this.macros.get(d.name) ?? [];
    list.push(d);
    this.macros.set(d.name, list);
  }

  private directive(c: Node): void {
    this.stateful();
    const dir = c.childForFieldName('directive')?.text;
    const arg = c.childForFieldName('argument')?.text.trim();
    if (dir === '#undef' && arg)
      this.addMacro({ name: arg, params: null, body: null, text: '', line: lineOf(c), pos: c.startIndex, undef: true });
  }

  private include(c: Node): void {
    this.stateful();
    const p = c.childForFieldName('path');
    if (!p) return;
    const system = p.type === 'system_lib_string';
    const path = system ? p.text.slice(1, -1) : p.text.replace(/^"|"$/g, '');
    this.includes.push({ path, system, line: lineOf(c), offset: c.startIndex });
  }

  /** Chooses the live branch of a `#if` chain with the macros seen so far, and walks only that one. */
  private conditional(c: Node, owner: StructDef | null): void {
    this.stateful();
    let branch: Node | null = c;
    let live: Node | null = null;
    while (branch) {
      const taken = live === null && this.branchTaken(branch);
      if (taken) live = branch;
      else this.dead.push([bodyStart(branch), bodyEnd(branch)]);
      branch = branch.childForFieldName('alternative');
    }
    this.chosen.set(c.startIndex, live);
    if (live) for (const ch of liveOf(live)) this.visit(ch, owner);
  }

  private branchTaken(b: Node): boolean {
    if (b.type === 'preproc_else') return true;
    if (b.type === 'preproc_ifdef' || b.type === 'preproc_elifdef') {
      const name = b.childForFieldName('name')?.text ?? '';
      const negate = hasToken(b, '#ifndef') || hasToken(b, '#elifndef');
      const defined = this.macro(name, b.startIndex) !== undefined || this.userValues.has(name) || name === CUDA_ARCH;
      return negate ? !defined : defined;
    }
    const cond = b.childForFieldName('condition');
    if (!cond) return false;
    const v = this.ppValue(cond, b.startIndex, 0);
    if (v === undefined && this.archValue === undefined && /\b__CUDA_ARCH__\b/.test(cond.text)) {
      this.diagnostics.push(say('cudaArchUnknown', lineOf(b), this.arch.from, brief(cond, 50)));
      return true;
    }
    if (v === undefined) {
      // Not computable (too deep, an unsupported operator): the branch is kept, and said so.
      this.diagnostics.push(say('ppUnknown', lineOf(b), brief(cond, 50)));
      return true;
    }
    return v !== 0;
  }

  /** Evaluates a `#if` expression the way the preprocessor does (undefined names are 0). */
  ppValue(n: Node, pos: number, depth: number): number | undefined {
    if (depth > MAX_PP_DEPTH) return undefined;
    switch (n.type) {
      case 'number_literal':
        return parseIntLiteral(n.text);
      case 'char_literal':
        return n.text.length >= 3 ? n.text.charCodeAt(1) : 0;
      case 'true':
        return 1;
      case 'false':
        return 0;
      case 'parenthesized_expression':
        return named(n)[0] ? this.ppValue(named(n)[0], pos, depth + 1) : undefined;
      case 'preproc_defined': {
        const id = named(n)[0]?.text ?? '';
        return this.macro(id, pos) || this.userValues.has(id) || id === CUDA_ARCH ? 1 : 0;
      }
      case 'identifier':
        return this.ppIdentifier(n, pos, depth);
      case 'unary_expression':
        return this.ppUnary(n, pos, depth);
      case 'binary_expression':
        return this.ppBinary(n, pos, depth);
      case 'conditional_expression': {
        const c = this.ppValue(n.childForFieldName('condition')!, pos, depth + 1);
        if (c === undefined) return undefined;
        const pick = n.childForFieldName(c !== 0 ? 'consequence' : 'alternative');
        return pick ? this.ppValue(pick, pos, depth + 1) : undefined;
      }
      default:
        return undefined;
    }
  }

  private readonly ppMacroValues = new Map<MacroDef, number | undefined>();

  private ppIdentifier(n: Node, pos: number, depth: number): number | undefined {
    const user = this.userValues.get(n.text);
    if (user !== undefined) return user;
    const m = this.macro(n.text, pos);
    if (n.text === CUDA_ARCH && !m) {
      // The device pass for the target architecture: defined, with the GPU's value (or none known).
      if (this.archValue !== undefined && !this.archSaid) {
        this.archSaid = true;
        this.diagnostics.push(say('cudaArch', lineOf(n), this.archValue, this.arch.from));
      }
      return this.archValue;
    }
    if (m && m.params === null && m.body) {
      // Each definition is evaluated once: chains like `#define F2 F1 + F1` stay linear.
      if (this.ppMacroValues.has(m)) return this.ppMacroValues.get(m);
      const v = this.ppValue(m.body, pos, depth + 1);
      this.ppMacroValues.set(m, v);
      return v;
    }
    if (!m && !this.undefinedInIf.has(n.text)) {
      this.undefinedInIf.add(n.text);
      this.diagnostics.push(say('ppUndefined', lineOf(n), n.text));
    }
    return 0;
  }

  private ppUnary(n: Node, pos: number, depth: number): number | undefined {
    const a = this.ppValue(n.childForFieldName('argument')!, pos, depth + 1);
    if (a === undefined) return undefined;
    const op = n.childForFieldName('operator')?.text;
    if (op === '!') return a ? 0 : 1;
    if (op === '-') return -a;
    if (op === '~') return ~a;
    return a;
  }

  private ppBinary(n: Node, pos: number, depth: number): number | undefined {
    const a = this.ppValue(n.childForFieldName('left')!, pos, depth + 1);
    const b = this.ppValue(n.childForFieldName('right')!, pos, depth + 1);
    if (a === undefined || b === undefined) return undefined;
    return foldInt(n.childForFieldName('operator')?.text ?? '', a, b);
  }

  private func(c: Node, owner: StructDef | null): void {
    const parts = functionParts(c);
    if (!parts) return;
    const template = c.parent?.type === 'template_declaration' ? c.parent : null;
    const def: FnDef = {
      name: parts.name,
      node: c,
      template,
      tparams: template ? templateParams(template) : [],
      params: parts.params,
      body: c.childForFieldName('body'),
      isGlobal: hasToken(c, '__global__'),
      ...(owner ? { owner } : {}),
    };
    if (owner) {
      if (parts.conversion) owner.conversion = def;
      else {
        const list = owner.methods.get(def.name) ?? [];
        list.push(def);
        owner.methods.set(def.name, list);
      }
      return;
    }
    this.emit({ k: 'fn', def });
  }

  /** A struct, class or union with a body; `as` names an anonymous one (`typedef struct { … } P;`). */
  private struct(c: Node, as?: string): StructDef | undefined {
    const name = c.childForFieldName('name')?.text ?? as;
    const body = c.childForFieldName('body');
    if (!name || !body) return undefined;
    const template = c.parent?.type === 'template_declaration' ? c.parent : null;
    const def: StructDef = {
      name,
      node: c,
      tparams: template ? templateParams(template) : [],
      methods: new Map(),
      conversion: null,
      fields: new Map(),
      members: [],
      union: c.type === 'union_specifier',
      alignas: named(c).find((x) => x.type === 'alignas_qualifier') ?? null,
      bases: named(c)
        .filter((x) => x.type === 'base_class_clause')
        .flatMap((x) => named(x).filter((b) => b.type === 'type_identifier' || b.type === 'qualified_identifier' || b.type === 'template_type')),
    };
    this.emit({ k: 'struct', name, def, at: c });
    for (const m of named(body)) {
      if (m.type === 'field_declaration') this.field(def, m);
      else if (m.type === 'function_definition') this.func(m, def);
      else if (m.type === 'template_declaration') for (const f of named(m)) if (f.type === 'function_definition') this.func(f, def);
    }
    return def;
  }

  private structsIn(decl: Node): void {
    const t = decl.childForFieldName('type');
    if (t && (t.type === 'struct_specifier' || t.type === 'class_specifier' || t.type === 'union_specifier')) this.struct(t);
  }

  private field(def: StructDef, m: Node): void {
    const type = m.childForFieldName('type');
    if (!type) return;
    if (named(m).some((x) => x.type === 'storage_class_specifier' && x.text === 'static')) return;
    const declarators = m.childrenForFieldName('declarator');
    if (declarators.length === 0 && /^(struct|class|union)_specifier$/.test(type.type) && !type.childForFieldName('name')) {
      // An anonymous struct or union member: its members belong to the enclosing struct (named by its place).
      this.stateful();
      const anon = this.struct(type, `${def.name}::<anonymous@${type.startIndex}>`);
      if (anon) {
        def.members.push({ anon });
        for (const [f, v] of anon.fields) def.fields.set(f, v);
      }
      return;
    }
    if (/^(struct|class|union)_specifier$/.test(type.type)) this.struct(type);
    for (const d of declarators) {
      const id = innermostName(d);
      if (!id) continue;
      def.fields.set(id, { type, declarator: d });
      def.members.push({ name: id, type, declarator: d });
    }
  }

  /** `typedef struct { … } P;`, `typedef float4 vec;`, `typedef struct Node* NodePtr;`. */
  private typedef(c: Node): void {
    const type = c.childForFieldName('type');
    if (!type) return;
    const declarators = c.childrenForFieldName('declarator');
    if (/^(struct|class|union)_specifier$/.test(type.type) && type.childForFieldName('body')) {
      const plain = declarators.find((d) => d.type === 'type_identifier');
      this.struct(type, type.childForFieldName('name') ? undefined : plain?.text);
      if (!type.childForFieldName('name') && plain) {
        for (const d of declarators) if (d.startIndex !== plain.startIndex) this.emit({ k: 'typedef', name: innermostName(d) ?? '', alias: { type, declarator: d } });
        return;
      }
    }
    for (const d of declarators) {
      const name = innermostName(d);
      if (name) this.emit({ k: 'typedef', name, alias: { type, declarator: d } });
    }
  }

  /** File-scope `__constant__`, `__device__` and `const`/`constexpr` variables (not function locals). */
  private declaration(c: Node, owner: StructDef | null): void {
    if (owner || insideFunction(c)) return;
    const type = c.childForFieldName('type');
    if (type?.type === 'template_type' && /^(texture|surface)$/.test(type.childForFieldName('name')?.text ?? '')) {
      // A texture or surface reference (the pre-CUDA 12 API): `texture<float4, 2, cudaReadModeElementType> tex;`.
      const args = type.childForFieldName('arguments');
      const as = args ? named(args) : [];
      for (const d of c.childrenForFieldName('declarator')) {
        const name = innermostName(d);
        if (name) this.emit({ k: 'texture', name, ref: { name, elem: as[0] ?? null, normalized: as.some((a) => a.text.includes('NormalizedFloat')) } });
      }
      return;
    }
    const constant = hasQualifier(c, '__constant__');
    const device = hasToken(c, '__device__');
    const isConst = hasQualifier(c, 'const') || hasQualifier(c, 'constexpr');
    const space: GlobalDef['space'] | null = constant ? 'constant' : device ? 'global' : isConst ? 'const' : null;
    if (!space) return;
    for (const d of c.childrenForFieldName('declarator')) {
      const name = innermostName(d);
      if (name) this.emit({ k: 'global', name, def: { name, decl: c, declarator: d, space } });
    }
  }

  private instantiation(c: Node): void {
    const d = c.childForFieldName('declarator');
    const fd = d?.type === 'function_declarator' ? d : d?.descendantsOfType('function_declarator')[0];
    const tf = fd?.childForFieldName('declarator');
    if (!tf || tf.type !== 'template_function') return;
    const name = tf.childForFieldName('name')?.text;
    const args = tf.childForFieldName('arguments');
    if (name && args) this.emit({ k: 'inst', name, targs: named(args), at: c });
  }

  private collectLaunches(): void {
    // The launch token `<<<` may have white space inside (`< < <`).
    for (const kcs of descendantsByStatement(this.root, 'kernel_call_syntax', /<\s*<\s*</)) {
      const call = kcs.parent;
      if (!call || call.type !== 'call_expression' || this.isDead(call)) continue;
      const fn = call.childForFieldName('function');
      if (!fn) continue;
      let name = fn.text;
      let targs: Node[] = [];
      if (fn.type === 'template_function') {
        name = fn.childForFieldName('name')?.text ?? name;
        const a = fn.childForFieldName('arguments');
        targs = a ? named(a) : [];
      }
      name = name.split('::').pop()!;
      const argList = call.childForFieldName('arguments');
      this.launches.push({ call, name, targs, config: named(kcs), args: argList ? named(argList) : [] });
    }
  }
}

function insideFunction(n: Node): boolean {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'function_definition') return true;
  return false;
}

/** The statements and declarations of one `#if` branch (without its condition and the next branch). */
function liveOf(branch: Node): Node[] {
  const cond = branch.childForFieldName('condition') ?? branch.childForFieldName('name');
  return named(branch).filter((ch) => !isBranchNode(ch) && !(cond && ch.startIndex === cond.startIndex && ch.endIndex === cond.endIndex));
}

function isBranchNode(n: Node): boolean {
  return n.type === 'preproc_elif' || n.type === 'preproc_else' || n.type === 'preproc_elifdef';
}

function bodyStart(b: Node): number {
  return (b.childForFieldName('condition') ?? b.childForFieldName('name'))?.endIndex ?? b.startIndex;
}

function bodyEnd(b: Node): number {
  return b.childForFieldName('alternative')?.startIndex ?? b.endIndex;
}

/** Name, parameters and kind of a function definition's declarator. */
function functionParts(def: Node): { name: string; params: Node[]; conversion: boolean } | null {
  let d = def.childForFieldName('declarator');
  for (let i = 0; d && i < 8 && d.type !== 'function_declarator' && d.type !== 'operator_cast'; i++)
    d = d.childForFieldName('declarator') ?? named(d).find((x) => x.type.endsWith('declarator')) ?? null;
  if (!d) return null;
  if (d.type === 'operator_cast') return { name: 'operator cast', params: [], conversion: true };
  const nameNode = d.childForFieldName('declarator');
  const list = d.childForFieldName('parameters');
  if (!nameNode) return null;
  let name = nameNode.text;
  if (nameNode.type === 'template_function') name = nameNode.childForFieldName('name')?.text ?? name;
  name = name.split('::').pop()!;
  return { name, params: list ? named(list).filter((p) => p.type.endsWith('parameter_declaration')) : [], conversion: false };
}

export function templateParams(t: Node): TParam[] {
  const list = t.childForFieldName('parameters');
  if (!list) return [];
  const out: TParam[] = [];
  for (const p of named(list)) {
    if (p.type === 'type_parameter_declaration') {
      const id = named(p)[0];
      if (id) out.push({ name: id.text, kind: 'type', dflt: null });
    } else if (p.type === 'optional_type_parameter_declaration') {
      const id = p.childForFieldName('name');
      if (id) out.push({ name: id.text, kind: 'type', dflt: p.childForFieldName('default_type') });
    } else if (p.type === 'parameter_declaration' || p.type === 'optional_parameter_declaration') {
      const id = p.childForFieldName('declarator');
      if (id) out.push({ name: id.text, kind: 'value', dflt: p.childForFieldName('default_value') });
    }
  }
  return out;
}

/** The identifier a declarator declares (`*A`, `As[32][32]`, `x = 1` → the name). */
function innermostName(d: Node): string | null {
  let cur: Node | null = d;
  for (let i = 0; cur && i < 12; i++) {
    if (cur.type === 'identifier' || cur.type === 'field_identifier' || cur.type === 'type_identifier') return cur.text;
    cur = cur.childForFieldName('declarator') ?? named(cur).find((x) => x.type === 'identifier' || x.type.endsWith('declarator')) ?? null;
  }
  return null;
}

/** Value of a C integer literal (`0x10`, `256u`, `1ull`), or undefined for floating literals. */
export function parseIntLiteral(text: string): number | undefined {
  const t = text.replace(/'/g, '').replace(/[uUlL]+$/, '');
  if (/^0[xX][0-9a-fA-F]+$/.test(t)) return parseInt(t, 16);
  if (/^0[bB][01]+$/.test(t)) return parseInt(t.slice(2), 2);
  if (/^0[0-7]+$/.test(t)) return parseInt(t, 8);
  if (/^\d+$/.test(t)) return Number(t);
  return undefined;
}

/** C integer arithmetic on plain numbers (the preprocessor's and folded constants'). */
/** Integer constant folding with C semantics (engine rule: sym/fold.ts). */
export function foldInt(op: string, a: number, b: number): number | undefined {
  return foldNumbers(op, a, b, 'trunc');
}
