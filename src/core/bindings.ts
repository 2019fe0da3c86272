/**
 * Bindings: values for symbols, each remembering where it came from.
 * Priority (highest first) follows COUNTING.md / the issue: user (--set,
 * settings) > pragma > profile > launch site > host code (call sites,
 * benchmarks) > autotune > heuristics > template > define/const > default >
 * global > launch_bounds > derived.
 *
 * `profile` (the sizes of a measured launch, from its launch_metadata name)
 * ranks below what the user states on purpose (--set, settings, pragmas: a
 * deliberate override, e.g. of a name the metadata uses for another
 * quantity) and above everything read from the source, because it describes
 * the launch that was measured, not one the source merely suggests.
 */
import type { Binding, BindingSource, Suggestion } from './ir';

const PRIORITY: BindingSource[] = [
  'user',
  'pragma',
  'profile',
  'launch',
  'host',
  'autotune',
  'heuristics',
  'template',
  'define',
  'default',
  'global',
  'launch_bounds',
  'derived',
];

export function sourceRank(s: BindingSource): number {
  const i = PRIORITY.indexOf(s);
  return i < 0 ? PRIORITY.length : i;
}

export class BindingSet {
  private readonly map = new Map<string, Binding>();
  /** While `logged` runs: every bind asked for, taken or not (to be asked again in order on another set). */
  private log?: [string, number | boolean | string, BindingSource, string][];

  /** Binds `name` unless a higher-priority source already did. Returns true when the value was taken. */
  bind(name: string, value: number | boolean | string, source: BindingSource, detail: string): boolean {
    this.log?.push([name, value, source, detail]);
    const cur = this.map.get(name);
    if (cur && sourceRank(cur.source) <= sourceRank(source)) return false;
    if (typeof value === 'number' && !Number.isFinite(value)) return false;
    this.map.set(name, { value, source, detail });
    return true;
  }

  get(name: string): Binding | undefined {
    return this.map.get(name);
  }

  has(name: string): boolean {
    return this.map.has(name);
  }

  /** Numeric value (booleans as 0/1), or undefined. */
  num(name: string): number | undefined {
    const b = this.map.get(name);
    if (!b) return undefined;
    if (typeof b.value === 'number') return b.value;
    if (typeof b.value === 'boolean') return b.value ? 1 : 0;
    return undefined;
  }

  /** The numeric environment for `evaluate()`. */
  env(): Map<string, number> {
    const env = new Map<string, number>();
    for (const k of this.map.keys()) {
      const v = this.num(k);
      if (v !== undefined) env.set(k, v);
    }
    return env;
  }

  toRecord(): Record<string, Binding> {
    const out: Record<string, Binding> = {};
    for (const k of [...this.map.keys()].sort()) out[k] = this.map.get(k)!;
    return out;
  }

  /** Runs `fn`, with the binds it asked for (replayed in order with `bind` on a set as this one was, they give the same). */
  logged<T>(fn: () => T): { value: T; binds: [string, number | boolean | string, BindingSource, string][] } {
    const saved = this.log;
    const binds: [string, number | boolean | string, BindingSource, string][] = [];
    this.log = binds;
    try {
      return { value: fn(), binds };
    } finally {
      this.log = saved;
      saved?.push(...binds);
    }
  }

  clone(): BindingSet {
    const b = new BindingSet();
    for (const [k, v] of this.map) b.map.set(k, v);
    return b;
  }
}

/** Values kept per symbol: enough for a quick pick, few enough for the JSON. */
export const MAX_SUGGESTIONS = 48;

/**
 * Values the file suggests for symbols besides the bound ones (every autotune
 * config, other launch sites, host alternatives). One entry per value and
 * symbol: the first place that suggests it keeps its detail, later ones of
 * the same source are counted in `more`. Ordered by source (the bindings'
 * priority), then as added.
 */
export class Suggestions {
  private readonly map = new Map<string, Suggestion[]>();

  add(name: string, value: number | boolean | string, source: BindingSource, detail: string): void {
    if (typeof value === 'number' && !Number.isFinite(value)) return;
    const list = this.map.get(name) ?? [];
    const same = list.find((s) => s.value === value);
    if (same) {
      if (same.source === source) same.more = (same.more ?? 0) + 1;
      return;
    }
    if (list.length >= MAX_SUGGESTIONS) return;
    list.push({ value, source, detail });
    this.map.set(name, list);
  }

  get size(): number {
    return this.map.size;
  }

  /** By symbol name; each list ordered by source rank, stable within a source. */
  toRecord(): Record<string, Suggestion[]> | undefined {
    if (this.map.size === 0) return undefined;
    const out: Record<string, Suggestion[]> = {};
    for (const k of [...this.map.keys()].sort()) {
      out[k] = this.map
        .get(k)!
        .map((s, i) => ({ s, i }))
        .sort((a, b) => sourceRank(a.s.source) - sourceRank(b.s.source) || a.i - b.i)
        .map(({ s }) => ({ ...s }));
    }
    return out;
  }
}

/** Suggestions as they are added, to be added again in order to another set (a kept value: the frontends' launch memos). */
export class SuggestionLog extends Suggestions {
  readonly adds: [string, number | boolean | string, BindingSource, string][] = [];
  override add(name: string, value: number | boolean | string, source: BindingSource, detail: string): void {
    this.adds.push([name, value, source, detail]);
  }

  /** Adds them, in order, to `to`. */
  static replay(adds: readonly [string, number | boolean | string, BindingSource, string][], to: Suggestions): void {
    for (const [name, value, source, detail] of adds) to.add(name, value, source, detail);
  }
}

/** Parses a `--set` / pragma value: number (incl. 1e3, 0x10, 2**12), true/false, else string. */
export function parseBindingValue(raw: string): number | boolean | string {
  const s = raw.trim();
  if (s === 'true' || s === 'True') return true;
  if (s === 'false' || s === 'False') return false;
  const pow = /^(\d+)\s*\*\*\s*(\d+)$/.exec(s);
  if (pow) {
    const v = Math.pow(Number(pow[1]), Number(pow[2]));
    if (Number.isFinite(v)) return v;
  }
  if (/^[-+]?(0x[0-9a-f]+|\d+(\.\d*)?(e[-+]?\d+)?|\.\d+(e[-+]?\d+)?)$/i.test(s)) {
    const v = Number(s);
    if (Number.isFinite(v)) return v;
  }
  return s;
}

/**
 * Reads `# roofline: M=4096 N=4096` / `// roofline: M=4096` pragma comments.
 * Returns bindings with their 1-based line. Never throws.
 */
const SPACE = /\s/;

export function readPragmas(source: string): { name: string; value: number | boolean | string; line: number }[] {
  // Most files have none: one substring search instead of the pattern tried at every comment.
  if (!source.includes('roofline:')) return [];
  const out: { name: string; value: number | boolean | string; line: number }[] = [];
  let count = 0;
  let line = 1;
  let at = 0;
  let taken = 0;
  // Each `roofline:` with a comment opener (`#`, `//`, `/*`) before it, across white space: the pattern
  // `(?:#|\/\/|\/\*)\s*roofline:\s*([^\n]*)`, found from the word (a regular expression tried at every
  // character of a long file cost more than the rest of an edit's bookkeeping).
  for (let k = source.indexOf('roofline:'); k !== -1 && count < 1000; k = source.indexOf('roofline:', k + 1)) {
    let b = k;
    while (b > 0 && SPACE.test(source[b - 1])) b--;
    const c = source.charCodeAt(b - 1);
    let start: number;
    if (c === 35 /* # */) start = b - 1;
    else if (b >= 2 && source.charCodeAt(b - 2) === 47 /* / */ && (c === 47 || c === 42 /* * */)) start = b - 2;
    else continue;
    // Not within the line the last one took (a match runs to its line's end).
    if (start < taken) continue;
    count++;
    for (let i = source.indexOf('\n', at); i !== -1 && i < start; i = source.indexOf('\n', i + 1)) line++;
    at = start;
    let from = k + 'roofline:'.length;
    while (from < source.length && SPACE.test(source[from])) from++;
    const eol = source.indexOf('\n', from);
    const rest = source.slice(from, eol === -1 ? source.length : eol);
    // The next match starts after this one's line.
    taken = k = eol === -1 ? source.length : eol;
    const body = rest.replace(/\*\/.*$/, '');
    for (const pair of body.split(/[\s,]+/)) {
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (!/^[A-Za-z_][\w.]*(\(.*\))?$/.test(name) || value === '') continue;
      out.push({ name, value: parseBindingValue(value), line });
    }
  }
  return out;
}
