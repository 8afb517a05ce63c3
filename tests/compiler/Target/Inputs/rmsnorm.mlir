// RMSNorm over rows of hidden size 8192, 4 rows per tile (num_warps is
// NUM_WARPS, substituted by the test):
//   out = x * rsqrt(mean(x^2, -1) + eps) * w, in f32, stored as bf16.
// The hidden dimension's valid count is the runtime hidden size.
func.func @rmsnorm(%x: !tile.ref<bf16, 2>, %w: !tile.ref<bf16, 1>,
                   %out: !tile.ref<bf16, 2>, %eps: f32)
    attributes {tile.kernel, tile.num_warps = NUM_WARPS : i64,
                tile.arg_names = ["x", "w", "out", "eps"]} {
  %t = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %h = tile.dim %x, 1 : !tile.ref<bf16, 2>
  tile.grid (%t) block [4] {
  ^bb0(%i: index):
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %begin = arith.muli %i, %c4 : index
    %end = arith.addi %begin, %c4 : index
    %xv = tile.load %x[%begin, %c0] limits [%end, %h] {dims = array<i64: 0, 1>}
        : !tile.ref<bf16, 2> -> tensor<4x8192xbf16>
    %wv = tile.load %w[%c0] limits [%h] {dims = array<i64: 0>}
        : !tile.ref<bf16, 1> -> tensor<8192xbf16>
    %xf = arith.extf %xv : tensor<4x8192xbf16> to tensor<4x8192xf32>
    %sq = arith.mulf %xf, %xf : tensor<4x8192xf32>
    %ss = tile.reduce sum %sq, 1 valid %h : tensor<4x8192xf32> -> tensor<4xf32>
    %col = tile.reshape %ss : tensor<4xf32> -> tensor<4x1xf32>
    %hi = arith.index_cast %h : index to i64
    %hf = arith.uitofp %hi : i64 to f32
    %hs = tile.splat %hf : f32 -> tensor<4x1xf32>
    %mean = arith.divf %col, %hs : tensor<4x1xf32>
    %es = tile.splat %eps : f32 -> tensor<4x1xf32>
    %me = arith.addf %mean, %es : tensor<4x1xf32>
    %r = math.rsqrt %me : tensor<4x1xf32>
    %rb = tile.broadcast %r : tensor<4x1xf32> -> tensor<4x8192xf32>
    %y = arith.mulf %xf, %rb : tensor<4x8192xf32>
    %wf = arith.extf %wv : tensor<8192xbf16> to tensor<8192xf32>
    %w2 = tile.reshape %wf : tensor<8192xf32> -> tensor<1x8192xf32>
    %wb = tile.broadcast %w2 : tensor<1x8192xf32> -> tensor<4x8192xf32>
    %z = arith.mulf %y, %wb : tensor<4x8192xf32>
    %zb = arith.truncf %z : tensor<4x8192xf32> to tensor<4x8192xbf16>
    tile.store %zb, %out[%begin, %c0] limits [%end, %h] {dims = array<i64: 0, 1>}
        : tensor<4x8192xbf16>, !tile.ref<bf16, 2>
  }
  return
}
