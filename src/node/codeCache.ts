/**
 * Runs one of our own CommonJS bundles compiled from V8's code cache: the
 * bytecode of the functions an earlier run compiled, so a new process or
 * worker does not compile them again. The CLI's entry (src/cli/launch.ts)
 * uses the cache the build writes beside its bundle; the desktop
 * extension's analysis worker (src/desktop/workerLaunch.ts) one it writes
 * itself after its first analysis, in the extension's global storage (VS
 * Code's V8 is not the build's, and V8 rejects a cache of another version).
 *
 * A cache file is the SHA-256 of the bundle it was made from, the SHA-256
 * of the rest, a label (one byte of length, then ASCII: what the run that
 * wrote it had done, for its caller), then V8's data. V8 checks a cache
 * against its version, its flags and the source's length, and a release
 * build of V8 not against a checksum of its data: a rebuilt bundle of the
 * same length would otherwise run another bundle's bytecode, and a file
 * damaged on disk would be deserialised as it is. A cache made from another
 * bundle, a damaged one, one V8 rejects or none at all leaves the bundle
 * compiled as usual: the cache is an optimisation only, and nothing here
 * throws for it. What runs is always the bundle at the fixed path the
 * caller names (beside its entry), never text from the user.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { Module } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';

/** Bytes of a SHA-256 digest (the bundle's, then the rest's, in front of the label and V8's data). */
const DIGEST = 32;

const sha256 = (data: string | Buffer): Buffer => createHash('sha256').update(data).digest();

/**
 * What became of the cache: `used` (V8 took it), `rejected` (made from this
 * bundle, but V8 would not take it: another V8 or flags), `none` (no file,
 * an unreadable or damaged one, or one made from another bundle).
 */
export type CodeCacheState = 'used' | 'rejected' | 'none';

export interface CompiledBundle {
  readonly state: CodeCacheState;
  /** The label of the cache V8 took (`''` when none was used). */
  readonly label: string;
  /** Runs the bundle once, as a module below `parent` and its own `require.main` (as `node <bundle>` would run it). */
  run(parent: NodeModule): void;
  /**
   * Writes V8's code cache of the bundle, with the functions compiled so far,
   * to `file` (its folder made if missing; written beside and renamed, so a
   * reader never sees half a file), with `label` (up to 255 printable
   * ASCII characters). False when it could not be written (or the label is
   * not one).
   */
  save(file: string, label?: string): boolean;
}

/** The label and V8's data of the cache in `file` if it was made from the bundle of `digest` and is whole. */
function readCache(file: string | undefined, digest: Buffer): { label: string; data: Buffer } | undefined {
  if (file === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return undefined; // none yet
  }
  const rest = bytes.subarray(2 * DIGEST);
  if (rest.length < 2 || !bytes.subarray(0, DIGEST).equals(digest) || !bytes.subarray(DIGEST, 2 * DIGEST).equals(sha256(rest))) return undefined;
  const end = 1 + rest[0];
  return rest.length > end ? { label: rest.subarray(1, end).toString('latin1'), data: rest.subarray(end) } : undefined;
}

/** Compiles the bundle at `bundle` with the code cache in `cacheFile` when that holds one made from it. */
export function compileBundle(bundle: string, cacheFile: string | undefined): CompiledBundle {
  const source = fs.readFileSync(bundle, 'utf8');
  const digest = sha256(source);
  const cached = readCache(cacheFile, digest);
  const script = new vm.Script(Module.wrap(source), { filename: bundle, ...(cached ? { cachedData: cached.data } : {}) });
  const state: CodeCacheState = cached === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
  let ran = false;
  return {
    state,
    label: state === 'used' ? cached!.label : '',
    run(parent) {
      if (ran) throw new Error(`${bundle} already ran`);
      ran = true;
      const main = new Module(bundle, parent);
      main.filename = bundle;
      main.paths = parent.paths;
      const load = ((id: string) => main.require(id)) as NodeJS.Require;
      Object.assign(load, { main, cache: require.cache, resolve: require.resolve, extensions: require.extensions });
      (script.runInThisContext() as (...args: unknown[]) => void).call(main.exports, main.exports, load, main, bundle, path.dirname(bundle));
    },
    save(file, label = '') {
      if (label.length > 255 || !/^[\x20-\x7e]*$/.test(label)) return false;
      const partial = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.part`;
      try {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        const rest = Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'latin1'), script.createCachedData()]);
        fs.writeFileSync(partial, Buffer.concat([digest, sha256(rest), rest]));
        fs.renameSync(partial, file);
        return true;
      } catch {
        try {
          fs.rmSync(partial, { force: true });
        } catch {
          // a folder that cannot be written: nothing was left there
        }
        return false;
      }
    },
  };
}
