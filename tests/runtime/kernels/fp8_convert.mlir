// GPU test kernel (TileLangGpuTest.cpp), in Tile IR: f32 -> e4m3 and e5m2
// (saturating, round to nearest even) and back to f32, elementwise over
// tiles of 512.
func.func @fp8_convert(%x: !tile.ref<f32, 1>, %q4: !tile.ref<f8E4M3FN, 1>,
                       %q5: !tile.ref<f8E5M2, 1>, %back4: !tile.ref<f32, 1>,
                       %back5: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64,
                tile.arg_names = ["x", "q4", "q5", "back4", "back5"]} {
  %n = tile.dim %x, 0 : !tile.ref<f32, 1>
  tile.grid (%n) block [512] {
  ^bb0(%i: index):
    %c512 = arith.constant 512 : index
    %begin = arith.muli %i, %c512 : index
    %end = arith.addi %begin, %c512 : index
    %xv = tile.load %x[%begin] limits [%end] {dims = array<i64: 0>}
        : !tile.ref<f32, 1> -> tensor<512xf32>
    %a = arith.truncf %xv : tensor<512xf32> to tensor<512xf8E4M3FN>
    %b = arith.truncf %xv : tensor<512xf32> to tensor<512xf8E5M2>
    tile.store %a, %q4[%begin] limits [%end] {dims = array<i64: 0>}
        : tensor<512xf8E4M3FN>, !tile.ref<f8E4M3FN, 1>
    tile.store %b, %q5[%begin] limits [%end] {dims = array<i64: 0>}
        : tensor<512xf8E5M2>, !tile.ref<f8E5M2, 1>
    %af = arith.extf %a : tensor<512xf8E4M3FN> to tensor<512xf32>
    %bf = arith.extf %b : tensor<512xf8E5M2> to tensor<512xf32>
    tile.store %af, %back4[%begin] limits [%end] {dims = array<i64: 0>}
        : tensor<512xf32>, !tile.ref<f32, 1>
    tile.store %bf, %back5[%begin] limits [%end] {dims = array<i64: 0>}
        : tensor<512xf32>, !tile.ref<f32, 1>
  }
  return
}
