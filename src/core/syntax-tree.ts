/**
 * A cached view of a tree-sitter tree: the nodes the frontends walk.
 *
 * web-tree-sitter's `Node` is a thin handle: every `.type`, `.namedChildren`,
 * `.childForFieldName(…)` or `.parent` crosses into WASM (marshalling the node
 * into a transfer buffer) and allocates new handles, so walking the same
 * subtree twice costs the same as the first time. The frontends walk the same
 * nodes many times (host-value following re-reads a function for every
 * launch, each kernel reads the module's constants), and profiles put the
 * crossings at a third or more of an analysis.
 *
 * A `SyntaxNode` answers the same questions and remembers each answer; the
 * view keeps one `SyntaxNode` per tree-sitter node (by id, which is unique
 * within a tree), so identity (`===`) and `id` comparisons hold and a child
 * read once is a property read afterwards. A view belongs to one tree: a new
 * parse (even an incremental one, whose reused nodes keep their ids but not
 * their positions) gets a new view.
 */
import type { Node as TsNode, Tree, TreeCursor } from 'web-tree-sitter';
import { answerRow, recording } from './deps';
import * as direct from './ts-direct';

export type Point = { row: number; column: number };

class TreeView {
  readonly nodes = new Map<number, SyntaxNode>();
  /** The root's node object, once made. */
  root: SyntaxNode | undefined;
  /** The trees whose nodes this view's objects read from (its own, and those of statements carried over from the view before an edit). */
  donors = new Set<Tree>();
  /** Top-level statements carried over from the previous view (file order): their nodes answer for this tree's nodes there. */
  carried: SyntaxNode[] = [];
  /** The tree's address in tree-sitter's memory (what its module's functions take). */
  readonly ptr: number;
  /** The tree's grammar: its symbol and field names. */
  readonly grammar: direct.Grammar;
  constructor(
    readonly tree: Tree,
    /** The text the tree was parsed from, when known (node text is a slice of it). */
    readonly source: string | undefined,
    /** The document's views share this: its newest view (a carried node belongs to the newest tree). */
    public doc: { current: TreeView } | undefined = undefined,
  ) {
    this.donors.add(tree);
    this.doc ??= { current: this };
    this.ptr = (tree as unknown as { 0: number })[0];
    this.grammar = tree.language as unknown as direct.Grammar;
  }

  of(n: TsNode): SyntaxNode {
    return this.ofRaw(n.id, n.startIndex, n.startPosition.row, n.startPosition.column, (n as unknown as { 0: number })[0], n);
  }

  /** The node of this view for a node of its tree given as web-tree-sitter lays it out (`ts-direct.ts`). */
  ofRaw(id: number, start: number, row: number, column: number, other: number, ts?: TsNode): SyntaxNode {
    const hit = this.nodes.get(id);
    // Ids are unique within a tree; the start check guards the view against a node of another tree.
    if (hit && hit.rawStart === start) return hit;
    const s = new SyntaxNode(this, id, start, ts?.startPosition ?? { row, column }, other, ts);
    const c = this.carried.length ? this.inCarried(s) : undefined;
    if (c) return c;
    if (!hit) this.nodes.set(id, s);
    return s;
  }

  /** The node `one` took. */
  private last: SyntaxNode | undefined;

  /** The node `one` took, let go. */
  take(): SyntaxNode {
    const n = this.last!;
    this.last = undefined;
    return n;
  }

  /** `ofRaw` as a callback for one node (`ts-direct.ts`), into `last`. */
  readonly one: direct.EachNode = (id, start, row, column, other) => {
    this.last = this.ofRaw(id, start, row, column, other);
  };

  /** `ofRaw` as a list callback (`ts-direct.ts`), into `out`. */
  into(out: SyntaxNode[]): direct.EachNode {
    return (id, start, row, column, other) => out.push(this.ofRaw(id, start, row, column, other));
  }

  /** Whether this view's nodes are all of its own tree (a parse from scratch: nothing carried over). */
  fresh(): boolean {
    return this.carried.length === 0 && this.donors.size === 1;
  }

  /** The carried node that stands for `n` (same place, same type), when `n` lies in a carried statement. */
  private inCarried(n: SyntaxNode): SyntaxNode | undefined {
    const at = lastStartingBy(this.carried, n.rawStart, (c) => c.startIndex);
    if (at < 0) return undefined;
    let cur = this.carried[at];
    if (n.rawStart >= cur.endIndex) return undefined;
    const end = n.rawEnd();
    if (end > cur.endIndex) return undefined;
    const type = n.rawType();
    for (let depth = 0; depth < 500; depth++) {
      if (cur.startIndex === n.rawStart && cur.endIndex === end && cur.type === type) return cur;
      const next: SyntaxNode | undefined = cur.children.find((c) => c.startIndex <= n.rawStart && end <= c.endIndex && (c.startIndex < c.endIndex || c.startIndex === n.rawStart));
      if (!next) return undefined;
      cur = next;
    }
    return undefined;
  }
}

const NO_PARENT = null;

/**
 * A read of `n` while a kernel's reads are recorded (deps.ts): its top-level
 * statement (its read unit), or the whole module for the root's contents.
 * Not inside a node an answer already covers (`cover`), unless the read
 * leads out of `n` (`escapes`: its parent). `holds`: the read takes in
 * what `n` holds (its text, its children, a search), which for a wrapper's
 * own node is the statements inside it too.
 */
function touched(n: SyntaxNode, content: boolean, escapes = false, holds = content, list = false): void {
  const d = recording();
  if (!d || n._seen === d.serial) return;
  const top = n.topNode();
  if (top === null) {
    if (content && n === d.root) d.whole = true;
    return;
  }
  if (top.parentNode() !== d.root) return;
  const unit = n.readUnit()!;
  const wrapper = isWrapper(unit);
  // The text, children or descendants of a wrapper's own node (itself, a namespace's body) hold the statements
  // inside it: those are read too, each as its own unit.
  if (holds && wrapper) readInner(d, unit, n);
  // The list of a wrapper's statements (or a body's): where they are, as a query (`unitsAnswer`).
  else if (list && wrapper && (n === unit || bodiesOf(unit).includes(n))) d.queries.add(unitsKey(unit));
  const row = unit.startPosition.row;
  if (!d.rows.has(row)) {
    if (!escapes && d.covered && within(d.covered.get(row) as SyntaxNode[] | undefined, n)) return;
    d.rows.add(row);
  }
  // Its row is in the recording: any later read of the node records nothing more (rows are only added while it
  // records). Not for a node of a wrapper, whose reads add the wrapper's statements or list by what they take in.
  if (!wrapper) n._seen = d.serial;
}

/**
 * Records the statements inside wrapper `w` (nested wrappers' too) that lie
 * in `n`, a node of the wrapper's own; once per node and recording (the
 * nodes done are let go with the recording's syntax: `Deps.done`).
 */
function readInner(d: { rows: Set<number>; queries: Set<string>; expanded: Set<unknown> | null }, w: SyntaxNode, n: SyntaxNode): void {
  const done = (d.expanded ??= new Set());
  if (done.has(n)) return;
  done.add(n);
  const start = n.startIndex;
  const end = n.spanEnd();
  const todo = [w];
  for (let u = todo.pop(); u; u = todo.pop()) {
    d.queries.add(unitsKey(u));
    for (const c of innerStatements(u)) {
      if (c.startIndex < start || c.spanEnd() > end) continue;
      d.rows.add(c.startPosition.row);
      if (isWrapper(c)) todo.push(c);
    }
  }
}

/** A wrapper's `units:ROW` query, kept with it while it stays on its row (lists are read often: no string each time). */
function unitsKey(w: SyntaxNode): string {
  const row = w.startPosition.row;
  if (w._units?.row !== row) w._units = { row, key: `units:${row}` };
  return w._units.key;
}

function within(spans: SyntaxNode[] | undefined, n: SyntaxNode): boolean {
  if (!spans) return false;
  const start = n.startIndex;
  for (const s of spans) if (s.startIndex <= start && n.spanEnd() <= s.spanEnd()) return true;
  return false;
}

/**
 * While a kernel's reads are recorded: `n` (a node of the own file) is held
 * by the answer to a query just recorded — a scan entry answered with its
 * nodes' rows and text hashes (CUDA `describe`). Reads inside `n` are then
 * answered by that query and need not record the statement around it: a
 * kernel that reads a typedef or helper inside a host function is not
 * analysed again when the host function is typed in elsewhere.
 */
export function cover(n: SyntaxNode): void {
  const d = recording();
  if (!d) return;
  const top = n.topNode();
  // Nodes of the recording's own file only (the same test as `touched`'s).
  if (top === null || top.parentNode() !== d.root) return;
  const row = n.readUnit()!.startPosition.row;
  if (d.rows.has(row)) return;
  const spans = (d.covered ??= new Map()).get(row);
  if (spans) spans.push(n);
  else d.covered.set(row, [n]);
}

/**
 * Statements whose inside is statements of their own to the recorded reads:
 * in C, C++ and CUDA an include guard or `#if` around the file (and its
 * `#else`), a `namespace`, an `extern "C"` block, a host function; in Python
 * a host function (and its decorated definition); in host code of either,
 * the blocks of `if`, `switch`, `case`, loops, `with`, `try`. A kernel
 * inside one reads the statement it stands in, not the whole wrapper: an
 * edit elsewhere in the wrapper does not analyse it again; a launch in one
 * `case` does not read the others; a read of a host function's assignment
 * to one name is not a read of the whole function.
 */
const WRAPPERS = new Set([
  'preproc_ifdef',
  'preproc_if',
  'preproc_else',
  'preproc_elif',
  'namespace_definition',
  'linkage_specification',
  'decorated_definition',
  'function_definition',
  'template_declaration',
  // Blocks of host code (a wrapper only as a statement of another: a kernel's are read with the kernel).
  'if_statement',
  'else_clause',
  'elif_clause',
  'switch_statement',
  'case_statement',
  'for_statement',
  'for_range_loop',
  'while_statement',
  'do_statement',
  'compound_statement',
  'with_statement',
  'try_statement',
  'except_clause',
  'finally_clause',
]);

/** The nodes that hold a wrapper's statements in their turn: a namespace's body, a function's or a loop's block. */
const BODY_TYPES = new Set(['declaration_list', 'compound_statement', 'block']);

/**
 * Whether a node is a wrapper (`WRAPPERS`). Of functions, only host code is:
 * a kernel, a device function or a `@triton.jit` function is read whole —
 * a kernel's own text is its key already, and its statements as reads of
 * their own would only cost answering.
 */
function isWrapper(n: SyntaxNode): boolean {
  return (n._wrapper ??= wrapperNow(n));
}

function wrapperNow(n: SyntaxNode): boolean {
  const type = n.rawType();
  if (!WRAPPERS.has(type)) return false;
  if (type === 'decorated_definition' || type === 'template_declaration') {
    const def = n.rawNamedChildren().find((c) => c.rawType() === 'function_definition');
    return def !== undefined && isWrapper(def);
  }
  if (type !== 'function_definition') return true;
  const body = n.rawNamedChildren().find((c) => c.rawType() === 'block' || c.rawType() === 'compound_statement');
  if (!body) return false;
  // C, C++, CUDA: host code only (a kernel or a device function is read whole, its own key).
  if (body.rawType() === 'compound_statement') return !n.rawChildren().some((c) => DEVICE_CODE.has(c.rawType()));
  const p = n.parentNode();
  return !(p && p.rawType() === 'decorated_definition' && p.rawNamedChildren().some((d) => d.rawType() === 'decorator' && /\bjit\b/.test(d.rawText())));
}

/** The qualifiers of CUDA code that runs on the device. */
const DEVICE_CODE = new Set(['__global__', '__device__']);

/** The nodes holding a wrapper's statements besides its own children: its bodies (kept with it). */
function bodiesOf(w: SyntaxNode): readonly SyntaxNode[] {
  return (w._bodies ??= bodiesNow(w));
}

const NO_BODIES: readonly SyntaxNode[] = [];

function bodiesNow(w: SyntaxNode): readonly SyntaxNode[] {
  if (w.rawType() === 'template_declaration') {
    // A function template whose function starts on the `template` line: its statements, through the function
    // (on a later line the function is a statement of the template's, and a wrapper itself).
    const def = w.rawNamedChildren().find((c) => c.rawType() === 'function_definition');
    return def && def.rawStartPosition.row === w.rawStartPosition.row ? bodiesOf(def) : NO_BODIES;
  }
  // A block as a statement holds its statements itself.
  if (w.rawType() === 'compound_statement') return NO_BODIES;
  const out = w.rawNamedChildren().filter((c) => BODY_TYPES.has(c.rawType()));
  return out.length ? out : NO_BODIES;
}

/**
 * The statements inside a wrapper (its named children, and its bodies',
 * that start on a later row than it: its header and footer are the
 * wrapper's own). Read without recording.
 */
function innerStatements(w: SyntaxNode): readonly SyntaxNode[] {
  return (w._inner ??= innerNow(w));
}

function innerNow(w: SyntaxNode): SyntaxNode[] {
  const bodies = bodiesOf(w);
  const out: SyntaxNode[] = [];
  if (w.rawType() !== 'template_declaration' || !bodies.length) takeInner(w, bodies, w.rawNamedChildren(), out);
  for (const b of bodies) takeInner(w, bodies, b.rawNamedChildren(), out);
  return out.sort(byRawStart);
}

/** Of `list`, the statements of wrapper `w`: not its bodies, on a later row than it. */
function takeInner(w: SyntaxNode, bodies: readonly SyntaxNode[], list: readonly SyntaxNode[], out: SyntaxNode[]): void {
  const row = w.rawStartPosition.row;
  for (const c of list) if (!bodies.includes(c) && c.rawStartPosition.row > row) out.push(c);
}

function byRawStart(a: SyntaxNode, b: SyntaxNode): number {
  return a.rawStart - b.rawStart;
}

/**
 * The answer to a `units:ROW` read (a wrapper's list of statements read):
 * where the statements of the wrapper at that row are and their types (a
 * list is filtered by type, comments out, without reading each), or none.
 */
export function unitsAnswer(root: SyntaxNode, row: number): string {
  const w = unitAt(root, row);
  return w && isWrapper(w) ? innerStatements(w).map((c) => `${answerRow(c.startPosition.row)}:${c.rawType()}`).join(',') : '\u2205';
}

/**
 * Whether `n` is a read unit whose statements are read units of their own
 * (a host function at the top level or standing as a statement of another
 * wrapper): reads of one name's assignments in it, or of its `return`, can
 * be recorded as queries keyed by its row.
 */
export function isStatementWrapper(n: SyntaxNode): boolean {
  return n.readUnit() === n && isWrapper(n);
}

/** The text a read of `n`'s own unit is answered with: a wrapper's own text (its statements cut out), or its text. */
export function ownText(n: SyntaxNode): { text: string } {
  return isWrapper(n) ? headerOf(n) : n;
}

/** A wrapper's own text (its statements cut out), for the answer to a read of its header (deps.ts). */
const headers = new WeakMap<SyntaxNode, { text: string }>();

function headerOf(w: SyntaxNode): { text: string } {
  let h = headers.get(w);
  if (!h) {
    const all = w.rawText();
    let text = '';
    let at = w.rawStart;
    // One mark for a run of statements (with only white space between them): how many there are and where is
    // the answer to `units:` (a read of the list), not a read of the wrapper's own text.
    let first = true;
    for (const c of innerStatements(w)) {
      const gap = all.slice(at - w.rawStart, c.rawStart - w.rawStart);
      if (first || /\S/.test(gap)) text += gap + '\u0000';
      first = false;
      at = c.rawStart + c.rawText().length;
    }
    text += all.slice(at - w.rawStart);
    headers.set(w, (h = { text }));
  }
  return h;
}

export class SyntaxNode {
  readonly id: number;
  /** @internal Where the tree-sitter node starts in the text it was parsed from. */
  readonly rawStart: number;
  /** @internal Where the tree-sitter node starts, as its tree was parsed. */
  readonly rawStartPosition: Point;
  /**
   * @internal On a top-level statement carried over after an edit before it
   * that changed the text's length (typing on a line above): how far its text
   * moved since its tree was parsed. Every node of the statement adds it to
   * its indices.
   */
  shift = 0;
  /** @internal On a carried top-level statement: how many rows it moved since its tree was parsed (lines added or removed above). */
  rowShift = 0;
  private _type: string | undefined;
  private _text: string | undefined;
  private _endIndex = -1;
  private _endPosition: Point | undefined;
  /** @internal */
  _parent: SyntaxNode | null | undefined;
  /** @internal */
  _children: SyntaxNode[] | undefined;
  /** @internal */
  _named: SyntaxNode[] | undefined;
  /** Fields read: name, child (or null), name, child… (a node is asked few; a Map each cost more than the scan). */
  private _fields: (string | SyntaxNode | null)[] | undefined;
  private _fieldLists: Map<string, SyntaxNode[]> | undefined;
  private _descendants: Map<string, SyntaxNode[]> | undefined;
  private _flags = -1;
  /** @internal The top-level statement it is in, once known (a search of a statement tells its finds theirs). */
  _top: SyntaxNode | null | undefined;
  private _unit: SyntaxNode | null | undefined;
  /** @internal Whether it is a wrapper (`isWrapper`), once asked. */
  _wrapper: boolean | undefined;
  /** @internal A wrapper's bodies (`bodiesOf`), once asked. */
  _bodies: readonly SyntaxNode[] | undefined;
  /** @internal A wrapper's statements (`innerStatements`), once asked. */
  _inner: readonly SyntaxNode[] | undefined;
  /** @internal A wrapper's `units:` query (`unitsKey`). */
  _units: { row: number; key: string } | undefined;
  /** @internal The recording (`Deps.serial`) its statement's row is recorded in already (`touched`). */
  _seen = 0;

  constructor(
    /** @internal The view that made the node (a carried node keeps its own: its handle is of that view's tree). */
    readonly view: TreeView,
    id: number,
    rawStart: number,
    rawStartPosition: Point,
    /** @internal web-tree-sitter's fifth word of a node (its alias symbol), for `ts-direct.ts`. */
    readonly other: number,
    /** web-tree-sitter's own node, when the node was made from one (a query's, a cursor's). */
    private _ts?: TsNode,
  ) {
    this.id = id;
    this.rawStart = rawStart;
    this.rawStartPosition = rawStartPosition;
  }

  /**
   * web-tree-sitter's node for this one (for a cursor or a query, at the
   * root; the reads below call its module directly). Made from the five
   * words when the node came from a direct read: the same fields its
   * constructor sets.
   */
  private get ts(): TsNode {
    if (!this._ts) {
      const proto = Object.getPrototypeOf(this.view.tree.rootNode) as object;
      this._ts = Object.assign(Object.create(proto) as TsNode, { 0: this.other, id: this.id, tree: this.view.tree, startIndex: this.rawStart, startPosition: this.rawStartPosition });
    }
    return this._ts;
  }

  /** How many rows this node moved since its tree was parsed (its statement's row shift). */
  private rowOffset(): number {
    return this.statement()?.rowShift ?? 0;
  }

  /** The top-level statement this node is in, from the cache when known. */
  private statement(): SyntaxNode | null {
    return this._top !== undefined ? this._top : this.topNode();
  }

  get startPosition(): Point {
    const rows = this.rowOffset();
    return rows === 0 ? this.rawStartPosition : { row: this.rawStartPosition.row + rows, column: this.rawStartPosition.column };
  }

  /** How far this node's text moved since its tree was parsed (its statement's shift). */
  private offset(): number {
    return this.statement()?.shift ?? 0;
  }

  get startIndex(): number {
    return this.rawStart + this.offset();
  }

  /** The tree-sitter tree this node belongs to (for a node carried over into later trees, the latest). */
  get tree(): Tree {
    return this.view.doc!.current.tree;
  }

  get type(): string {
    touched(this, false);
    return this.rawType();
  }

  get endIndex(): number {
    touched(this, false);
    return this.rawEnd() + this.offset();
  }

  /** @internal The end index in the places of this node's own tree (not moved by edits since), read without recording. */
  rawEnd(): number {
    if (this._endIndex < 0) this._endIndex = direct.endIndex(this.view.ptr, this);
    return this._endIndex;
  }

  /** @internal The end index, read without recording. */
  spanEnd(): number {
    return this.rawEnd() + this.offset();
  }

  get endPosition(): Point {
    const end = (this._endPosition ??= direct.endPosition(this.view.ptr, this));
    const rows = this.rowOffset();
    return rows === 0 ? end : { row: end.row + rows, column: end.column };
  }

  get text(): string {
    touched(this, true);
    return this.rawText();
  }

  get parent(): SyntaxNode | null {
    touched(this, false, true);
    return this.parentNode();
  }

  /** @internal The parent, read without recording. */
  parentNode(): SyntaxNode | null {
    if (this._parent === undefined) {
      const view = this.view;
      this._parent = direct.parent(view.ptr, this, view.one) ? view.take() : null;
    }
    return this._parent;
  }

  /** @internal The top-level statement this node is in (itself for one); null for the root. */
  topNode(): SyntaxNode | null {
    if (this._top === undefined) {
      const p = this.parentNode();
      this._top = p === null ? null : p.parentNode() === null ? this : p.topNode();
    }
    return this._top;
  }

  /**
   * @internal The statement a read of this node is recorded at (deps.ts): its
   * top-level statement, or, inside a wrapper (`WRAPPERS`: an include guard,
   * a namespace, a host function, a block of host code), the wrapper's
   * statement it stands in, blocks within blocks.
   */
  readUnit(): SyntaxNode | null {
    if (this._unit !== undefined) return this._unit;
    const top = this.topNode();
    let unit = top;
    // In a statement that is no wrapper every node's unit is the statement (no parent is a unit of its own).
    if (top && top !== this && isWrapper(top)) {
      // The parent's unit, unless that is a wrapper this node stands in as a statement of its own.
      const p = this.parentNode()!;
      unit = p.readUnit();
      if (unit && isWrapper(unit) && (p === unit || bodiesOf(unit).includes(p)) && !bodiesOf(unit).includes(this) && (this.rawFlags() & 2) !== 0 && this.rawStartPosition.row > unit.rawStartPosition.row) unit = this;
    }
    this._unit = unit;
    return unit;
  }

  /** @internal Type, named children and text, read without recording (the getters record, then read these). */
  rawType(): string {
    return (this._type ??= this.view.grammar.types[direct.typeId(this.view.ptr, this)] || 'ERROR');
  }

  /** @internal */
  rawNamedChildren(): SyntaxNode[] {
    if (!this._named) {
      this._named = this.childList(true);
    }
    return this._named;
  }

  /** @internal */
  rawText(): string {
    if (this._text === undefined) {
      // The text this view's tree was parsed from, where the tree-sitter node says.
      const src = this.view.source;
      this._text = src !== undefined ? src.slice(this.rawStart, this.rawEnd()) : this.ts.text;
    }
    return this._text;
  }

  get children(): SyntaxNode[] {
    // The list, not what its members hold: each is read when it is read (a wrapper's list is a `units:` query).
    touched(this, true, false, false, true);
    return this.rawChildren();
  }

  /** @internal */
  rawChildren(): SyntaxNode[] {
    if (!this._children) {
      this._children = this.childList(false);
    }
    return this._children;
  }

  get namedChildren(): SyntaxNode[] {
    touched(this, true, false, false, true);
    return this.rawNamedChildren();
  }

  get childCount(): number {
    return this.children.length;
  }

  get namedChildCount(): number {
    return this.namedChildren.length;
  }

  child(i: number): SyntaxNode | null {
    return this.children[i] ?? null;
  }

  namedChild(i: number): SyntaxNode | null {
    return this.namedChildren[i] ?? null;
  }

  childForFieldName(name: string): SyntaxNode | null {
    // One child, read on its own when it is read (a namespace's body holds its statements; its name does not).
    touched(this, true, false, false);
    const fields = (this._fields ??= []);
    for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1] as SyntaxNode | null;
    const view = this.view;
    let c: SyntaxNode | null = NO_PARENT;
    if (direct.childForField(view.ptr, view.grammar, this, name, view.one)) c = this.adopt(view.take());
    fields.push(name, c);
    return c;
  }

  childrenForFieldName(name: string): SyntaxNode[] {
    touched(this, true);
    const lists = (this._fieldLists ??= new Map());
    let cs = lists.get(name);
    if (!cs) {
      cs = this.adoptAll((each) => direct.childrenForField(this.view.ptr, this.view.grammar, this, name, each));
      lists.set(name, cs);
    }
    return cs;
  }

  /** Descendants of the given types in document order (the node itself included, as tree-sitter does). */
  descendantsOfType(types: string | readonly string[]): SyntaxNode[] {
    touched(this, true);
    return this.search(typeof types === 'string' ? types : types.join('\0'), types);
  }

  /** `descendantsOfType`, not recorded; `key` is the types joined by NUL. */
  private search(key: string, types: string | readonly string[]): SyntaxNode[] {
    const memo = (this._descendants ??= new Map());
    let out = memo.get(key);
    if (out) return out;
    const batch = batches.get(this.view.tree.language);
    const top = batch?.keys.has(key) ? this.topNode() : null;
    if (batch && top === this) {
      // A top-level statement: one walk for every search of the batch (a large statement is otherwise walked once per search).
      const found: SyntaxNode[] = [];
      direct.descendantsOfType(this.view.ptr, this.view.grammar, this, batch.key, batch.all, this.view.into(found));
      inStatement(found, this);
      for (const [k, set] of batch.keys) if (!memo.has(k)) memo.set(k, found.filter((n) => set.has(n.rawType())));
      return memo.get(key)!;
    }
    if (top) out = this.within(top.search(key, types));
    else {
      out = [];
      direct.descendantsOfType(this.view.ptr, this.view.grammar, this, key, typeof types === 'string' ? [types] : types, this.view.into(out));
      const st = this.topNode();
      if (st) inStatement(out, st);
    }
    memo.set(key, out);
    return out;
  }

  /** Of `list` (its top-level statement's finds, in document order), those in this node's subtree, this node included. */
  private within(list: SyntaxNode[]): SyntaxNode[] {
    const start = this.startIndex;
    const end = this.spanEnd();
    const out: SyntaxNode[] = [];
    for (let i = lastStartingBy(list, start - 1, (n) => n.startIndex) + 1; i < list.length; i++) {
      const n = list[i];
      const s = n.startIndex;
      if (s > end) break;
      const e = n.spanEnd();
      if (e > end) continue;
      // Ranges of nodes nest; a node as wide as this one or of no width may still lie beside or above it.
      if (n !== this && (s === e || (s === start && e === end)) && !this.holds(n)) continue;
      out.push(n);
    }
    return out;
  }

  private holds(n: SyntaxNode): boolean {
    for (let p = n.parentNode(); p; p = p.parentNode()) if (p === this) return true;
    return false;
  }

  private flags(): number {
    touched(this, false);
    return this.rawFlags();
  }

  /** has-error 1, named 2, missing 4, error 8; read without recording. */
  private rawFlags(): number {
    if (this._flags < 0) this._flags = direct.flags(this.view.ptr, this);
    return this._flags;
  }

  get hasError(): boolean {
    return (this.flags() & 1) !== 0;
  }

  get isNamed(): boolean {
    return (this.flags() & 2) !== 0;
  }

  get isMissing(): boolean {
    return (this.flags() & 4) !== 0;
  }

  get isError(): boolean {
    return (this.flags() & 8) !== 0;
  }

  /** A tree-sitter cursor at this node (its `currentNode`s go through `nodeOf`). */
  walk(): TreeCursor {
    return this.ts.walk();
  }

  /** This view's node for a tree-sitter node of the same tree (a cursor's or a query's). */
  nodeOf(n: TsNode): SyntaxNode {
    return this.view.of(n);
  }

  /** @internal The tree this node's tree-sitter handle (and those of the nodes it makes) belongs to. */
  get handleTree(): Tree {
    return this.view.tree;
  }

  /** @internal Whether `descendantsOfType` was asked for these types (joined by NUL) and kept its answer. */
  searched(key: string): boolean {
    return this._descendants?.has(key) ?? false;
  }

  /** @internal Keeps `list` as this node's descendants of these types (found by a search of the whole tree). */
  rememberSearch(key: string, list: SyntaxNode[]): void {
    (this._descendants ??= new Map()).set(key, list);
  }

  /** @internal The nodes this one has made and remembers (children, fields, descendants read). */
  remembered(): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    if (this._children) out.push(...this._children);
    else if (this._named) out.push(...this._named);
    for (let i = 1; i < (this._fields?.length ?? 0); i += 2) if (this._fields![i]) out.push(this._fields![i] as SyntaxNode);
    for (const l of this._fieldLists?.values() ?? []) out.push(...l);
    for (const l of this._descendants?.values() ?? []) out.push(...l);
    return out;
  }

  /**
   * @internal The root of a view a later one took over (`carryOver`): what
   * it remembers of the statements is dropped (they are the later root's).
   * Not read again: an edit's analysis reads the newest root.
   */
  supersede(): void {
    this._children = [];
    this._named = [];
    this._fields = undefined;
    this._fieldLists = undefined;
    this._descendants = undefined;
  }

  /** The underlying tree-sitter node (for a query or a cursor). */
  get raw(): TsNode {
    return this.ts;
  }

  toString(): string {
    return this.ts.toString();
  }

  /** This node's children (or named children), each knowing this node as its parent. */
  private childList(named: boolean): SyntaxNode[] {
    return this.adoptAll((each) => direct.children(this.view.ptr, this, named, each));
  }

  /** The nodes `read` gives (children of this node), each knowing this node as its parent. */
  private adoptAll(read: (each: direct.EachNode) => void): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    read(this.view.into(out));
    for (const c of out) this.adopt(c);
    return out;
  }

  private adopt(c: SyntaxNode): SyntaxNode {
    if (c._parent === undefined) c._parent = this;
    return c;
  }
}

/**
 * Tells nodes found by a search of top-level statement `st` (or of a node in
 * it) that it is theirs: asked by every read recorded, it was otherwise
 * found by reading each one's parents up to the root, and tree-sitter finds
 * a parent by walking down from the root.
 */
function inStatement(found: readonly SyntaxNode[], st: SyntaxNode): void {
  for (const n of found) if (n._top === undefined) n._top = st;
}

/**
 * `root.descendantsOfType(types)`, gathered per top-level statement: each
 * statement keeps its own list, so after an edit only the statements it
 * touched are searched again (the others are carried over with their lists).
 */
export function descendantsByStatement(root: SyntaxNode, types: string | readonly string[], contains?: RegExp): SyntaxNode[] {
  const wanted = typeof types === 'string' ? [types] : types;
  const out: SyntaxNode[] = wanted.includes(root.type) ? [root] : [];
  if (contains === undefined) searchOnce(root, wanted);
  // `contains`: what the text of every node of those types has (a launch's `<<<`): a statement without it is not searched.
  const pattern = contains && `${contains.source}/${contains.flags}`;
  const has = pattern ? (testedFor.get(pattern) ?? testedFor.set(pattern, new WeakMap()).get(pattern)!) : undefined;
  for (const c of root.children) {
    if (has) {
      // Asked of each statement once (a statement carried over keeps its answer): its text still recorded as read.
      let yes = has.get(c);
      if (yes === undefined) has.set(c, (yes = contains!.test(c.text)));
      else touched(c, true);
      if (!yes) continue;
    }
    out.push(...c.descendantsOfType(types));
  }
  return out;
}

/** Per `contains` pattern of `descendantsByStatement` (its source and flags): whether a statement's text has it. */
const testedFor = new Map<string, WeakMap<SyntaxNode, boolean>>();

/** Per grammar: searches made together on a top-level statement (`searchTogether`). */
const batches = new WeakMap<object, { all: string[]; key: string; keys: Map<string, Set<string>> }>();

/**
 * Makes the searches `groups` (each a `descendantsOfType` argument) of one
 * grammar's trees one walk per top-level statement: asking one of them of a
 * statement answers them all, and asking it of a node inside the statement
 * takes the node's part of the statement's answer. A statement typed in is
 * large and new at every keystroke (a long host function): its searches for
 * calls, launches, braces and errors were a walk each.
 */
export function searchTogether(language: object, groups: readonly (readonly string[])[]): void {
  if (batches.has(language)) return;
  // web-tree-sitter puts ERROR's symbol first in the list it hands the search, which then misses other types: not with others.
  if (groups.flat().includes('ERROR')) throw new Error('searchTogether: ERROR cannot be searched with other types');
  const all = [...new Set(groups.flat())];
  batches.set(language, { all, key: all.join('\0'), keys: new Map(groups.map((g) => [g.join('\0'), new Set(g)])) });
}

/** @internal How many nodes a tree's view holds in its map (tests). */
export function viewNodeCount(tree: Tree): number {
  return views.get(tree)?.nodes.size ?? 0;
}

/**
 * A freshly parsed tree whose statements were not searched for `types` yet:
 * one search of the whole tree, its finds handed to the statements they are
 * in (as if each had been searched). Each call of tree-sitter's search costs
 * ~10 µs before it starts (it matches the types against every symbol of the
 * grammar): a file of thousands of statements (CUDA headers read in front)
 * spent more there than in the searches.
 */
function searchOnce(root: SyntaxNode, types: readonly string[]): void {
  const key = types.join('\0');
  const kids = root.rawChildren();
  if (kids.length < 16 || !root.view.fresh()) return;
  let unknown = 0;
  for (const c of kids) if (!c.searched(key)) unknown++;
  if (unknown * 2 < kids.length) return;
  const view = root.view;
  const found: SyntaxNode[] = [];
  direct.descendantsOfType(view.ptr, view.grammar, root, key, types, view.into(found));
  const buckets: SyntaxNode[][] = kids.map(() => []);
  for (const t of found) {
    const start = t.rawStart;
    const end = t.rawEnd();
    const at = lastStartingBy(kids, start, (c) => c.startIndex);
    // A zero-width node (a missing token) at a statement's edge: which statement holds it is not told by its place.
    if (at < 0 || end === start || end > kids[at].spanEnd()) {
      if (start === root.rawStart && end === root.rawEnd()) continue;
      return;
    }
    buckets[at].push(t);
  }
  buckets.forEach((b, i) => inStatement(b, kids[i]));
  kids.forEach((c, i) => c.searched(key) || c.rememberSearch(key, buckets[i]));
}

/** The units of a tree by start row (kept per root): several when statements (or a comment) share a row. */
const byRow = new WeakMap<SyntaxNode, Map<number, SyntaxNode | SyntaxNode[]>>();

/** The text a row's several units answer with together (kept per first unit). */
const sharedRows = new WeakMap<SyntaxNode, { text: string }>();

/**
 * The text a read recorded at `row` is answered with: the unit starting
 * there (a wrapper: its own text, its statements cut out); when several
 * start on that row (`int a = 1; int b = 2;`, a statement and its comment),
 * all of them — a read is recorded by row, so any of them may be the one read.
 */
export function statementAt(root: SyntaxNode, row: number): { text: string } | undefined {
  const at = unitsByRow(root).get(row);
  if (at === undefined) return undefined;
  if (!Array.isArray(at)) return ownText(at);
  let shared = sharedRows.get(at[0]);
  if (!shared) sharedRows.set(at[0], (shared = { text: at.map((u) => ownText(u).text).join('\u0000') }));
  return shared;
}

/**
 * The statement a read recorded at `row` stands for (`readUnit`): a top-level
 * statement, a wrapper, or a statement inside one (the first, when several
 * start on that row). `statementAt` gives the text the reads are answered with.
 */
export function unitAt(root: SyntaxNode, row: number): SyntaxNode | undefined {
  const at = unitsByRow(root).get(row);
  return Array.isArray(at) ? at[0] : at;
}

/**
 * Reads ahead what `unitsByRow` reads of one top-level statement (which of
 * its statements are wrappers, and theirs): a caller in time slices does it
 * statement by statement, so the index is not built in one block.
 */
export function readUnitsAhead(st: SyntaxNode): void {
  unitsUnder([st], () => undefined);
}

/**
 * Visits `statements` and, inside each wrapper, its statements, blocks
 * within blocks, in document order (each before what it wraps). With a stack
 * of its own: host blocks can nest thousands deep (a fuzz finding).
 */
function unitsUnder(statements: readonly SyntaxNode[], visit: (st: SyntaxNode) => void): void {
  const stack = [...statements].reverse();
  for (let st = stack.pop(); st; st = stack.pop()) {
    visit(st);
    if (isWrapper(st)) {
      const inner = innerStatements(st);
      for (let i = inner.length - 1; i >= 0; i--) stack.push(inner[i]);
    }
  }
}

function unitsByRow(root: SyntaxNode): Map<number, SyntaxNode | SyntaxNode[]> {
  let rows = byRow.get(root);
  if (!rows) {
    const map = new Map<number, SyntaxNode | SyntaxNode[]>();
    unitsUnder(root.children, (st) => {
      const row = st.startPosition.row;
      const there = map.get(row);
      map.set(row, there === undefined ? st : Array.isArray(there) ? [...there, st] : [there, st]);
    });
    byRow.set(root, (rows = map));
  }
  return rows;
}

const views = new WeakMap<Tree, TreeView>();

/**
 * After an incremental re-parse, the tree it started from (the cache's
 * previous tree of the document, edited): the new tree's view takes over the
 * previous view's top-level statements the edit did not touch.
 */
const predecessors = new WeakMap<Tree, { old: Tree; span?: TextSpan }>();

/** Where two texts differ: from `start` to `endA` in the first, to `endB` in the second (the rest is the same). */
export interface TextSpan {
  start: number;
  endA: number;
  endB: number;
}

/** Says that `tree` was parsed incrementally from `old`, the text having changed in `span` (parsers.ts). */
export function noteReparse(tree: Tree, old: Tree, span?: TextSpan): void {
  predecessors.set(tree, { old, span });
}

/** The root of a tree's view (one view per tree: the same nodes every call). */
export function syntaxRoot(tree: Tree, source?: string): SyntaxNode {
  let v = views.get(tree);
  if (!v) {
    v = new TreeView(tree, source);
    views.set(tree, v);
    const p = predecessors.get(tree);
    predecessors.delete(tree);
    const before = p ? views.get(p.old) : undefined;
    if (before) carryOver(before, v, p!.span);
  }
  return (v.root ??= v.of(tree.rootNode));
}

/**
 * Moves into `view` the nodes of `before` that belong to top-level statements
 * the edit left alone: same tree-sitter node (a subtree tree-sitter reused)
 * at the same place. Everything they remember stays true (a reused subtree is
 * the same text, and at the same start so are its positions), so the work
 * already done on them is not done again, and per-statement caches keyed by
 * node object keep hitting. Their tree-sitter handles still point into the
 * earlier tree, which is kept alive while a view uses it (`treesInUse`).
 */
/**
 * At most this many trees stay alive for one document's view (its own and
 * those its carried statements read from): a tree whose view reads from as
 * many is not re-parsed incrementally but from scratch (parsers.ts), and the
 * earlier trees are let go.
 */
const MAX_DONORS = 64;

/** Whether the parse cache may re-parse `tree` incrementally (its view reads from fewer than MAX_DONORS trees). */
export function reusable(tree: Tree): boolean {
  return (views.get(tree)?.donors.size ?? 0) < MAX_DONORS;
}

/** Newlines in `text` from `from` to `to`. */
export function newlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** A top-level statement of a new tree as carryOver compares it: its five words, and its end, flags and type once read. */
interface Kid extends direct.RawNode {
  end: number;
  flags: number;
  type?: string;
}

function carryOver(before: TreeView, view: TreeView, span: TextSpan | undefined): void {
  // The earlier tree was edited (its root may be a new copy): its root is the one its view made.
  const oldRoot = before.root;
  const oldTop = oldRoot?._children ?? oldRoot?._named;
  if (!oldRoot || !oldTop || before.source === undefined || view.source === undefined) return;
  const rawRoot = view.tree.rootNode;
  // The new tree's top-level statements, read directly (ts-direct.ts): their flags, ends and types only as compared.
  const kids: Kid[] = [];
  direct.children(view.ptr, { id: rawRoot.id, rawStart: rawRoot.startIndex, rawStartPosition: rawRoot.startPosition, other: (rawRoot as unknown as { 0: number })[0] }, false, (id, rawStart, row, column, other) =>
    kids.push({ id, rawStart, rawStartPosition: { row, column }, other, end: -1, flags: -1 }),
  );
  const endOf = (c: Kid): number => (c.end >= 0 ? c.end : (c.end = direct.endIndex(view.ptr, c)));
  const flagsOf = (c: Kid): number => (c.flags >= 0 ? c.flags : (c.flags = direct.flags(view.ptr, c)));
  const typeOf = (c: Kid): string => (c.type ??= view.grammar.types[direct.typeId(view.ptr, c)] || 'ERROR');
  const byStart = new Map<number, SyntaxNode>();
  for (const o of oldTop) byStart.set(o.startIndex, o);
  // Statements after the edit moved by the change in length, and by the change in line count.
  const moved = view.source.length - before.source.length;
  // Only the changed span's newlines differ (the text around it is the same): not the whole text counted twice.
  const movedRows =
    moved === 0
      ? 0
      : span
        ? newlines(view.source, span.start, span.endB) - newlines(before.source, span.start, span.endA)
        : newlines(view.source, 0, view.source.length) - newlines(before.source, 0, before.source.length);
  const source = view.source;
  // First which statements are the same; nothing of the view changes unless some are carried.
  const found: (SyntaxNode | undefined)[] = new Array(kids.length);
  const bys: number[] = new Array(kids.length);
  let carriedCount = 0;
  const donors = new Set<Tree>([view.tree]);
  const same = (c: Kid, o: SyntaxNode | undefined, d: number, rows: number): boolean => {
    // A statement with a syntax error is never carried (error recovery may read the same text otherwise elsewhere).
    if (o === undefined || o.hasError || (flagsOf(c) & 1) !== 0) return false;
    const at = o.startPosition;
    if (at.row + rows !== c.rawStartPosition.row || at.column !== c.rawStartPosition.column) return false;
    return (
      o.endIndex + d === endOf(c) &&
      o.type === typeOf(c) &&
      // Wholly before or after the changed span its text is the same; else it is compared.
      ((span !== undefined && ((d === 0 && endOf(c) <= span.start) || (d === moved && c.rawStart >= span.endB))) || source.startsWith(o.text, c.rawStart))
    );
  };
  for (let i = 0; i < kids.length; i++) {
    const c = kids[i];
    // The same statement: same row and column, kind and text, at the same index or moved by the edit's
    // change in length (tree-sitter may have built it anew). Top-level code parses the same wherever its
    // text stands, so everything its nodes remember holds; their indices move with it (`shift`).
    let o = byStart.get(c.rawStart);
    let d = 0;
    if (!same(c, o, 0, 0)) {
      o = moved === 0 ? undefined : byStart.get(c.rawStart - moved);
      d = moved;
      if (!same(c, o, moved, movedRows)) continue;
    }
    found[i] = o;
    bys[i] = d;
    carriedCount++;
    donors.add(o!.handleTree);
  }
  if (carriedCount === 0) return;
  const root = (view.root = view.of(rawRoot));
  const top: SyntaxNode[] = [];
  const carried: SyntaxNode[] = [];
  for (let i = 0; i < kids.length; i++) {
    const c = kids[i];
    const o = found[i];
    if (o) {
      const by = bys[i];
      if (by !== 0) {
        o.shift += by;
        o.rowShift += movedRows;
      }
      // Its id answers for it in this view only where it stands as parsed (`of` checks the start).
      if (o.shift === 0) view.nodes.set(c.id, o);
      top.push(o);
      carried.push(o);
    } else top.push(view.ofRaw(c.id, c.rawStart, c.rawStartPosition.row, c.rawStartPosition.column, c.other));
  }
  view.donors = donors;
  for (const c of top) c._parent = root;
  root._children = top;
  root._named = top.filter((c) => c.isNamed);
  view.carried = carried;
  view.doc = before.doc;
  view.doc!.current = view;
  // A statement the edit ended (not carried on) points back to its own tree's root, no longer to the root of
  // the last view it was carried into: that root and its view are let go (each edit's view stayed alive
  // through the statements it carried that died since, ~0.4 MB a keystroke on a 1,000-line file).
  const kept = new Set(carried);
  for (const o of oldTop) if (!kept.has(o) && o._parent !== o.view.root) o._parent = o.view.root;
  prune(before, carried, kept, oldTop);
  // The earlier view is superseded: its root, its list of carried statements and the trees they read from are
  // not read again (the statements it carried on are this view's now, and the trees this view's donors). Kept,
  // they held every earlier view's statements and trees, and through them their views.
  before.carried = [];
  before.donors = new Set([before.tree]);
  oldRoot.supersede();
  byRow.delete(oldRoot);
}

/**
 * The previous view keeps, in its id map, only the nodes of its statements
 * carried on: the others are dead.
 */
function prune(before: TreeView, carried: SyntaxNode[], kept: ReadonlySet<SyntaxNode>, top: readonly SyntaxNode[]): void {
  if (before.nodes.size > SWEEP_AT_MOST) {
    // A large map (a whole file's first analysis): sweeping it would cost more than the first edit's
    // parse; the nodes its dead statements made and remember (children, fields, descendants) are let go,
    // any other stays until the view goes with its tree (at most MAX_DONORS edits on).
    for (const d of top) if (d.view === before && !kept.has(d)) forget(before, d);
    return;
  }
  // Only the previous view's own nodes (those of the statements it parsed anew: few, after an edit). An
  // older view keeps the dead nodes of its statements edited since, until none of its statements is
  // carried any more and it goes with its tree (at most MAX_DONORS of them): walking its whole map on
  // every edit cost more than they hold.
  // In the places of the view's own tree (a node and the statement it is in move alike): a node's place as
  // moved needs its statement, found through `.parent`, which for a node deep in the tree recurses in
  // tree-sitter's WebAssembly until its stack runs out (a fuzz finding: blocks ~140 deep; every parse after
  // the trap failed too).
  const spans = carried.filter((c) => c.view === before).map((c) => [c.rawStart, c.rawEnd()] as const);
  for (const [id, n] of before.nodes) {
    const at = lastStartingBy(spans, n.rawStart, (span) => span[0]);
    if (at < 0 || n.rawStart >= spans[at][1] || n.rawEnd() > spans[at][1]) before.nodes.delete(id);
  }
}

/** A view's node map is swept after an edit only up to this size. */
const SWEEP_AT_MOST = 20_000;

/** Removes from `view`'s map the nodes of a dead statement that it reached (and remembers). */
function forget(view: TreeView, statement: SyntaxNode): void {
  const stack = [statement];
  const seen = new Set<SyntaxNode>(stack);
  for (let n = stack.pop(); n; n = stack.pop()) {
    if (view.nodes.get(n.id) === n) view.nodes.delete(n.id);
    for (const c of n.remembered())
      if (!seen.has(c)) {
        seen.add(c);
        stack.push(c);
      }
  }
}

/** The index of the last of `sorted` (by `start`) that starts at or before `x`; -1 for none. */
function lastStartingBy<T>(sorted: readonly T[], x: number, start: (t: T) => number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (start(sorted[mid]) <= x) {
      at = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return at;
}

/**
 * The trees the views of `live` trees read from (each tree itself, the trees
 * of nodes carried into their views, and the tree an unviewed re-parse will
 * carry from): the parse cache deletes a tree it let go only when it is not
 * among them.
 */
export function treesInUse(live: Iterable<Tree>): Set<Tree> {
  const out = new Set<Tree>();
  for (const t of live) {
    out.add(t);
    const v = views.get(t);
    if (v) for (const d of v.donors) out.add(d);
    const p = predecessors.get(t)?.old;
    if (p) {
      out.add(p);
      const pv = views.get(p);
      if (pv) for (const d of pv.donors) out.add(d);
    }
  }
  return out;
}

/**
 * The lines (`line(n)`) of a tree's syntax errors, error nodes and missing
 * tokens, at most `max`, searched only below nodes whose `hasError` says one
 * is there (and at most MAX_ERROR_DEPTH deep). A fact the frontends give the
 * core, which marks a kernel whose lines hold one incomplete (analyze.ts).
 */
export function errorLines(root: SyntaxNode, line: (n: SyntaxNode) => number, max = 256): number[] {
  const out = new Set<number>();
  if (!root.hasError) return [];
  const todo: { n: SyntaxNode; depth: number }[] = [{ n: root, depth: 0 }];
  for (let t = todo.pop(); t && out.size < max; t = todo.pop()) {
    const { n, depth } = t;
    if (n.type === 'ERROR' || n.isMissing) {
      out.add(line(n));
      continue;
    }
    if (!n.hasError || depth >= MAX_ERROR_DEPTH) continue;
    const kids = n.children;
    for (let i = kids.length - 1; i >= 0; i--) todo.push({ n: kids[i], depth: depth + 1 });
  }
  return [...out].sort((a, b) => a - b);
}

/** How deep `errorLines` looks (a node hundreds of levels down is reported at its ancestor's statement by the frontends). */
const MAX_ERROR_DEPTH = 256;
