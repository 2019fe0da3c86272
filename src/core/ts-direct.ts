/**
 * The node reads the frontends make most, called straight into
 * web-tree-sitter's WebAssembly module.
 *
 * web-tree-sitter's `Node` methods write the node into a transfer buffer
 * through a generic `setValue(address, value, type)`, read answers back
 * through `getValue`, and wrap every node they return in a new `Node` (class
 * fields and a position object each). A cold analysis of a 1,000-line Triton
 * file spent ~9 ms of ~80 in that JavaScript, more than in the tree-sitter
 * functions it calls. Here a node is five integers (as web-tree-sitter lays
 * it out in the transfer buffer: id, start index, start row, start column,
 * and its alias word), written and read through the module's own `Int32Array`
 * view of the WebAssembly memory, and the same exported functions answer.
 *
 * The module is the options object handed to tree-sitter's initialisation (Emscripten fills
 * it with the exports and the memory views); `bindModule` checks that every
 * function used here is there, so a web-tree-sitter that lays things out
 * otherwise fails at start-up, not with a wrong tree.
 */

/** The exports of web-tree-sitter's module used here (names as Emscripten gives them). */
interface TsModule {
  HEAP32: Int32Array;
  _malloc(size: number): number;
  _free(address: number): void;
  _ts_init(): number;
  _ts_node_symbol_wasm(tree: number): number;
  _ts_node_end_index_wasm(tree: number): number;
  _ts_node_end_point_wasm(tree: number): void;
  _ts_node_children_wasm(tree: number): void;
  _ts_node_named_children_wasm(tree: number): void;
  _ts_node_child_by_field_id_wasm(tree: number, field: number): void;
  _ts_node_children_by_field_id_wasm(tree: number, field: number): void;
  _ts_node_parent_wasm(tree: number): void;
  _ts_node_has_error_wasm(tree: number): number;
  _ts_node_is_named_wasm(tree: number): number;
  _ts_node_is_missing_wasm(tree: number): number;
  _ts_node_is_error_wasm(tree: number): number;
  _ts_node_descendants_of_type_wasm(tree: number, symbols: number, count: number, startRow: number, startColumn: number, endRow: number, endColumn: number): void;
}

const FUNCTIONS = [
  '_malloc',
  '_free',
  '_ts_init',
  '_ts_node_symbol_wasm',
  '_ts_node_end_index_wasm',
  '_ts_node_end_point_wasm',
  '_ts_node_children_wasm',
  '_ts_node_named_children_wasm',
  '_ts_node_child_by_field_id_wasm',
  '_ts_node_children_by_field_id_wasm',
  '_ts_node_parent_wasm',
  '_ts_node_has_error_wasm',
  '_ts_node_is_named_wasm',
  '_ts_node_is_missing_wasm',
  '_ts_node_is_error_wasm',
  '_ts_node_descendants_of_type_wasm',
] as const;

/** A node as web-tree-sitter lays it out: id, start index, start row and column, alias word. */
export interface RawNode {
  readonly id: number;
  readonly rawStart: number;
  readonly rawStartPosition: { readonly row: number; readonly column: number };
  readonly other: number;
}

/** What a grammar's symbol and field tables give (a tree-sitter `Language`). */
export interface Grammar {
  readonly types: readonly (string | null | undefined)[];
  readonly fields: readonly (string | null)[];
}

/** Called with each node of a list web-tree-sitter's module wrote (null entries skipped). */
export type EachNode = (id: number, start: number, row: number, column: number, other: number) => void;

let M: TsModule | undefined;
/** The transfer buffer's place, in 32-bit words. */
let TB = 0;
let heap: Int32Array = new Int32Array(0);

/**
 * Takes web-tree-sitter's module (the object parsers.ts hands to its initialisation, filled
 * by it). Throws, naming what is missing, when it is not the layout this
 * file reads.
 */
export function bindModule(module: unknown): void {
  const m = module as Partial<Record<string, unknown>>;
  const missing = FUNCTIONS.filter((f) => typeof m[f] !== 'function');
  if (!(m.HEAP32 instanceof Int32Array)) missing.push('HEAP32' as never);
  if (missing.length) throw new Error(`web-tree-sitter's module lacks ${missing.join(', ')}: this version lays out its exports otherwise than syntax-tree.ts reads them`);
  M = m as unknown as TsModule;
  TB = M._ts_init() >> 2;
  heap = M.HEAP32;
}

/** Whether `bindModule` has run. */
export function bound(): boolean {
  return M !== undefined;
}

function mod(): TsModule {
  if (!M) throw new Error('tree-sitter is not initialised (initParsers)');
  return M;
}

/** The module's memory view, anew when the memory grew (a grown memory detaches the old buffer: its view reads as empty). */
function h(): Int32Array {
  if (heap.length === 0) heap = M!.HEAP32;
  return heap;
}

function marshal(n: RawNode): void {
  const H = h();
  H[TB] = n.id;
  H[TB + 1] = n.rawStart;
  H[TB + 2] = n.rawStartPosition.row;
  H[TB + 3] = n.rawStartPosition.column;
  H[TB + 4] = n.other;
}

/** The node the module wrote into the transfer buffer, as `each` takes it; false for none. */
function readOne(each: EachNode): boolean {
  const H = h();
  const id = H[TB];
  if (id === 0) return false;
  each(id, H[TB + 1], H[TB + 2], H[TB + 3], H[TB + 4]);
  return true;
}

/** The list the module wrote (count and address in the transfer buffer), each in turn; frees it. */
function readList(each: EachNode, alwaysFree = false): void {
  const H = h();
  const count = H[TB];
  const address = H[TB + 1];
  eachOf(address, count, each);
  // As web-tree-sitter frees them: a search's list even when empty, a list of children only when not.
  if (count > 0 || alwaysFree) M!._free(address);
}

/** `each` of the `count` nodes at `address` (`each` may call the module again: the view is taken anew). */
function eachOf(address: number, count: number, each: EachNode): void {
  for (let i = 0, w = address >> 2; i < count; i++, w += 5) {
    const H = h();
    if (H[w] !== 0) each(H[w], H[w + 1], H[w + 2], H[w + 3], H[w + 4]);
  }
}

export function typeId(tree: number, n: RawNode): number {
  const m = mod();
  marshal(n);
  return m._ts_node_symbol_wasm(tree);
}

export function endIndex(tree: number, n: RawNode): number {
  const m = mod();
  marshal(n);
  return m._ts_node_end_index_wasm(tree);
}

export function endPosition(tree: number, n: RawNode): { row: number; column: number } {
  const m = mod();
  marshal(n);
  m._ts_node_end_point_wasm(tree);
  const H = h();
  return { row: H[TB] >>> 0, column: H[TB + 1] >>> 0 };
}

/** has-error 1, named 2, missing 4, error 8. */
export function flags(tree: number, n: RawNode): number {
  const m = mod();
  marshal(n);
  return (m._ts_node_has_error_wasm(tree) === 1 ? 1 : 0) | (m._ts_node_is_named_wasm(tree) === 1 ? 2 : 0) | (m._ts_node_is_missing_wasm(tree) === 1 ? 4 : 0) | (m._ts_node_is_error_wasm(tree) === 1 ? 8 : 0);
}

export function children(tree: number, n: RawNode, named: boolean, each: EachNode): void {
  const m = mod();
  marshal(n);
  if (named) m._ts_node_named_children_wasm(tree);
  else m._ts_node_children_wasm(tree);
  readList(each);
}

export function parent(tree: number, n: RawNode, each: EachNode): boolean {
  const m = mod();
  marshal(n);
  m._ts_node_parent_wasm(tree);
  return readOne(each);
}

/** Field ids by name, per grammar. */
const fieldIds = new WeakMap<Grammar, Map<string, number>>();

/** The last grammar asked, and its ids (a file's reads are of one grammar: no WeakMap look-up each). */
let lastGrammar: Grammar | undefined;
let lastIds = new Map<string, number>();

function fieldId(g: Grammar, name: string): number {
  let ids = lastIds;
  if (g !== lastGrammar) {
    ids = fieldIds.get(g) ?? new Map();
    fieldIds.set(g, ids);
    lastGrammar = g;
    lastIds = ids;
  }
  let id = ids.get(name);
  if (id === undefined) ids.set(name, (id = g.fields.indexOf(name)));
  return id;
}

/** The first child in field `name` (web-tree-sitter's `childForFieldName`); false for none. */
export function childForField(tree: number, g: Grammar, n: RawNode, name: string, each: EachNode): boolean {
  const id = fieldId(g, name);
  if (id === -1) return false;
  const m = mod();
  marshal(n);
  m._ts_node_child_by_field_id_wasm(tree, id);
  return readOne(each);
}

/** The children in field `name` (web-tree-sitter's `childrenForFieldName`). */
export function childrenForField(tree: number, g: Grammar, n: RawNode, name: string, each: EachNode): void {
  const id = fieldId(g, name);
  if (id === -1 || id === 0) return;
  const m = mod();
  marshal(n);
  m._ts_node_children_by_field_id_wasm(tree, id);
  readList(each);
}

/** Per grammar and search (types joined by NUL): the symbols, in the module's memory, and how many. */
const symbolLists = new WeakMap<Grammar, Map<string, { address: number; count: number }>>();

/**
 * The symbols web-tree-sitter's `descendantsOfType` searches for `types`
 * (ERROR's first, then every symbol named as one of them), written into the
 * module's memory once per grammar and search and kept: it recomputed them,
 * against every symbol of the grammar, at every call.
 */
function symbolsOf(g: Grammar, key: string, types: readonly string[]): { address: number; count: number } {
  let lists = symbolLists.get(g);
  if (!lists) symbolLists.set(g, (lists = new Map()));
  let s = lists.get(key);
  if (!s) {
    const symbols: number[] = [];
    for (const t of types) if (t === 'ERROR') symbols.push(65535);
    for (let i = 0; i < g.types.length; i++) if (types.includes(g.types[i] as string)) symbols.push(i);
    const address = mod()._malloc(4 * Math.max(1, symbols.length));
    const H = h();
    symbols.forEach((sym, i) => (H[(address >> 2) + i] = sym));
    lists.set(key, (s = { address, count: symbols.length }));
  }
  return s;
}

/** The descendants of `n` (itself included) of the given types, in document order (web-tree-sitter's `descendantsOfType`). */
export function descendantsOfType(tree: number, g: Grammar, n: RawNode, key: string, types: readonly string[], each: EachNode): void {
  const s = symbolsOf(g, key, types);
  const m = mod();
  marshal(n);
  m._ts_node_descendants_of_type_wasm(tree, s.address, s.count, 0, 0, 0, 0);
  readList(each, true);
}
