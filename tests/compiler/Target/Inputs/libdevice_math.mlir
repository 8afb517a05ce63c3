// exp, log (libdevice) and sqrt (sqrt.rn) of a bf16 tile, in f32.
func.func @math_kernel(%a: !tile.ref<bf16, 1>, %out: !tile.ref<bf16, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.arg_names = ["a", "out"]} {
  %n = tile.dim %a, 0 : !tile.ref<bf16, 1>
  tile.grid (%n) block [1024] {
  ^bb0(%i: index):
    %c1024 = arith.constant 1024 : index
    %begin = arith.muli %i, %c1024 : index
    %end = arith.addi %begin, %c1024 : index
    %x = tile.load %a[%begin] limits [%end] {dims = array<i64: 0>}
        : !tile.ref<bf16, 1> -> tensor<1024xbf16>
    %e = math.exp %x : tensor<1024xbf16>
    %l = math.log %e : tensor<1024xbf16>
    %s = math.sqrt %l : tensor<1024xbf16>
    tile.store %s, %out[%begin] limits [%end] {dims = array<i64: 0>}
        : tensor<1024xbf16>, !tile.ref<bf16, 1>
  }
  return
}
