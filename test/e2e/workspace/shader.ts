// A WebGPU compute pass whose WGSL lives in a template literal: y = 2 * x, 256 invocations per workgroup.
export const scaleShader = /* wgsl */ `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(256)
fn scale(@builtin(global_invocation_id) gid: vec3<u32>) {
  y[gid.x] = 2.0 * x[gid.x];
}
`;
