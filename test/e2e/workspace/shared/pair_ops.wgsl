// Imported by ../pairs.wgsl (`#import pair_ops`).
struct Pair {
  sum: f32,
  peak: f32,
}

fn combine(a: Pair, b: Pair) -> Pair {
  return Pair(a.sum + b.sum, max(a.peak, b.peak) * 0.5);
}
