/**
 * Maps and sets that record each look-up while a kernel's reads are recorded
 * (src/core/deps.ts): the file scan's (Triton `scanModule` and `withForeign`, CUDA `FileInfo`).
 */
import { recording } from './deps';

/** A Map whose look-ups are recorded as `name:key` (iteration as `name:*`). */
export class RecordedMap<K extends string | number, V> extends Map<K, V> {
  constructor(
    private readonly label: string,
    entries?: Iterable<readonly [K, V]>,
    /** Marks the nodes a value found by `get` answers with (syntax-tree.ts `cover`): the answer to `label:key` holds their text. */
    private readonly covers?: (v: V) => void,
  ) {
    super();
    if (entries) for (const [k, v] of entries) super.set(k, v);
  }

  override get(k: K): V | undefined {
    const d = recording();
    if (!d) return super.get(k);
    d.queries.add(`${this.label}:${k}`);
    const v = super.get(k);
    if (v !== undefined && this.covers) this.covers(v);
    return v;
  }

  override has(k: K): boolean {
    recording()?.queries.add(`${this.label}:${k}`);
    return super.has(k);
  }

  override get size(): number {
    recording()?.queries.add(`${this.label}:*`);
    return super.size;
  }

  override forEach(f: (v: V, k: K, m: Map<K, V>) => void, thisArg?: unknown): void {
    recording()?.queries.add(`${this.label}:*`);
    super.forEach(f, thisArg);
  }

  override entries(): MapIterator<[K, V]> {
    recording()?.queries.add(`${this.label}:*`);
    return super.entries();
  }

  override keys(): MapIterator<K> {
    recording()?.queries.add(`${this.label}:*`);
    return super.keys();
  }

  override values(): MapIterator<V> {
    recording()?.queries.add(`${this.label}:*`);
    return super.values();
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }
}

/** A Set whose look-ups are recorded as `name:key` (iteration as `name:*`). */
export class RecordedSet<T extends string | number> extends Set<T> {
  constructor(
    private readonly label: string,
    items?: Iterable<T>,
  ) {
    super();
    if (items) for (const x of items) super.add(x);
  }

  override has(x: T): boolean {
    recording()?.queries.add(`${this.label}:${x}`);
    return super.has(x);
  }

  override get size(): number {
    recording()?.queries.add(`${this.label}:*`);
    return super.size;
  }

  override forEach(f: (v: T, k: T, s: Set<T>) => void, thisArg?: unknown): void {
    recording()?.queries.add(`${this.label}:*`);
    super.forEach(f, thisArg);
  }

  override values(): SetIterator<T> {
    recording()?.queries.add(`${this.label}:*`);
    return super.values();
  }

  override keys(): SetIterator<T> {
    return this.values();
  }

  override entries(): SetIterator<[T, T]> {
    recording()?.queries.add(`${this.label}:*`);
    return super.entries();
  }

  override [Symbol.iterator](): SetIterator<T> {
    return this.values();
  }
}
