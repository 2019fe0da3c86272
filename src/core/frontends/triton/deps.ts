/**
 * Triton's side of a kernel's recorded reads (src/core/deps.ts): the module
 * scan's maps record each look-up, and `fingerprint` answers every recorded
 * read on the module as it is now. Two analyses of a kernel that read the
 * same answers give the same report; the driver compares the answers and
 * reuses the kernel when they match.
 */
import { answerLine, answerReads, answersOf, answerRow, keyRow, statementHash, unanswered, type Answers, type Deps, type RowEdit } from '../../deps';
import { isStatementWrapper, ownText, statementAt, unitAt, unitsAnswer, type SyntaxNode as Node } from '../../syntax-tree';
import { frameAssigns, lastReturn, moduleAssigns } from './host';
import { launchesOf, type FnInfo, type ModuleInfo } from './module';
import { line } from './syntax';

/** The map underneath a recorded one, read without recording (Map's own methods). */
const mapGet = <K, V>(m: Map<K, V>, k: K): V | undefined => Map.prototype.get.call(m, k) as V | undefined;
const mapEntries = <K, V>(m: Map<K, V>): [K, V][] => [...(Map.prototype.entries.call(m) as Iterable<[K, V]>)];


const NONE = '\u2205';

function nodeAnswer(n: Node | null | undefined): string {
  return n ? `${answerLine(line(n))}:${n.text}` : NONE;
}

function fnAnswer(f: FnInfo | undefined): string {
  if (!f) return NONE;
  const decorated = f.node.parentNode();
  // The function's own text (its decorators, its `def` line; its body's statements are read units of their own,
  // each recorded where it is read) by its hash, kept with it (an edit elsewhere does not hash it again).
  const own = [statementHash(ownText(f.node)), decorated?.type === 'decorated_definition' ? statementHash(ownText(decorated)) : ''];
  return [answerLine(f.line), f.isJit, f.decorators.join(','), f.returnsValue, f.autotune ? statementHash(f.autotune) : '', f.heuristics ? statementHash(f.heuristics) : '', ...own].join('\u0001');
}

/** A row-keyed query's function (`assigns:12:x`, `returns:12`): the function whose statements are read units, at that row now. */
function frameAt(m: ModuleInfo, row: string): Node | undefined {
  const fn = unitAt(m.root, keyRow(Number(row)));
  return fn && isStatementWrapper(fn) ? fn : undefined;
}

/** The module-level constants a kernel's bindings take (bindings.ts `bindGlobals`), as an answer. */
export function constGlobalsAnswer(list: readonly (readonly [string, Node, Node])[]): string {
  return list.map(([k, n]) => `${k}=${nodeAnswer(n)}`).join('\n');
}

/**
 * Every recorded read answered on `m` (the module as it is), hashed: equal
 * for two versions of a file when the kernel would read the same there.
 */
export function fingerprint(m: ModuleInfo, d: Deps, source: string, constGlobals: () => string, edit?: RowEdit): Answers {
  return answerReads(d, source, (row) => statementAt(m.root, row), answersOf(m, edit), (map, key) => answer(m, map, key, constGlobals), edit);
}

function answer(m: ModuleInfo, map: string, key: string, constGlobals: () => string): string {
  const all = key === '*';
  switch (map) {
    case 'bind': {
      const list = moduleAssigns(m.root).get(key) ?? [];
      return (
        list
          .map((a) => {
            const top = a.node.topNode();
            return `${answerLine(a.line)}:${a.index ?? ''}:${top ? statementHash(top) : ''}`;
          })
          .join('\n') || NONE
      );
    }
    case 'assigns': {
      // A function's assignments to one name: where each is and its text (what is read inside it is this answer's).
      const colon = key.indexOf(':');
      const fn = frameAt(m, key.slice(0, colon));
      if (!fn) return NONE;
      return (frameAssigns(fn).get(key.slice(colon + 1)) ?? []).map((a) => `${answerRow(a.node.startPosition.row)}:${a.index ?? ''}:${statementHash(a.node)}`).join('\n');
    }
    case 'returns': {
      const fn = frameAt(m, key);
      const ret = fn ? lastReturn(fn) : undefined;
      return fn ? (ret ? `${answerRow(ret.startPosition.row)}:${statementHash(ret)}` : '-') : NONE;
    }
    case 'units':
      return unitsAnswer(m.root, keyRow(Number(key)));
    case 'constGlobals':
      return constGlobals();
    case 'imports':
      return all ? JSON.stringify(mapEntries(m.imports)) : (mapGet(m.imports, key) ?? NONE);
    case 'fnAliases':
      return all ? JSON.stringify(mapEntries(m.fnAliases)) : (mapGet(m.fnAliases, key) ?? NONE);
    case 'globals':
    case 'foreignGlobals': {
      const g = map === 'globals' ? m.globals : m.foreignGlobals;
      if (!g) return NONE;
      return all ? mapEntries(g).map(([k, n]) => `${k}=${nodeAnswer(n)}`).join('\n') : nodeAnswer(mapGet(g, key));
    }
    case 'functions': {
      return all ? mapEntries(m.functions).map(([k, f]) => `${k}=${fnAnswer(f)}`).join('\n') : fnAnswer(mapGet(m.functions, key));
    }
    case 'hostCalls': {
      const calls = (list: Node[] | undefined) => (list ?? []).map((c) => nodeAnswer(c)).join(';');
      return all ? mapEntries(m.hostCalls).map(([k, l]) => `${k}=${calls(l)}`).join('\n') : calls(mapGet(m.hostCalls, key));
    }
    case 'fnIndex':
      // Every function's name, kind and extent (what finds the functions that launch kernels).
      return mapEntries(m.functions).map(([k, f]) => `${k}:${answerLine(f.line)}-${answerRow(f.node.endPosition.row)}:${f.isJit ? 'jit' : ''}`).join('\n') || NONE;
    case 'params': {
      const f = mapGet(m.functions, key);
      return f ? f.params.map((p) => p.name).join(',') : NONE;
    }
    case 'launches':
      // Every launch site of the file (the launch pipelines walk them all).
      return m.launches.map((l) => `${answerLine(l.line)}:${l.kernel}:${statementHash(l.node)}`).join('\n') || NONE;
    case 'kernelLaunches':
      // One kernel's launch sites (what its bindings take from them, and their lines).
      return (
        launchesOf(m, key)
          .map((l) => `${answerLine(l.line)}:${statementHash(l.node)}`)
          .join('\n') || NONE
      );
    case 'calledNames':
    case 'combineFns': {
      const s = map === 'calledNames' ? m.calledNames : m.combineFns;
      return all ? [...(Set.prototype.values.call(s) as Iterable<string>)].sort().join(',') : Set.prototype.has.call(s, key) ? '1' : '0';
    }
    default:
      // A read this function cannot answer: never the same (the kernel is analysed again).
      return unanswered();
  }
}
