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

export type Point = { row: number; column: number };

class TreeView {
  private readonly nodes = new Map<number, SyntaxNode>();
  constructor(
    readonly tree: Tree,
    /** The text the tree was parsed from, when known (node text is a slice of it). */
    readonly source: string | undefined,
  ) {}

  of(n: TsNode): SyntaxNode {
    const hit = this.nodes.get(n.id);
    // Ids are unique within a tree; the start check guards the view against a node of another tree.
    if (hit && hit.startIndex === n.startIndex) return hit;
    const s = new SyntaxNode(this, n);
    if (!hit) this.nodes.set(n.id, s);
    return s;
  }

  maybe(n: TsNode | null | undefined): SyntaxNode | null {
    return n ? this.of(n) : null;
  }
}

const NO_PARENT = null;

export class SyntaxNode {
  readonly id: number;
  readonly startIndex: number;
  readonly startPosition: Point;
  private _type: string | undefined;
  private _text: string | undefined;
  private _endIndex = -1;
  private _endPosition: Point | undefined;
  private _parent: SyntaxNode | null | undefined;
  private _children: SyntaxNode[] | undefined;
  private _named: SyntaxNode[] | undefined;
  private _fields: Map<string, SyntaxNode | null> | undefined;
  private _fieldLists: Map<string, SyntaxNode[]> | undefined;
  private _descendants: Map<string, SyntaxNode[]> | undefined;
  private _flags = -1;

  constructor(
    private readonly view: TreeView,
    private readonly ts: TsNode,
  ) {
    this.id = ts.id;
    this.startIndex = ts.startIndex;
    this.startPosition = ts.startPosition;
  }

  /** The tree-sitter tree this node belongs to. */
  get tree(): Tree {
    return this.view.tree;
  }

  get type(): string {
    return (this._type ??= this.ts.type);
  }

  get endIndex(): number {
    if (this._endIndex < 0) this._endIndex = this.ts.endIndex;
    return this._endIndex;
  }

  get endPosition(): Point {
    return (this._endPosition ??= this.ts.endPosition);
  }

  get text(): string {
    if (this._text === undefined) {
      const src = this.view.source;
      this._text = src !== undefined ? src.slice(this.startIndex, this.endIndex) : this.ts.text;
    }
    return this._text;
  }

  get parent(): SyntaxNode | null {
    if (this._parent === undefined) this._parent = this.view.maybe(this.ts.parent);
    return this._parent;
  }

  get children(): SyntaxNode[] {
    if (!this._children) {
      this._children = [];
      for (const c of this.ts.children) if (c) this._children.push(this.child_(c));
    }
    return this._children;
  }

  get namedChildren(): SyntaxNode[] {
    if (!this._named) {
      this._named = [];
      for (const c of this.ts.namedChildren) if (c) this._named.push(this.child_(c));
    }
    return this._named;
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
    const fields = (this._fields ??= new Map());
    let c = fields.get(name);
    if (c === undefined) {
      const t = this.ts.childForFieldName(name);
      c = t ? this.child_(t) : NO_PARENT;
      fields.set(name, c);
    }
    return c;
  }

  childrenForFieldName(name: string): SyntaxNode[] {
    const lists = (this._fieldLists ??= new Map());
    let cs = lists.get(name);
    if (!cs) {
      cs = [];
      for (const t of this.ts.childrenForFieldName(name)) if (t) cs.push(this.child_(t));
      lists.set(name, cs);
    }
    return cs;
  }

  /** Descendants of the given types in document order (the node itself included, as tree-sitter does). */
  descendantsOfType(types: string | readonly string[]): SyntaxNode[] {
    const key = typeof types === 'string' ? types : types.join('\0');
    const memo = (this._descendants ??= new Map());
    let out = memo.get(key);
    if (!out) {
      out = [];
      for (const t of this.ts.descendantsOfType(typeof types === 'string' ? types : [...types])) if (t) out.push(this.view.of(t));
      memo.set(key, out);
    }
    return out;
  }

  private flags(): number {
    if (this._flags < 0) this._flags = (this.ts.hasError ? 1 : 0) | (this.ts.isNamed ? 2 : 0) | (this.ts.isMissing ? 4 : 0) | (this.ts.isError ? 8 : 0);
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

  /** The underlying tree-sitter node (for a query or a cursor). */
  get raw(): TsNode {
    return this.ts;
  }

  toString(): string {
    return this.ts.toString();
  }

  private child_(t: TsNode): SyntaxNode {
    const c = this.view.of(t);
    if (c._parent === undefined) c._parent = this;
    return c;
  }
}

const views = new WeakMap<Tree, TreeView>();

/** The root of a tree's view (one view per tree: the same nodes every call). */
export function syntaxRoot(tree: Tree, source?: string): SyntaxNode {
  let v = views.get(tree);
  if (!v) {
    v = new TreeView(tree, source);
    views.set(tree, v);
  }
  return v.of(tree.rootNode);
}
