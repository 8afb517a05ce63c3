// Per-row fp8 quantization of a [T, 2048] bf16 tensor (4 rows per tile) and
// its dequantization: scale = 448 / amax(|x|) per row (e4m3's largest
// finite value), q = e4m3(x * scale) saturating, back = bf16(q / scale).
// num_warps is NUM_WARPS.
func.func @fp8_quant(%x: !tile.ref<bf16, 2>, %q: !tile.ref<f8E4M3FN, 2>,
                     %scales: !tile.ref<f32, 1>, %back: !tile.ref<bf16, 2>)
    attributes {tile.kernel, tile.num_warps = NUM_WARPS : i64,
                tile.arg_names = ["x", "q", "scales", "back"]} {
  %t = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %h = tile.dim %x, 1 : !tile.ref<bf16, 2>
  tile.grid (%t) block [4] {
  ^bb0(%i: index):
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %begin = arith.muli %i, %c4 : index
    %end = arith.addi %begin, %c4 : index
    %xv = tile.load %x[%begin, %c0] limits [%end, %h] {dims = array<i64: 0, 1>}
        : !tile.ref<bf16, 2> -> tensor<4x2048xbf16>
    %xf = arith.extf %xv : tensor<4x2048xbf16> to tensor<4x2048xf32>
    %a = math.absf %xf : tensor<4x2048xf32>
    %amax = tile.reduce max %a, 1 valid %h : tensor<4x2048xf32> -> tensor<4x1xf32>
    %fmax = arith.constant dense<448.0> : tensor<4x1xf32>
    %scale = arith.divf %fmax, %amax : tensor<4x1xf32>
    %sb = tile.broadcast %scale : tensor<4x1xf32> -> tensor<4x2048xf32>
    %xs = arith.mulf %xf, %sb : tensor<4x2048xf32>
    %qv = arith.truncf %xs : tensor<4x2048xf32> to tensor<4x2048xf8E4M3FN>
    tile.store %qv, %q[%begin, %c0] limits [%end, %h] {dims = array<i64: 0, 1>}
        : tensor<4x2048xf8E4M3FN>, !tile.ref<f8E4M3FN, 2>
    %s1 = tile.reshape %scale : tensor<4x1xf32> -> tensor<4xf32>
    tile.store %s1, %scales[%begin] limits [%end] {dims = array<i64: 0>}
        : tensor<4xf32>, !tile.ref<f32, 1>
    %ql = tile.load %q[%begin, %c0] limits [%end, %h] {dims = array<i64: 0, 1>}
        : !tile.ref<f8E4M3FN, 2> -> tensor<4x2048xf8E4M3FN>
    %qf = arith.extf %ql : tensor<4x2048xf8E4M3FN> to tensor<4x2048xf32>
    %d = arith.divf %qf, %sb : tensor<4x2048xf32>
    %db = arith.truncf %d : tensor<4x2048xf32> to tensor<4x2048xbf16>
    tile.store %db, %back[%begin, %c0] limits [%end, %h] {dims = array<i64: 0, 1>}
        : tensor<4x2048xbf16>, !tile.ref<bf16, 2>
  }
  return
}
