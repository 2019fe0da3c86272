/**
 * Strings kept longer than the text they were cut from.
 *
 * A string cut from a file's text (a node's text, a name, a match of a
 * regular expression) is, in V8, a view into the whole text from 13
 * characters on: a kernel name kept in a cache keeps the whole version of
 * the file it was read from alive. The caches that outlive a version (the
 * kernel cache, the values kept with their reads) keep their strings as
 * copies of their own: without it, every keystroke's text stayed alive
 * (~100 KB a keystroke on a 1,000-line file, as long as the caches held a
 * kernel of that version).
 */
/** Shorter strings are copied by V8 anyway, never views into another. */
const VIEW_FROM = 13;

/** A copy of `s` that is no view into the text it may have been cut from. */
export function detached(s: string): string {
  // Slicing a concatenation makes it flat first: a new string of its own, of which the slice is the view.
  return s.length < VIEW_FROM ? s : (' ' + s).slice(1);
}

/**
 * Makes every string held by `value` (plain objects, arrays, maps and sets,
 * nested) a copy of its own, in place, and returns it. For a value about to
 * be kept by a cache, before anyone else holds it. Instances of classes are
 * left as they are: a symbolic expression's names are copies already
 * (`sym`).
 */
export function detachStrings<T>(value: T): T {
  const stack: unknown[] = [value];
  // The objects seen in this call (a value may hold an object twice). Not kept across calls: a WeakSet of every
  // object ever kept made each look-up slower and every full collection walk it.
  const done = new Set<object>();
  while (stack.length) {
    const x = stack.pop();
    // A frozen object (the GPU table) holds no text of a file.
    if (typeof x !== 'object' || x === null || done.has(x) || Object.isFrozen(x)) continue;
    done.add(x);
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        const v: unknown = x[i];
        if (typeof v === 'string') x[i] = detached(v);
        else stack.push(v);
      }
      continue;
    }
    if (x instanceof Map) {
      const entries = [...x.entries()];
      x.clear();
      for (const [k, v] of entries) {
        x.set(typeof k === 'string' ? detached(k) : k, typeof v === 'string' ? detached(v) : v);
        stack.push(k, v);
      }
      continue;
    }
    if (x instanceof Set) {
      const items = [...x];
      x.clear();
      for (const v of items) {
        x.add(typeof v === 'string' ? detached(v) : v);
        stack.push(v);
      }
      continue;
    }
    const proto = Object.getPrototypeOf(x);
    if (proto !== Object.prototype && proto !== null) continue;
    const rec = x as Record<string, unknown>;
    for (const k of Object.keys(rec)) {
      const v = rec[k];
      if (typeof v === 'string') rec[k] = detached(v);
      else stack.push(v);
    }
  }
  return value;
}
