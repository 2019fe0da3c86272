/**
 * Texel formats and their sizes: every texel format of the WGSL
 * specification ("Texel Formats for Storage Textures", including those of the
 * `texture_formats_tier1` language extension), plus the WebGPU formats a
 * sampled or depth texture may hold that WGSL never names (`-srgb`,
 * `rgb9e5ufloat`, depth). Pure data: the CLI and the settings read it to
 * accept `--dtype tex=rgba8unorm`.
 */
import type { Dtype } from '../../gpus/types';

/** Bytes per texel, by format name. */
const TEXEL_BYTES: Record<string, number> = {
  // 8 bits per channel
  r8unorm: 1, r8snorm: 1, r8uint: 1, r8sint: 1,
  rg8unorm: 2, rg8snorm: 2, rg8uint: 2, rg8sint: 2,
  rgba8unorm: 4, rgba8snorm: 4, rgba8uint: 4, rgba8sint: 4, bgra8unorm: 4,
  // 16 bits per channel
  r16unorm: 2, r16snorm: 2, r16uint: 2, r16sint: 2, r16float: 2,
  rg16unorm: 4, rg16snorm: 4, rg16uint: 4, rg16sint: 4, rg16float: 4,
  rgba16unorm: 8, rgba16snorm: 8, rgba16uint: 8, rgba16sint: 8, rgba16float: 8,
  // 32 bits per channel
  r32uint: 4, r32sint: 4, r32float: 4,
  rg32uint: 8, rg32sint: 8, rg32float: 8,
  rgba32uint: 16, rgba32sint: 16, rgba32float: 16,
  // packed 32-bit texels
  rgb10a2unorm: 4, rgb10a2uint: 4, rg11b10ufloat: 4,
  // WebGPU formats of sampled and depth textures that WGSL source never names
  'rgba8unorm-srgb': 4, 'bgra8unorm-srgb': 4, rgb9e5ufloat: 4,
  depth16unorm: 2, depth24plus: 4, depth32float: 4,
};

/** Bytes per texel of a format name (`rgba16float` → 8), case-insensitive; undefined when it is none. */
export function texelBytes(format: string): number | undefined {
  const b = TEXEL_BYTES[format.trim().toLowerCase()];
  return typeof b === 'number' ? b : undefined;
}

/** The canonical spelling of a texel format name, or undefined when it is none. */
export function texelFormat(name: string): string | undefined {
  const f = name.trim().toLowerCase();
  return Object.prototype.hasOwnProperty.call(TEXEL_BYTES, f) ? f : undefined;
}

/** Every texel format name (for messages). */
export function texelFormats(): string[] {
  return Object.keys(TEXEL_BYTES);
}

/** The stored channel type of a texel format, for the report. */
export function texelDtype(format: string): Dtype {
  if (/32float/.test(format)) return 'fp32';
  if (/16float|11b10|9e5/.test(format)) return 'fp16';
  if (/32(u|s)int/.test(format)) return 'int32';
  if (/16/.test(format)) return 'int16';
  return 'int8';
}
