/**
 * CUDA's side of a kernel's recorded reads (src/core/deps.ts): `fingerprint`
 * answers every recorded read on the file as it is now (its scan,
 * `FileInfo`, whose maps record their look-ups). Two analyses of a kernel
 * that read the same answers give the same report; the driver compares the
 * answers and reuses the kernel when they match.
 */
import { answerLine, answerReads, answersOf, answerRow, keyRow, statementHash, unanswered, type Answers, type Deps, type RowEdit } from '../../deps';
import { statementAt, unitAt, unitsAnswer } from '../../syntax-tree';
import { describe, NONE } from './describe';
import { callablesOf, kernelParamsOf, type FileInfo } from './file';
import { callsAnswer, paramNames } from './launch';
import { hostFunctions, launchingFunctions } from './pipeline';

const mapGet = <K, V>(m: Map<K, V>, k: K): V | undefined => Map.prototype.get.call(m, k) as V | undefined;

/**
 * Every recorded read answered on `file` (the file as it is), hashed: equal
 * for two versions of a file when the kernel would read the same there.
 */
export function fingerprint(file: FileInfo, d: Deps, source: string, edit?: RowEdit, lines?: RowEdit): Answers {
  return answerReads(d, source, (row) => statementAt(file.root, row), answersOf(file, edit), (map, key) => answer(file, map, key), edit, lines);
}

function answer(file: FileInfo, map: string, key: string): string {
  const all = key === '*';
  switch (map) {
    case 'functions':
    case 'structs':
    case 'typedefs':
    case 'textures':
    case 'globals': {
      const m = file[map] as Map<string, unknown>;
      return all ? describe(m) : describe(mapGet(m, key));
    }
    case 'callables': {
      const at = key.lastIndexOf('::');
      return describe(callablesOf(file, key.slice(at < 0 ? 0 : at + 2), at < 0 ? undefined : key.slice(0, at)));
    }
    case 'kernelParams':
      return describe(kernelParamsOf(file, key));
    case 'structsAt':
      return all ? describe(file.structsAt) : describe(mapGet(file.structsAt, Number(key)));
    case 'macro':
      return (file.macros.get(key) ?? []).map((m) => `${answerLine(m.line)}:${m.undef ? 'undef' : ''}:${m.params?.join(',') ?? ''}:${m.text}`).join(';') || NONE;
    case 'live': {
      const row = keyRow(Number(key));
      const st = statementAt(file.root, row);
      return st ? `${statementHash(st)}\u0001${file.decisionsIn(unitAt(file.root, row)!)}` : NONE;
    }
    case 'units':
      return unitsAnswer(file.root, keyRow(Number(key)));
    case 'helperMentions':
      return file.helperText().includes(key) ? '1' : '0';
    case 'includes':
      return describe(file.includes.map((i) => [i.path, i.system, answerLine(i.line)]));
    case 'kernelIndex':
      return file.kernels.map((k) => `${k.name}@${answerRow((k.template ?? k.node).startPosition.row)}-${answerRow(k.node.endPosition.row)}`).join(';') || NONE;
    case 'hostFns':
      return [...hostFunctions(file)].map(([name, d]) => `${name}@${answerRow(d.node.startPosition.row)}-${answerRow(d.node.endPosition.row)}`).join(';') || NONE;
    case 'reaches':
      return [...launchingFunctions(file)].filter(([, n]) => n > 0).map(([name, n]) => `${name}:${n}`).join(',') || NONE;
    case 'params': {
      const k = byName(file.kernels, key)[0];
      return k ? paramNames(k.node).join(',') : NONE;
    }
    case 'launches':
      return (all ? file.launches : byName(file.launches, key)).map((l) => `${answerRow(l.call.startPosition.row)}:${l.name}:${l.call.text}`).join(';');
    case 'calls':
      return callsAnswer(file, key);
    default:
      return unanswered();
  }
}

/**
 * A scan's kernels and launch sites by name, in file order: each kernel's
 * reads ask for its own (`params:K`, `launches:K`), and a filter of the whole
 * list per kernel made answering every kernel's reads quadratic in a file's
 * kernels. Per list; built again when the list grew (a scan in slices adds to it).
 */
const byNameIndex = new WeakMap<readonly unknown[], { n: number; map: Map<string, unknown[]> }>();

function byName<T extends { name: string }>(list: readonly T[], name: string): readonly T[] {
  let kept = byNameIndex.get(list);
  if (!kept || kept.n !== list.length) {
    const map = new Map<string, T[]>();
    for (const x of list) {
      const same = map.get(x.name);
      if (same) same.push(x);
      else map.set(x.name, [x]);
    }
    byNameIndex.set(list, (kept = { n: list.length, map }));
  }
  return (kept.map.get(name) as T[] | undefined) ?? [];
}
