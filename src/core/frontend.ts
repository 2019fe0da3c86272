/**
 * The frontend contract: what the pipeline hands a language frontend and what
 * it gets back. A frontend translates syntax into facts and calls the engine
 * (`engine/`) for every counting decision; it never imports `analyze.ts` or
 * another frontend (test/architecture.test.ts).
 */
import type { Budget } from './budget';
import type { Dtype, GpuSpec } from './gpus/types';
import type { FileIR, KernelIR } from './ir';
import type { Parsers } from './parsers';

export type BindingValue = number | boolean | string;

export interface UserInputs {
  /** `--set NAME=VALUE` / settings. */
  set: Record<string, BindingValue>;
  /** `--dtype NAME=TYPE`. */
  dtypes: Record<string, Dtype>;
  /** `--dtype NAME=FORMAT` for WGSL textures, kept as written (`rgba8unorm`). */
  texels?: Record<string, string>;
  /** `--grid X,Y,Z`. */
  grid?: number[];
  /**
   * One launch of a pipeline (src/core/pipeline/): analyse only `kernel`, with
   * the launch site at `line` and the values the pipeline's host code gives the
   * host function around it (`frame`, by parameter name).
   */
  launch?: LaunchInputs;
}

export type { HostLite, LaunchInputs } from './ir';
import type { LaunchInputs } from './ir';
import type { RelatedFile } from './related';

/** What a frontend receives. */
export interface FrontendContext {
  source: string;
  parsers: Parsers;
  user: UserInputs;
  /** Pragma bindings found in the file (`# roofline: M=4096`). */
  pragmas: { name: string; value: BindingValue; line: number }[];
  budget: Budget;
  path?: string;
  /** The GPU the numbers are for (CUDA: the target architecture of `#if __CUDA_ARCH__ >= …`). */
  gpu?: GpuSpec;
  /** Texts of the project files the source names (`#import config`), by spec (src/core/related.ts). */
  related?: Readonly<Record<string, RelatedFile>>;
  /**
   * The per-launch analyses of one report's launch pipelines (`user.launch`)
   * share it: what they read alike of the host code is read once for them
   * all, in their fixed order (Triton: the host reader's call-site values).
   */
  launchGroup?: object;
  /** The text is analysed once (`OneShot`): nothing is recorded or kept for a later version of it. */
  once?: OneShot;
}

/**
 * A text analysed once, by a caller that will not analyse an edited version
 * of it (the CLI, the survey): the kernels' reads of the rest of the file are
 * not recorded and nothing is kept for the next version (src/core/deps.ts,
 * engine/driver.ts) — work only an editor's next keystroke would use. The
 * kernels analysed are shared by the analyses given the same `OneShot` (one
 * text for several GPUs) and let go with it.
 */
export class OneShot {
  /** Analysed kernels, by their job's key and the user's inputs (the rest of the text is the same: `forText`). */
  readonly kernels = new Map<string, KernelIR>();
  private text: string | undefined;

  /** Whether `source` is the text this one is of (the first text given is): a different one empties it. */
  forText(source: string): this {
    if (this.text !== source) {
      this.text = source;
      this.kernels.clear();
    }
    return this;
  }
}

export type Frontend = (ctx: FrontendContext) => FileIR;
