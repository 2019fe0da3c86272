/**
 * The frontend contract: what the pipeline hands a language frontend and what
 * it gets back. A frontend translates syntax into facts and calls the engine
 * (`engine/`) for every counting decision; it never imports `analyze.ts` or
 * another frontend (test/architecture.test.ts).
 */
import type { Budget } from './budget';
import type { Dtype, GpuSpec } from './gpus/types';
import type { FileIR } from './ir';
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
}

export type Frontend = (ctx: FrontendContext) => FileIR;
