// GPU test kernel (TileLangGpuTest.cpp), in Tile IR, single rank: for each
// pair of rows of x [T, H] (bf16, H <= 8192, a tile of [2, 8192] at 8
// warps, so the hidden dimension's tail and the last pair of rows are
// masked):
//   out    = bf16(x * rsqrt(mean(x^2) + eps) * w)          (RMSNorm, f32)
//   scale  = amax(|y|) / 448, q = e4m3(y * 448 / amax(|y|)) (per-row fp8)
//   deq    = bf16(f32(q) * scale)
//   lse    = max(x) + log(sum(exp(x - max(x))))             (logsumexp)
//   colmax[i, :] = max over the tile's valid rows of x      (leading dim)
// where y is the f32 RMSNorm before rounding. Built by
// dslc-translate --emit=cubin (tests/runtime/CMakeLists.txt).
func.func @tile_rmsnorm_fp8(
    %x: !tile.ref<bf16, 2>, %w: !tile.ref<bf16, 1>, %eps: f32,
    %out: !tile.ref<bf16, 2>, %q: !tile.ref<f8E4M3FN, 2>,
    %scale: !tile.ref<f32, 1>, %deq: !tile.ref<bf16, 2>,
    %lse: !tile.ref<f32, 1>, %colmax: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 8 : i64,
                tile.arg_names = ["x", "w", "eps", "out", "q", "scale", "deq",
                                  "lse", "colmax"]} {
  %t = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %h = tile.dim %x, 1 : !tile.ref<bf16, 2>
  tile.grid (%t) block [2] {
  ^bb0(%i: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %begin = arith.muli %i, %c2 : index
    %end0 = arith.addi %begin, %c2 : index
    %end = arith.minui %end0, %t : index
    %rows = arith.subi %end, %begin : index
    %xv = tile.load %x[%begin, %c0] limits [%end, %h] {dims = array<i64: 0, 1>}
        : !tile.ref<bf16, 2> -> tensor<2x8192xbf16>
    %wv = tile.load %w[%c0] limits [%h] {dims = array<i64: 0>}
        : !tile.ref<bf16, 1> -> tensor<8192xbf16>
    %xf = arith.extf %xv : tensor<2x8192xbf16> to tensor<2x8192xf32>

    // RMSNorm.
    %sq = arith.mulf %xf, %xf : tensor<2x8192xf32>
    %ss = tile.reduce sum %sq, 1 valid %h : tensor<2x8192xf32> -> tensor<2x1xf32>
    %hi = arith.index_cast %h : index to i64
    %hf = arith.uitofp %hi : i64 to f32
    %hs = tile.splat %hf : f32 -> tensor<2x1xf32>
    %mean = arith.divf %ss, %hs : tensor<2x1xf32>
    %es = tile.splat %eps : f32 -> tensor<2x1xf32>
    %me = arith.addf %mean, %es : tensor<2x1xf32>
    %r = math.rsqrt %me : tensor<2x1xf32>
    %rb = tile.broadcast %r : tensor<2x1xf32> -> tensor<2x8192xf32>
    %wf = arith.extf %wv : tensor<8192xbf16> to tensor<8192xf32>
    %w1 = tile.reshape %wf : tensor<8192xf32> -> tensor<1x8192xf32>
    %wb = tile.broadcast %w1 : tensor<1x8192xf32> -> tensor<2x8192xf32>
    %xn = arith.mulf %xf, %rb : tensor<2x8192xf32>
    %y = arith.mulf %xn, %wb : tensor<2x8192xf32>
    %yb = arith.truncf %y : tensor<2x8192xf32> to tensor<2x8192xbf16>
    tile.store %yb, %out[%begin, %c0] limits [%end, %h] {dims = array<i64: 0, 1>}
        : tensor<2x8192xbf16>, !tile.ref<bf16, 2>

    // Per-row fp8: amax of |y| (the removed-dimension form, reshaped back:
    // the canonicalizer makes it the keepdim reduction).
    %ay = math.absf %y : tensor<2x8192xf32>
    %amax = tile.reduce max %ay, 1 valid %h : tensor<2x8192xf32> -> tensor<2xf32>
    %amax1 = tile.reshape %amax : tensor<2xf32> -> tensor<2x1xf32>
    %fmax = arith.constant dense<448.0> : tensor<2x1xf32>
    %qs = arith.divf %fmax, %amax1 : tensor<2x1xf32>
    %qsb = tile.broadcast %qs : tensor<2x1xf32> -> tensor<2x8192xf32>
    %yq = arith.mulf %y, %qsb : tensor<2x8192xf32>
    %qv = arith.truncf %yq : tensor<2x8192xf32> to tensor<2x8192xf8E4M3FN>
    tile.store %qv, %q[%begin, %c0] limits [%end, %h] {dims = array<i64: 0, 1>}
        : tensor<2x8192xf8E4M3FN>, !tile.ref<f8E4M3FN, 2>
    %sc = arith.divf %amax1, %fmax : tensor<2x1xf32>
    %sc1 = tile.reshape %sc : tensor<2x1xf32> -> tensor<2xf32>
    tile.store %sc1, %scale[%begin] limits [%end] {dims = array<i64: 0>}
        : tensor<2xf32>, !tile.ref<f32, 1>
    %qf = arith.extf %qv : tensor<2x8192xf8E4M3FN> to tensor<2x8192xf32>
    %scb = tile.broadcast %sc : tensor<2x1xf32> -> tensor<2x8192xf32>
    %dq = arith.mulf %qf, %scb : tensor<2x8192xf32>
    %dqb = arith.truncf %dq : tensor<2x8192xf32> to tensor<2x8192xbf16>
    tile.store %dqb, %deq[%begin, %c0] limits [%end, %h] {dims = array<i64: 0, 1>}
        : tensor<2x8192xbf16>, !tile.ref<bf16, 2>

    // logsumexp of each row of x.
    %mx = tile.reduce max %xf, 1 valid %h : tensor<2x8192xf32> -> tensor<2x1xf32>
    %mxb = tile.broadcast %mx : tensor<2x1xf32> -> tensor<2x8192xf32>
    %d = arith.subf %xf, %mxb : tensor<2x8192xf32>
    %e = math.exp %d : tensor<2x8192xf32>
    %se = tile.reduce sum %e, 1 valid %h : tensor<2x8192xf32> -> tensor<2x1xf32>
    %lg = math.log %se : tensor<2x1xf32>
    %l = arith.addf %mx, %lg : tensor<2x1xf32>
    %l1 = tile.reshape %l : tensor<2x1xf32> -> tensor<2xf32>
    tile.store %l1, %lse[%begin] limits [%end] {dims = array<i64: 0>}
        : tensor<2xf32>, !tile.ref<f32, 1>

    // The maximum over the tile's valid rows, per column.
    %cm = tile.reduce max %xf, 0 valid %rows : tensor<2x8192xf32> -> tensor<8192xf32>
    %i1 = arith.addi %i, %c2 : index
    tile.store %cm, %colmax[%i, %c0] limits [%i1, %h] {dims = array<i64: 1>}
        : tensor<8192xf32>, !tile.ref<f32, 2>
  }
  return
}
