/**
 * The cached syntax view (src/core/syntax-tree.ts) answers exactly what
 * tree-sitter's own nodes answer, node for node, and keeps one node object per
 * tree-sitter node.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import type { Node as TsNode, Parser } from 'web-tree-sitter';
import { cover, descendantsByStatement, searchTogether, statementAt, syntaxRoot, unitAt, unitsAnswer, viewNodeCount, type SyntaxNode } from '../src/core/syntax-tree';
import { Deps, recordInto, replay } from '../src/core/deps';
import { parseCached } from '../src/core/parsers';
import { bindModule } from '../src/core/ts-direct';
import { fixtureFile } from './bench/fixtures';
import * as path from 'node:path';
import { fixtures, loadParsers } from './check';

const FIELDS: Record<string, string[]> = {
  python: ['name', 'parameters', 'body', 'function', 'arguments', 'left', 'right', 'condition', 'object', 'attribute', 'value', 'alternative', 'consequence', 'operator'],
  cuda: ['declarator', 'body', 'type', 'function', 'arguments', 'left', 'right', 'condition', 'argument', 'field', 'value', 'initializer', 'update', 'consequence', 'alternative', 'index', 'operator'],
};

/** Compares the view of every node with tree-sitter's answers; returns how many nodes were compared. */
function compare(ts: TsNode, view: SyntaxNode, grammar: string, parent: SyntaxNode | null): number {
  const at = `${ts.type} at ${ts.startPosition.row + 1}:${ts.startPosition.column + 1}`;
  assert.equal(view.id, ts.id, at);
  assert.equal(view.type, ts.type, at);
  assert.equal(view.text, ts.text, at);
  assert.equal(view.startIndex, ts.startIndex, at);
  assert.equal(view.endIndex, ts.endIndex, at);
  assert.deepEqual(view.startPosition, ts.startPosition, at);
  assert.deepEqual(view.endPosition, ts.endPosition, at);
  assert.equal(view.hasError, ts.hasError, at);
  assert.equal(view.isNamed, ts.isNamed, at);
  assert.equal(view.isMissing, ts.isMissing, at);
  assert.equal(view.isError, ts.isError, at);
  if (parent) assert.equal(view.parent, parent, `${at}: the parent is the node the child was read from`);
  for (const f of FIELDS[grammar]) {
    assert.equal(view.childForFieldName(f)?.id, ts.childForFieldName(f)?.id, `${at}.${f}`);
    assert.equal(view.childForFieldName(f), view.childForFieldName(f), `${at}.${f}: the same object twice`);
    assert.deepEqual(
      view.childrenForFieldName(f).map((c) => c.id),
      ts.childrenForFieldName(f).map((c) => c?.id),
      `${at}.${f}[]`,
    );
  }
  assert.deepEqual(
    view.namedChildren.map((c) => c.id),
    ts.namedChildren.map((c) => c?.id),
    at,
  );
  const kids = ts.children.filter((c): c is TsNode => c !== null);
  assert.equal(view.children.length, kids.length, at);
  let n = 1;
  kids.forEach((c, i) => {
    assert.equal(view.child(i), view.children[i], at);
    n += compare(c, view.children[i], grammar, view);
  });
  return n;
}

function both(parser: Parser, text: string, grammar: string): number {
  const tree = parser.parse(text)!;
  try {
    const root = syntaxRoot(tree, text);
    assert.equal(syntaxRoot(tree, text), root, 'one root object per tree');
    const n = compare(tree.rootNode, root, grammar, null);
    for (const t of ['identifier', 'call', 'call_expression', 'kernel_call_syntax', 'ERROR', 'module', 'translation_unit', ['integer', 'number_literal']])
      assert.deepEqual(
        descendantsByStatement(root, t).map((d) => d.id),
        tree.rootNode.descendantsOfType(t).map((d) => d?.id),
        `descendants of type ${t}, gathered per statement`,
      );
    // Nodes reached another way (a descendant search, a parent) are the same objects.
    for (const d of root.descendantsOfType('identifier')) {
      assert.equal(d.parent?.children.includes(d), true, `${d.text}: found among its parent's children`);
    }
    return n;
  } finally {
    tree.delete();
  }
}

/** Runs `fn` on the view of `text` freshly parsed; the tree is deleted after. */
function onTree<T>(parser: Parser, text: string, fn: (root: SyntaxNode) => T): T {
  const tree = parser.parse(text)!;
  try {
    return fn(syntaxRoot(tree, text));
  } finally {
    tree.delete();
  }
}

describe('syntax view', () => {
  it('answers as tree-sitter does for every node of the fixtures, with non-ASCII text', async () => {
    const p = await loadParsers();
    let nodes = 0;
    for (const f of fixtures('triton', ['.py']).slice(0, 8)) nodes += both(p.python, fs.readFileSync(f, 'utf8'), 'python');
    for (const f of fixtures('cuda', ['.cu']).slice(0, 8)) nodes += both(p.cuda, fs.readFileSync(f, 'utf8'), 'cuda');
    // Text before and inside nodes in two- and four-byte UTF-8 / surrogate-pair UTF-16.
    nodes += both(p.python, '# é ü 😀\ndef k(x):  # 𝔸\n    s = "ß😀ä" + x\n    return s\n', 'python');
    nodes += both(p.cuda, '// ∑ 😀\n__global__ void k(float* y) { const char* s = "😀é"; y[0] = 1.0f; /* ü */ }\n', 'cuda');
    // Many statements (a whole-tree search handed out to them) and missing tokens at their edges (zero-width
    // nodes whose statement their place does not tell: each statement is then searched on its own).
    const many = Array.from({ length: 24 }, (_, i) => (i % 5 === 4 ? `int = ${i};` : i % 7 === 6 ? `int b${i} = f(${i}, )` : `int a${i} = g(${i});`)).join('\n');
    nodes += both(p.cuda, many, 'cuda');
    nodes += both(p.python, Array.from({ length: 24 }, (_, i) => (i % 6 === 5 ? `x${i} = f(${i},` : `x${i} = g(${i})`)).join('\n'), 'python');
    assert.ok(nodes > 5000, `compared ${nodes} nodes`);
  });

  it('reads a parent from tree-sitter as its own node does, and keeps reading after its memory grows', async () => {
    const p = await loadParsers();
    const text = fs.readFileSync(fixtures('cuda', ['.cu'])[0], 'utf8');
    const tree = p.cuda.parse(text)!;
    try {
      const root = syntaxRoot(tree, text);
      // Found by a search, not read from a parent: each parent is a read of its own.
      const ids = root.descendantsOfType('identifier');
      assert.ok(ids.length > 20);
      for (const d of ids) {
        const own = tree.rootNode.descendantForIndex(d.startIndex, d.endIndex)!;
        assert.equal(d.parent?.id, own.parent?.id, `${d.text} at ${d.startPosition.row + 1}`);
        assert.equal(d.parent?.type, own.parent?.type);
      }
      // A parse of ~6 MB grows tree-sitter's memory: the view of the memory the reads use is taken anew.
      const big = p.python.parse(Array.from({ length: 120_000 }, (_, i) => `x${i} = f(${i}, y[${i}])`).join('\n'))!;
      try {
        const bigRoot = syntaxRoot(big);
        assert.equal(bigRoot.namedChildren.length, 120_000);
        assert.equal(bigRoot.namedChildren[119_999].namedChildren[0].childForFieldName('right')?.text, 'f(119999, y[119999])');
      } finally {
        big.delete();
      }
      const fn = root.namedChildren.find((c) => c.type === 'function_definition')!;
      assert.deepEqual(
        fn.descendantsOfType('call_expression').map((c) => [c.id, c.endIndex, c.childForFieldName('function')?.type]),
        fn.raw.descendantsOfType('call_expression').map((c) => [c!.id, c!.endIndex, c!.childForFieldName('function')?.type]),
      );
    } finally {
      tree.delete();
    }
  });

  it('refuses a tree-sitter module laid out otherwise than it reads, naming what is missing', () => {
    assert.throws(() => bindModule({ HEAP32: new Int32Array(4), _malloc: () => 0 }), /lacks _free, _ts_init, .*_ts_node_descendants_of_type_wasm/);
    assert.throws(() => bindModule({}), /HEAP32/);
  });

  it('searches made together on a statement answer as tree-sitter does, for the statement and every node in it', async () => {
    const p = await loadParsers();
    const groups = [['{', '}'], ['call_expression'], ['kernel_call_syntax']];
    // web-tree-sitter's search misses other types when ERROR is among them: refused.
    assert.throws(() => searchTogether({}, [['ERROR'], ['call_expression']]), /ERROR/);
    const texts = [
      ...fixtures('cuda', ['.cu']).slice(0, 10).map((f) => fs.readFileSync(f, 'utf8')),
      // Errors and missing braces: zero-width nodes at the edges of the nodes asked.
      'void run(int n) {\n  f(g(n), h(1));\n  k<<<1, 32>>>(n);\n  if (n) { f(n) \n}\nint x = f(;\nvoid open() { f(2);\n',
    ];
    let asked = 0;
    for (const [i, text] of texts.entries()) {
      onTree(p.cuda, text, (root) => {
      searchTogether(root.tree.language, groups);
      const nodes: SyntaxNode[] = [];
      const collect = (n: SyntaxNode, depth: number): void => {
        nodes.push(n);
        if (depth < 6) for (const c of n.children) collect(c, depth + 1);
      };
      // Inner nodes asked before their statement in odd files, after it in even ones.
      for (const st of root.children) collect(st, 0);
      if (i % 2) nodes.reverse();
      for (const n of nodes)
        for (const g of groups) {
          asked++;
          assert.deepEqual(
            n.descendantsOfType(g).map((d) => d.id),
            n.raw.descendantsOfType([...g]).map((d) => d?.id),
            `${g.join(' ')} under ${n.type} at ${n.startPosition.row + 1}:${n.startPosition.column + 1}`,
          );
        }
      });
    }
    assert.ok(asked > 5_000, `${asked} searches compared`);
  });

  it('a read inside a node an answer covers records no statement; a read leading out of it does', async () => {
    const p = await loadParsers();
    const text = 'int a = 1;\nstruct Host {\n  using E = float;\n  int unused = 0;\n};\n';
    onTree(p.cuda, text, (root) => {
    const host = root.children[1];
    const alias = host.descendantsOfType('alias_declaration')[0];
    const unused = host.descendantsOfType('field_declaration')[0];
    const d = new Deps(root);
    recordInto(d, () => {
      cover(alias);
      assert.equal(alias.text, 'using E = float;');
      alias.namedChildren.forEach((c) => c.type);
    });
    assert.deepEqual([...d.rows], [], 'inside the covered alias');
    recordInto(d, () => unused.text);
    assert.deepEqual([...d.rows], [1], 'beside it, in the same statement');
    const up = new Deps(root);
    recordInto(up, () => {
      cover(alias);
      return alias.parent?.type;
    });
    assert.deepEqual([...up.rows], [1], 'its parent');
    // A recorder replaying another's reads takes the nodes they cover along (of the same file only).
    const o2 = new Deps(root);
    const i2 = new Deps(root);
    recordInto(i2, () => cover(alias));
    recordInto(o2, () => {
      replay(i2);
      return alias.text;
    });
    assert.deepEqual([...o2.rows], [], 'covered in the recorder replayed into');
    const other = new Deps({});
    recordInto(other, () => replay(i2));
    assert.equal(other.covered, null, 'not into a recorder of another file');
    });
  });

  it('a read of a wrapper\'s own node that holds statements (its text, a search) reads those statements too', async () => {
    const p = await loadParsers();
    const text = '#ifndef G_H\n#define G_H\nnamespace ops {\nint a = 1;\nnamespace inner {\nint b = 2;\n}\n}\n#endif\n';
    onTree(p.cuda, text, (root) => {
    const guard = root.children[0];
    const ns = guard.namedChildren.find((c) => c.type === 'namespace_definition')!;
    const rows = (read: () => unknown): number[] => {
      const d = new Deps(root);
      recordInto(d, read);
      return [...d.rows].sort((a, b) => a - b);
    };
    assert.deepEqual(rows(() => ns.childForFieldName('name')?.text), [2], 'the namespace\'s name: its own unit');
    assert.deepEqual(rows(() => ns.text), [2, 3, 4, 5], 'its text: the statements inside, nested ones too');
    assert.deepEqual(rows(() => ns.childForFieldName('body')?.descendantsOfType('declaration')), [2, 3, 4, 5], 'a search of its body');
    assert.deepEqual(rows(() => guard.childForFieldName('name')?.text), [0], 'the guard\'s name');
    assert.deepEqual(rows(() => guard.descendantsOfType('declaration').length), [0, 1, 2, 3, 4, 5], 'a search of the guard');
    });
  });

  it('host code is read statement by statement, blocks within blocks; kernels and device code whole; a list of statements is its own read', async () => {
    const p = await loadParsers();
    const cuda = [
      '__global__ void k(float* y) {', // 0
      '  int i = threadIdx.x;', // 1
      '  y[i] = 1.0f;', // 2
      '}', // 3
      'template <class T> void run(int which) {', // 4
      '  int n = 1;', // 5
      '  switch (which) {', // 6
      '    case 0:', // 7
      '      n = 2;', // 8
      '      break;', // 9
      '    default:', // 10
      '      n = 3;', // 11
      '  }', // 12
      '}', // 13
    ].join('\n');
    const py = ['def host(x):', '    n = 1', '    if x:', '        n = 2', '    # note', '    return n', '', '@triton.jit', 'def kern(p):', '    q = p + 1', ''].join('\n');
    for (const [parser, text, cases] of [
      [
        p.cuda,
        cuda,
        [
          ['y[i]', [0]],
          ['n = 2', [8]],
          ['n = 3', [11]],
          ['(which)', [6]],
          ['int n', [5]],
        ],
      ],
      [
        p.python,
        py,
        [
          ['n = 2', [3]],
          ['n = 1', [1]],
          ['return n', [5]],
          ['q = p', [7]],
        ],
      ],
    ] as const) {
      onTree(parser, text, (root) => {
      const at = (needle: string): SyntaxNode => {
        const i = text.indexOf(needle);
        let n = root;
        for (;;) {
          const c = n.namedChildren.find((x) => x.startIndex <= i && i < x.endIndex);
          if (!c) return n;
          n = c;
        }
      };
      for (const [needle, rows] of cases) {
        const d = new Deps(root);
        const node = at(needle);
        recordInto(d, () => node.type);
        assert.deepEqual([...d.rows], rows, needle);
      }
      });
    }
    // A list read: where the statements are and what they are, not what they hold.
    onTree(p.cuda, cuda, (root) => {
    const run = root.children[1];
    const body = run.childForFieldName('body') ?? run.namedChildren.find((c) => c.type === 'function_definition')!.childForFieldName('body')!;
    const d = new Deps(root);
    recordInto(d, () => body.namedChildren.length);
    assert.deepEqual([...d.rows], [4]);
    assert.deepEqual([...d.queries], ['units:4']);
    assert.equal(unitsAnswer(root, 4), '5:declaration,6:switch_statement');
    assert.equal(unitsAnswer(root, 7), '8:expression_statement,9:break_statement');
    assert.equal(statementAt(root, 4)?.text, 'template <class T> void run(int which) {\n  \u0000\n}', 'the function\'s own text: one mark for its statements');
    });
  });

  it('a row where several statements start answers with all of them (a read is recorded by row)', async () => {
    const p = await loadParsers();
    const text = 'int a = 1; int b = 2;  // two\nint c = 3;\n';
    onTree(p.cuda, text, (root) => {
    assert.equal(statementAt(root, 0)?.text, 'int a = 1;\u0000int b = 2;\u0000// two');
    assert.equal(statementAt(root, 0), statementAt(root, 0), 'the same object: its hash is kept');
    assert.equal(unitAt(root, 0)?.text, 'int a = 1;');
    assert.equal(statementAt(root, 1)?.text, 'int c = 3;');
    });
  });

  it('after an edit of a large file, the first view lets go of the edited statement\'s nodes and carries the rest', async () => {
    // A view of over 20,000 nodes is not swept node by node after an edit (a first edit of a 10,000-line
    // file spent 30 ms there): the nodes the dead statement made are let go by walking them.
    const p = await loadParsers();
    const src = fixtureFile(path.join(__dirname, '..'), 'triton', 10000);
    const t1 = parseCached(p.python, 'large-view.py', src, undefined)!;
    const r1 = syntaxRoot(t1, src);
    const all = (n: SyntaxNode): number => 1 + n.namedChildren.reduce((k, c) => k + all(c), 0);
    assert.ok(all(r1) > 20_000);
    const before = viewNodeCount(t1);
    const top1 = [...r1.namedChildren];
    const i = top1.findIndex((c, k) => k > top1.length / 2 && c.type === 'decorated_definition');
    const edited = top1[i];
    const at = edited.startIndex + edited.text.indexOf("(") + 1;
    const t2 = parseCached(p.python, 'large-view.py', `${src.slice(0, at)} ${src.slice(at)}`, undefined)!;
    const r2 = syntaxRoot(t2, `${src.slice(0, at)} ${src.slice(at)}`);
    const top2 = r2.namedChildren;
    assert.equal(top2.length, top1.length);
    top1.forEach((c, k) => assert.equal(top2[k] === c, k !== i, `statement ${k}: carried over unless edited`));
    assert.equal(viewNodeCount(t1), before - all(edited), 'the edited statement\'s nodes are let go, no other');
  });

  it('a file with a syntax error, parsed from scratch after each edit, still carries its statements without errors', async () => {
    const p = await loadParsers();
    for (const [parser, key, lines] of [
      [p.cuda, 'errors.cu', Array.from({ length: 12 }, (_, i) => (i === 3 ? 'int broken = ;' : `int a${i} = g(${i});`))],
      [p.python, 'errors.py', Array.from({ length: 12 }, (_, i) => (i === 3 ? 'broken = (1 +' : `a${i} = g(${i})`))],
    ] as const) {
      const src = lines.join('\n');
      const t1 = parseCached(parser, key, src, undefined)!;
      assert.equal(t1.rootNode.hasError, true);
      const top1 = [...syntaxRoot(t1, src).children];
      // An edit of statement 8: a text that still has the error (parsed from scratch, not from the edited tree).
      const edited = src.replace('g(8)', 'g(80)');
      const t2 = parseCached(parser, key, edited, undefined)!;
      const top2 = syntaxRoot(t2, edited).children;
      assert.equal(top2.length, top1.length, key);
      top1.forEach((c, k) => assert.equal(top2[k] === c, !c.hasError && !c.text.includes('g(8)'), `${key} statement ${k} (${c.text}): carried over unless edited or erroneous`));
      // Each carried statement answers for its place in the new text.
      top2.forEach((c) => assert.equal(edited.slice(c.startIndex, c.endIndex), c.text, key));
    }
  });

  it('gives a re-parsed tree its own nodes (a reused node keeps its id, not its position)', async () => {
    const p = await loadParsers();
    const a = 'def f(x):\n    return x\n\ndef g(y):\n    return y\n';
    const b = `# one more line\n${a}`;
    const t1 = p.python.parse(a)!;
    const r1 = syntaxRoot(t1, a);
    const g1 = r1.namedChildren[1];
    t1.edit({ startIndex: 0, oldEndIndex: 0, newEndIndex: 16, startPosition: { row: 0, column: 0 }, oldEndPosition: { row: 0, column: 0 }, newEndPosition: { row: 1, column: 0 } } as never);
    const t2 = p.python.parse(b, t1)!;
    const r2 = syntaxRoot(t2, b);
    const g2 = r2.namedChildren.find((c) => c.type === 'function_definition' && c.childForFieldName('name')?.text === 'g')!;
    assert.equal(g1.startPosition.row, 3);
    assert.equal(g2.startPosition.row, 4);
    assert.notEqual(g1, g2);
    assert.equal(g2.text, 'def g(y):\n    return y');
    t1.delete();
    t2.delete();
  });
});
