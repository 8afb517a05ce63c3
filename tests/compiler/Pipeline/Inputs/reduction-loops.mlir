// A hand-written kernel with reduction_loops (dslc-pipeline.test).
func.func @rms(%x: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.reduction_loops = array<i64: 64>} {
  %t = tile.dim %x, 0 : !tile.ref<f32, 2>
  %h = tile.dim %x, 1 : !tile.ref<f32, 2>
  tile.grid (%t) block [4] {
  ^bb0(%i: index):
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %b = arith.muli %i, %c4 : index
    %e = arith.addi %b, %c4 : index
    %v = tile.load %x[%b, %c0] limits [%e, %h] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<4x256xf32>
    %sq = arith.mulf %v, %v : tensor<4x256xf32>
    %s = tile.reduce sum %sq, 1 valid %h : tensor<4x256xf32> -> tensor<4x1xf32>
    %r = math.rsqrt %s : tensor<4x1xf32>
    %rb = tile.broadcast %r : tensor<4x1xf32> -> tensor<4x256xf32>
    %y = arith.mulf %v, %rb : tensor<4x256xf32>
    tile.store %y, %out[%b, %c0] limits [%e, %h] {dims = array<i64: 0, 1>} : tensor<4x256xf32>, !tile.ref<f32, 2>
  }
  return
}
