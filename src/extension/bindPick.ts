/**
 * The items of Bind Symbol's value quick pick: the values the file suggests
 * for the symbol (its current binding, every autotune config, other launch
 * sites, host call sites and benchmark rows: `report.suggestions`), the
 * values the file gives its other symbols (a host size, an autotune value),
 * powers of two near all of them, and the value typed. Pure (no `vscode`),
 * so every label is unit-tested; commands.ts turns them into QuickPickItems.
 */
import type { BindingValue } from '../core/analyze';
import { sourceRank } from '../core/bindings';
import type { BindingSource } from '../core/ir';
import type { KernelReport } from '../core/report/types';
import { bindingSourceText, isPragmaValue } from './present';
import { readBindingValue } from './settings';

export type BindTarget = 'settings' | 'pragma';

export interface ValueItem {
  kind: 'value' | 'separator' | 'typed' | 'invalid' | 'target';
  label: string;
  description?: string;
  /** The value the item binds (kind `value` and `typed`). */
  value?: BindingValue;
}

/** Values of the file's other symbols offered, at most. */
export const MAX_OTHER_VALUES = 12;
/** Powers of two offered, at most. */
export const MAX_POWERS = 8;
/** Offered when the file suggests no size of 1024 or more: 2^10 … 2^14. */
const COMMON_SIZES = [1024, 2048, 4096, 8192, 16384];

/** Sources whose values are the file's (or the user's) sizes; derived and launch-bounds values are not offered for other symbols. */
const OFFERED: ReadonlySet<BindingSource> = new Set<BindingSource>(['user', 'pragma', 'profile', 'launch', 'host', 'autotune', 'template', 'define', 'default', 'global']);

/** `4096` as it is bound: numbers as written, booleans as true/false. */
export function valueLabel(v: BindingValue): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

/** Autotune settings that are not sizes of the kernel (`num_warps=4`). */
const NOT_SIZES = new Set(['num_warps', 'num_stages', 'num_ctas', 'maxnreg', 'waves_per_eu', 'matrix_instr_nonkdim', 'kpack']);
/** Powers of two are offered near values from this size up (not near a 4 or an 8). */
const POWER_FROM = 16;

/** Launch quantities (`blockDim.x`, `tl.num_programs(0)`) are not sizes of another symbol. */
function isLaunchQuantity(name: string): boolean {
  return /[.(]/.test(name);
}

function isSize(v: BindingValue | undefined): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 2;
}

/**
 * The quick pick's items for binding `name` in kernel `k` (undefined: the
 * document has no analysis). Separators head each non-empty section; no
 * value appears twice (the first place that offers it keeps it).
 */
export function bindValueItems(k: KernelReport | undefined, name: string, target?: BindTarget): ValueItem[] {
  const seen = new Set<string>();
  const own: ValueItem[] = [];
  const add = (list: ValueItem[], value: BindingValue, description: string): void => {
    const key = valueLabel(value);
    if (seen.has(key)) return;
    seen.add(key);
    list.push({ kind: 'value', label: key, description, value });
  };
  if (k) {
    const current = k.bindings[name];
    const src = k.bindingSources[name];
    if (current !== undefined) add(own, current, `current · ${src ? bindingSourceText(src.source, src.detail) : 'bound'}`);
    if (k.undecided?.includes(name)) {
      add(own, true, 'one of the two choices (the costlier is counted while unbound)');
      add(own, false, 'the other choice');
    }
    for (const s of k.suggestions?.[name] ?? []) {
      add(own, s.value, `${bindingSourceText(s.source, s.detail)}${s.more ? ` (and ${s.more} more)` : ''}`);
    }
  }
  const others: ValueItem[] = [];
  if (k && !isLaunchQuantity(name)) {
    // The host's and launches' sizes first (best source first), each symbol's bound value before its suggestions.
    const candidates: { value: number; text: string; rank: number }[] = [];
    const skip = (n: string): boolean => n === name || isLaunchQuantity(n) || NOT_SIZES.has(n);
    for (const [n, v] of Object.entries(k.bindings)) {
      const src = k.bindingSources[n];
      if (skip(n) || !isSize(v) || (src && !OFFERED.has(src.source))) continue;
      candidates.push({ value: v, text: `${n} · ${src ? bindingSourceText(src.source, src.detail) : 'bound'}`, rank: src ? 2 * sourceRank(src.source) : 99 });
    }
    for (const [n, list] of Object.entries(k.suggestions ?? {})) {
      if (skip(n)) continue;
      for (const s of list) if (isSize(s.value)) candidates.push({ value: s.value, text: `${n} · ${bindingSourceText(s.source, s.detail)}`, rank: 2 * sourceRank(s.source) + 1 });
    }
    for (const c of candidates.map((c, i) => ({ c, i })).sort((a, b) => a.c.rank - b.c.rank || a.i - b.i).map(({ c }) => c)) {
      if (others.length >= MAX_OTHER_VALUES) break;
      add(others, c.value, c.text);
    }
  }
  const sizes = [...own, ...others].map((i) => i.value).filter(isSize).filter((v) => v >= POWER_FROM);
  const powers: ValueItem[] = [];
  const near = new Map<number, number>();
  for (const v of sizes) {
    for (const p of powersNear(v)) if (!near.has(p)) near.set(p, v);
  }
  // A problem size (K) rarely is a tile size: the common sizes too when the file gives no size that large.
  const common = Math.max(0, ...sizes) < COMMON_SIZES[0] ? COMMON_SIZES : [];
  const wanted = k?.undecided?.includes(name) ? [] : [...new Set([...near.keys(), ...common])];
  for (const p of wanted.sort((a, b) => a - b)) {
    if (powers.length >= MAX_POWERS) break;
    const from = near.get(p);
    add(powers, p, `2^${Math.log2(p)}${from !== undefined ? ` · a power of two near ${from}` : ' · a common size'}`);
  }
  const out: ValueItem[] = [];
  const section = (title: string, list: ValueItem[]): void => {
    if (list.length) out.push({ kind: 'separator', label: title }, ...list);
  };
  section(`Suggested for ${name}`, own);
  section('Values in this file', others);
  section('Powers of two', powers);
  if (target) out.push({ kind: 'separator', label: '' }, targetItem(target));
  return out;
}

/** The powers of two either side of `v` (for a power of two: half and double). */
export function powersNear(v: number): number[] {
  if (!(v >= 1) || !Number.isFinite(v)) return [];
  const lo = 2 ** Math.floor(Math.log2(v));
  const out = lo === v ? [v / 2, v * 2] : [lo, lo * 2];
  return out.filter((p) => p >= 1 && Number.isSafeInteger(p));
}

/**
 * The item for what is typed in the quick pick's box: a value to bind, or
 * why it is not one. Undefined for an empty box.
 */
export function typedValueItem(text: string): ValueItem | undefined {
  const s = text.trim();
  if (s === '') return undefined;
  const v = readBindingValue(s);
  if (v !== undefined && typeof v !== 'string' && isPragmaValue(v)) return { kind: 'typed', label: valueLabel(v), description: 'the value typed', value: v };
  return { kind: 'invalid', label: `$(warning) ${s}`, description: 'not a value: enter a number such as 4096 or 2**12, true or false' };
}

/** The last item: where the value will be written, and a way to change it. */
export function targetItem(target: BindTarget): ValueItem {
  return { kind: 'target', label: `$(arrow-swap) Written to ${target === 'settings' ? 'the rooflineLens.bindings setting' : 'a pragma comment in this file'}`, description: 'change…' };
}

/**
 * The items shown for the box's text: the typed value first (always shown),
 * then the base items without the one that binds the same value.
 */
export function itemsForText(base: ValueItem[], text: string): ValueItem[] {
  const typed = typedValueItem(text);
  if (!typed) return base;
  return [typed, ...base.filter((i) => i.kind !== 'value' || typed.kind !== 'typed' || i.label !== typed.label)];
}
