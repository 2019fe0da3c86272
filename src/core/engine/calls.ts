/**
 * Calls the analysis cannot see (COUNTING.md, FLOP table): 0 FLOPs for the
 * call itself, and its result has the broadcast shape of its arguments and
 * their integer-or-float kind, so the arithmetic around it still counts per
 * element. The kernel is `complete: false`: a warning names the call and the
 * fix; a call that is handed a pointer may also load and store, so then its
 * bytes are unknown too.
 */
import type { Notes } from './recorder';

export interface UnknownCall {
  name: string;
  line: number;
  /** A pointer is among the arguments: the callee may load or store through it. */
  pointer: boolean;
  /** The module it is imported from, when it is imported. */
  from?: string;
  /** `from` is only where it may come from (CUDA: the file's local `#include`s). */
  maybe?: boolean;
}

export function unknownCall(notes: Notes, c: UnknownCall): void {
  const fix = c.from
    ? c.maybe
      ? `it may come from ${c.from}, which the analysis does not read (or reads for its macros only)`
      : `it comes from \`${c.from}\`, which is another file (the analysis reads one file at a time)`
    : 'it is neither defined in this file nor a function the analysis knows';
  if (c.pointer) notes.say('unknownPointerCall', c.line, c.name, fix);
  else notes.say('unknownCall', c.line, c.name, fix);
}

/** The kind of an unknown call's result: integer when every argument is an integer, else float. */
export function unknownResultIsInteger(argKinds: ('int' | 'float' | 'bool' | 'other')[]): boolean {
  return argKinds.length > 0 && argKinds.every((k) => k === 'int' || k === 'bool');
}
