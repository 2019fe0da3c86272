// Pair and combine() come from shared/pair_ops.wgsl: 2 × 8 B loaded, 8 B stored, 2 FLOPs per invocation.
#import pair_ops

@group(0) @binding(0) var<storage, read> pairs_in: array<Pair>;
@group(0) @binding(1) var<storage, read_write> pairs_out: array<Pair>;

@compute @workgroup_size(64)
fn combine_pairs(@builtin(global_invocation_id) gid: vec3<u32>) {
  pairs_out[gid.x] = combine(pairs_in[gid.x * 2u], pairs_in[gid.x * 2u + 1u]);
}
