// The absolute maximum of each row of a [T, H] bf16 tensor, H <= 5120 (not
// a power of two: the last pieces are ragged, and the valid count H masks
// the rest), one row per tile, in f32; rows of negative values must give
// their largest magnitude, not 0 or -inf. num_warps is NUM_WARPS.
func.func @amax_rows(%x: !tile.ref<bf16, 2>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = NUM_WARPS : i64,
                tile.arg_names = ["x", "out"]} {
  %t = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %h = tile.dim %x, 1 : !tile.ref<bf16, 2>
  tile.grid (%t) block [1] {
  ^bb0(%i: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %end = arith.addi %i, %c1 : index
    %xv = tile.load %x[%i, %c0] limits [%end, %h] {dims = array<i64: 0, 1>}
        : !tile.ref<bf16, 2> -> tensor<1x5120xbf16>
    %xf = arith.extf %xv : tensor<1x5120xbf16> to tensor<1x5120xf32>
    %a = math.absf %xf : tensor<1x5120xf32>
    %m = tile.reduce max %a, 1 valid %h : tensor<1x5120xf32> -> tensor<1xf32>
    tile.store %m, %out[%i] limits [%t] {dims = array<i64: 0>}
        : tensor<1xf32>, !tile.ref<f32, 1>
  }
  return
}
