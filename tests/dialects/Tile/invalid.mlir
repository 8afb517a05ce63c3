// RUN: dslc-opt %s -split-input-file -verify-diagnostics

// Every verifier branch of the tile dialect: types, kernel attributes, ops.

// expected-error @+1 {{!tile.ref element type must be an integer of 1, 8, 16, 32 or 64 bits, bf16, f16, f32, f64, f8E4M3FN or f8E5M2 (index has no size in memory), got 'index'}}
func.func @ref_index(%a: !tile.ref<index, 1>)

// -----

// expected-error @+1 {{!tile.ref element type must be an integer of 1, 8, 16, 32 or 64 bits, bf16, f16, f32, f64, f8E4M3FN or f8E5M2 (index has no size in memory), got 'vector<4xf32>'}}
func.func @ref_vector(%a: !tile.ref<vector<4xf32>, 1>)

// -----

// expected-error @+1 {{!tile.ref element type must be an integer of 1, 8, 16, 32 or 64 bits, bf16, f16, f32, f64, f8E4M3FN or f8E5M2 (index has no size in memory), got 'f8E4M3FNUZ'}}
func.func @ref_fp8_fnuz(%a: !tile.ref<f8E4M3FNUZ, 1>)

// -----

// expected-error @+1 {{!tile.ref element type must be an integer of 1, 8, 16, 32 or 64 bits, bf16, f16, f32, f64, f8E4M3FN or f8E5M2 (index has no size in memory), got 'i4'}}
func.func @ref_i4(%a: !tile.ref<i4, 1>)

// -----

// expected-error @+1 {{!tile.ref rank must be between 1 and 8, got 0}}
func.func @ref_rank0(%a: !tile.ref<f32, 0>)

// -----

// expected-error @+1 {{!tile.ref rank must be between 1 and 8, got 9}}
func.func @ref_rank9(%a: !tile.ref<f32, 9>)

// -----

// expected-error @+1 {{'tile.kernel' must be a unit attribute, got 1 : i64}}
func.func @kernel_not_unit() attributes {tile.kernel = 1} {
  return
}

// -----

// expected-error @+1 {{'tile.num_warps' must be an integer attribute, got "4"}}
func.func @warps_string() attributes {tile.kernel, tile.num_warps = "4"} {
  return
}

// -----

// expected-error @+1 {{'tile.num_warps' must be between 1 and 32 (at most 1024 threads), got 0}}
func.func @warps_zero() attributes {tile.kernel, tile.num_warps = 0 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.num_warps' must be between 1 and 32 (at most 1024 threads), got 33}}
func.func @warps_big() attributes {tile.kernel, tile.num_warps = 33 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.arg_names' must be an array of strings, got ["a", 1]}}
func.func @arg_names() attributes {tile.arg_names = ["a", 1]} {
  return
}

// -----

// expected-error @+1 {{'tile.peer_count' must be an integer attribute, got 2.000000e+00 : f32}}
func.func @peers_float() attributes {tile.peer_count = 2.0 : f32} {
  return
}

// -----

// expected-error @+1 {{'tile.peer_count' must be positive, got 0}}
func.func @peers_zero() attributes {tile.peer_count = 0 : i64} {
  return
}

// -----

func.func @dim_out_of_range(%a: !tile.ref<f32, 2>) {
  // expected-error @+1 {{'tile.dim' op dimension 2 is out of range for '!tile.ref<f32, 2>': expected 0 <= dim < 2}}
  %d = tile.dim %a, 2 : !tile.ref<f32, 2>
  return
}

// -----

func.func @dim_negative(%a: !tile.ref<f32, 2>) {
  // expected-error @+1 {{'tile.dim' op dimension -1 is out of range for '!tile.ref<f32, 2>': expected 0 <= dim < 2}}
  %d = tile.dim %a, -1 : !tile.ref<f32, 2>
  return
}

// -----

func.func @grid_no_dims() {
  // expected-error @+1 {{'tile.grid' op needs at least one dimension, got no block sizes}}
  tile.grid () block [] {
  }
  return
}

// -----

func.func @grid_extents_blocks(%n: index) {
  // expected-error @+1 {{'tile.grid' op needs one block size per extent: 1 extents but 2 block sizes}}
  tile.grid (%n) block [4, 4] {
  ^bb0(%i: index, %j: index):
  }
  return
}

// -----

func.func @grid_zero_block(%m: index, %n: index) {
  // expected-error @+1 {{'tile.grid' op block size of dimension 1 must be positive, got 0}}
  tile.grid (%m, %n) block [4, 0] {
  ^bb0(%i: index, %j: index):
  }
  return
}

// -----

func.func @grid_negative_block(%n: index) {
  // expected-error @+1 {{'tile.grid' op block size of dimension 0 must be positive, got -8}}
  tile.grid (%n) block [-8] {
  ^bb0(%i: index):
  }
  return
}

// -----

func.func @grid_body_args(%m: index, %n: index) {
  // expected-error @+1 {{'tile.grid' op body must have 2 index arguments (one per dimension), has 1}}
  tile.grid (%m, %n) block [4, 4] {
  ^bb0(%i: index):
  }
  return
}

// -----

func.func @grid_no_body_args(%n: index) {
  // expected-error @+1 {{'tile.grid' op body must have 1 index arguments (one per dimension), has 0}}
  tile.grid (%n) block [4] {
  }
  return
}

// -----

func.func @grid_body_arg_type(%m: index, %n: index) {
  // expected-error @+1 {{'tile.grid' op body argument #1 must be of index type, got 'i32'}}
  tile.grid (%m, %n) block [4, 4] {
  ^bb0(%i: index, %j: i32):
  }
  return
}

// -----

func.func @grid_extent_type(%n: i32) {
  // expected-error @+1 {{'tile.grid' op operand #0 must be variadic of index, but got 'i32'}}
  "tile.grid"(%n) <{blocks = array<i64: 4>}> ({
  ^bb0(%i: index):
    "tile.yield"() : () -> ()
  }) : (i32) -> ()
  return
}

// -----

func.func @grid_nested(%n: index) {
  // expected-note @+1 {{enclosing 'tile.grid' is here}}
  tile.grid (%n) block [4] {
  ^bb0(%i: index):
    // expected-error @+1 {{'tile.grid' op cannot be nested in another 'tile.grid' (only the outermost tile loop is a grid)}}
    tile.grid (%n) block [4] {
    ^bb0(%j: index):
    }
  }
  return
}

// -----

func.func @grid_nested_deep(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{enclosing 'tile.grid' is here}}
  tile.grid (%n) block [4] {
  ^bb0(%i: index):
    scf.for %k = %c0 to %n step %c1 {
      // expected-error @+1 {{'tile.grid' op cannot be nested in another 'tile.grid'}}
      tile.grid (%n) block [4] {
      ^bb0(%j: index):
      }
    }
  }
  return
}

// -----

func.func @yield_outside_grid() {
  // expected-error @+1 {{'tile.yield' op expects parent op 'tile.grid'}}
  tile.yield
}

// -----

func.func @load_offsets(%a: !tile.ref<f32, 2>, %i: index) {
  // expected-error @+1 {{'tile.load' op needs 2 offsets (one per dimension of the ref), got 1}}
  %x = tile.load %a[%i] limits [%i, %i] {dims = array<i64: 1>}
      : !tile.ref<f32, 2> -> tensor<16xf32>
  return
}

// -----

func.func @load_limits(%a: !tile.ref<f32, 2>, %i: index) {
  // expected-error @+1 {{'tile.load' op needs 2 limits (one per dimension of the ref), got 3}}
  %x = tile.load %a[%i, %i] limits [%i, %i, %i] {dims = array<i64: 1>}
      : !tile.ref<f32, 2> -> tensor<16xf32>
  return
}

// -----

func.func @load_dims_count(%a: !tile.ref<f32, 2>, %i: index) {
  // expected-error @+1 {{'tile.load' op tile of rank 1 needs 1 entries in 'dims', got 2 [0, 1]}}
  %x = tile.load %a[%i, %i] limits [%i, %i] {dims = array<i64: 0, 1>}
      : !tile.ref<f32, 2> -> tensor<16xf32>
  return
}

// -----

func.func @load_dims_order(%a: !tile.ref<f32, 2>, %i: index) {
  // expected-error @+1 {{'tile.load' op 'dims' must be strictly increasing dimensions in [0, 2), got [1, 0]}}
  %x = tile.load %a[%i, %i] limits [%i, %i] {dims = array<i64: 1, 0>}
      : !tile.ref<f32, 2> -> tensor<4x16xf32>
  return
}

// -----

func.func @load_dims_repeat(%a: !tile.ref<f32, 2>, %i: index) {
  // expected-error @+1 {{'tile.load' op 'dims' must be strictly increasing dimensions in [0, 2), got [1, 1]}}
  %x = tile.load %a[%i, %i] limits [%i, %i] {dims = array<i64: 1, 1>}
      : !tile.ref<f32, 2> -> tensor<4x16xf32>
  return
}

// -----

func.func @load_dims_range(%a: !tile.ref<f32, 2>, %i: index) {
  // expected-error @+1 {{'tile.load' op 'dims' must be strictly increasing dimensions in [0, 2), got [2]}}
  %x = tile.load %a[%i, %i] limits [%i, %i] {dims = array<i64: 2>}
      : !tile.ref<f32, 2> -> tensor<16xf32>
  return
}

// -----

func.func @load_dims_negative(%a: !tile.ref<f32, 2>, %i: index) {
  // expected-error @+1 {{'tile.load' op 'dims' must be strictly increasing dimensions in [0, 2), got [-1]}}
  %x = tile.load %a[%i, %i] limits [%i, %i] {dims = array<i64: -1>}
      : !tile.ref<f32, 2> -> tensor<16xf32>
  return
}

// -----

func.func @load_element(%a: !tile.ref<bf16, 1>, %i: index) {
  // expected-error @+1 {{'tile.load' op tile element type 'f32' does not match the ref element type 'bf16'}}
  %x = tile.load %a[%i] limits [%i] {dims = array<i64: 0>}
      : !tile.ref<bf16, 1> -> tensor<16xf32>
  return
}

// -----

func.func @load_dynamic(%a: !tile.ref<f32, 1>, %i: index) {
  // expected-error @+1 {{'tile.load' op tile shape must be static, got 'tensor<?xf32>'}}
  %x = tile.load %a[%i] limits [%i] {dims = array<i64: 0>}
      : !tile.ref<f32, 1> -> tensor<?xf32>
  return
}

// -----

func.func @load_other_type(%a: !tile.ref<f32, 1>, %i: index) {
  // expected-error @+1 {{'tile.load' op 'other' must be of the element type 'f32', got 'f16'}}
  %x = tile.load %a[%i] limits [%i] {dims = array<i64: 0>, other = 1.0 : f16}
      : !tile.ref<f32, 1> -> tensor<16xf32>
  return
}

// -----

func.func @load_other_int(%a: !tile.ref<i32, 1>, %i: index) {
  // expected-error @+1 {{'tile.load' op 'other' must be of the element type 'i32', got 'i64'}}
  %x = tile.load %a[%i] limits [%i] {dims = array<i64: 0>, other = 7 : i64}
      : !tile.ref<i32, 1> -> tensor<16xi32>
  return
}

// -----

func.func @load_other_dense(%a: !tile.ref<f32, 1>, %i: index) {
  // expected-error @+1 {{'tile.load' op 'other' must be an integer or float scalar, got dense<0.000000e+00> : tensor<16xf32>}}
  %x = tile.load %a[%i] limits [%i] {dims = array<i64: 0>, other = dense<0.0> : tensor<16xf32>}
      : !tile.ref<f32, 1> -> tensor<16xf32>
  return
}

// -----

func.func @load_other_string(%a: !tile.ref<f32, 1>, %i: index) {
  // expected-error @+1 {{'tile.load' op 'other' must be an integer or float scalar, got "zero"}}
  %x = tile.load %a[%i] limits [%i] {dims = array<i64: 0>, other = "zero"}
      : !tile.ref<f32, 1> -> tensor<16xf32>
  return
}

// -----

func.func @load_other_untyped(%a: !tile.ref<f32, 1>, %i: index) {
  // expected-error @+1 {{'tile.load' op attribute 'other' failed to satisfy constraint: TypedAttr instance}}
  %x = tile.load %a[%i] limits [%i] {dims = array<i64: 0>, other = [0.0 : f32]}
      : !tile.ref<f32, 1> -> tensor<16xf32>
  return
}

// -----

func.func @load_offset_type(%a: !tile.ref<f32, 1>, %i: i64, %j: index) {
  // expected-error @+1 {{'tile.load' op operand #1 must be variadic of index, but got 'i64'}}
  %x = "tile.load"(%a, %i, %j) <{dims = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1>}>
      : (!tile.ref<f32, 1>, i64, index) -> tensor<16xf32>
  return
}

// -----

func.func @load_limit_type(%a: !tile.ref<f32, 1>, %i: index, %j: i32) {
  // expected-error @+1 {{'tile.load' op operand #2 must be variadic of index, but got 'i32'}}
  %x = "tile.load"(%a, %i, %j) <{dims = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1>}>
      : (!tile.ref<f32, 1>, index, i32) -> tensor<16xf32>
  return
}

// -----

func.func @store_offsets(%v: tensor<16xf32>, %a: !tile.ref<f32, 2>, %i: index) {
  // expected-error @+1 {{'tile.store' op needs 2 offsets (one per dimension of the ref), got 3}}
  tile.store %v, %a[%i, %i, %i] limits [%i, %i] {dims = array<i64: 1>}
      : tensor<16xf32>, !tile.ref<f32, 2>
  return
}

// -----

func.func @store_limits(%v: tensor<16xf32>, %a: !tile.ref<f32, 2>, %i: index) {
  // expected-error @+1 {{'tile.store' op needs 2 limits (one per dimension of the ref), got 1}}
  tile.store %v, %a[%i, %i] limits [%i] {dims = array<i64: 1>}
      : tensor<16xf32>, !tile.ref<f32, 2>
  return
}

// -----

func.func @store_dims(%v: tensor<16xf32>, %a: !tile.ref<f32, 2>, %i: index) {
  // expected-error @+1 {{'tile.store' op tile of rank 1 needs 1 entries in 'dims', got 0 []}}
  tile.store %v, %a[%i, %i] limits [%i, %i] {dims = array<i64>}
      : tensor<16xf32>, !tile.ref<f32, 2>
  return
}

// -----

func.func @store_element(%v: tensor<16xi32>, %a: !tile.ref<f32, 1>, %i: index) {
  // expected-error @+1 {{'tile.store' op tile element type 'i32' does not match the ref element type 'f32'}}
  tile.store %v, %a[%i] limits [%i] {dims = array<i64: 0>}
      : tensor<16xi32>, !tile.ref<f32, 1>
  return
}

// -----

func.func @store_dynamic(%v: tensor<4x?xf32>, %a: !tile.ref<f32, 2>, %i: index) {
  // expected-error @+1 {{'tile.store' op tile shape must be static, got 'tensor<4x?xf32>'}}
  tile.store %v, %a[%i, %i] limits [%i, %i] {dims = array<i64: 0, 1>}
      : tensor<4x?xf32>, !tile.ref<f32, 2>
  return
}

// -----

func.func @splat_mismatch(%x: f32) {
  // expected-error @+1 {{'tile.splat' op scalar of type 'f32' cannot fill a tile of element type 'bf16'}}
  %t = tile.splat %x : f32 -> tensor<16xbf16>
  return
}

// -----

func.func @splat_not_scalar(%x: vector<2xf32>) {
  // expected-error @+1 {{'tile.splat' op value must be an integer, index or float scalar, got 'vector<2xf32>'}}
  %t = tile.splat %x : vector<2xf32> -> tensor<16xvector<2xf32>>
  return
}

// -----

func.func @splat_dynamic(%x: f32) {
  // expected-error @+1 {{'tile.splat' op tile shape must be static, got 'tensor<?xf32>'}}
  %t = tile.splat %x : f32 -> tensor<?xf32>
  return
}

// -----

func.func @iota_rank() {
  // expected-error @+1 {{'tile.iota' op result must be a static 1-d tile, got 'tensor<4x4xi32>'}}
  %t = tile.iota : tensor<4x4xi32>
  return
}

// -----

func.func @iota_dynamic() {
  // expected-error @+1 {{'tile.iota' op result must be a static 1-d tile, got 'tensor<?xi32>'}}
  %t = tile.iota : tensor<?xi32>
  return
}

// -----

func.func @iota_float() {
  // expected-error @+1 {{'tile.iota' op result #0 must be ranked tensor of signless integer or index values, but got 'tensor<16xf32>'}}
  %t = tile.iota : tensor<16xf32>
  return
}

// -----

func.func @reduce_dim(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'tile.reduce' op dimension 2 is out of range for a 2-d tile: expected 0 <= dim < 2}}
  %r = tile.reduce sum %x, 2 : tensor<4x16xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_negative_dim(%x: tensor<16xf32>) {
  // expected-error @+1 {{'tile.reduce' op dimension -1 is out of range for a 1-d tile: expected 0 <= dim < 1}}
  %r = tile.reduce sum %x, -1 : tensor<16xf32> -> f32
  return
}

// -----

func.func @reduce_scalar(%x: tensor<16xf32>) {
  // expected-error @+1 {{'tile.reduce' op result must be 'tensor<1xf32>' (keepdim) or 'tensor<f32>' or 'f32' ('tensor<16xf32>' reduced along dimension 0), got 'f16'}}
  %r = tile.reduce max %x, 0 : tensor<16xf32> -> f16
  return
}

// -----

func.func @reduce_result(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'tile.reduce' op result must be 'tensor<4x1xf32>' (keepdim) or 'tensor<4xf32>' ('tensor<4x16xf32>' reduced along dimension 1), got 'tensor<16xf32>'}}
  %r = tile.reduce min %x, 1 : tensor<4x16xf32> -> tensor<16xf32>
  return
}

// -----

func.func @reduce_result_element(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'tile.reduce' op result must be 'tensor<1x16xf32>' (keepdim) or 'tensor<16xf32>' ('tensor<4x16xf32>' reduced along dimension 0), got 'tensor<16xf16>'}}
  %r = tile.reduce sum %x, 0 : tensor<4x16xf32> -> tensor<16xf16>
  return
}

// -----

func.func @reduce_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{'tile.reduce' op input tile shape must be static, got 'tensor<?xf32>'}}
  %r = tile.reduce sum %x, 0 : tensor<?xf32> -> f32
  return
}

// -----

func.func @reduce_index(%x: tensor<16xindex>) {
  // expected-error @+1 {{'tile.reduce' op can only reduce integer or float tiles, got 'tensor<16xindex>'}}
  %r = tile.reduce sum %x, 0 : tensor<16xindex> -> index
  return
}

// -----

func.func @reduce_kind(%x: tensor<16xf32>) {
  // expected-error @+1 {{custom op 'tile.reduce' expected string or keyword containing one of the following enum values for attribute 'kind' [sum, prod, max, min]}}
  %r = tile.reduce avg %x, 0 : tensor<16xf32> -> f32
  return
}

// -----

func.func @reduce_scalar_of_2d(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'tile.reduce' op result must be 'tensor<4x1xf32>' (keepdim) or 'tensor<4xf32>' ('tensor<4x16xf32>' reduced along dimension 1), got 'f32'}}
  %r = tile.reduce sum %x, 1 : tensor<4x16xf32> -> f32
  return
}

// -----

func.func @reduce_keepdim_wrong_dim(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'tile.reduce' op result must be 'tensor<1x16xf32>' (keepdim) or 'tensor<16xf32>' ('tensor<4x16xf32>' reduced along dimension 0), got 'tensor<4x1xf32>'}}
  %r = tile.reduce sum %x, 0 : tensor<4x16xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @reduce_fp8(%x: tensor<16xf8E4M3FN>) {
  // expected-error @+1 {{'tile.reduce' op cannot reduce a tile of 'f8E4M3FN' (a storage type): convert it to f32 first}}
  %r = tile.reduce max %x, 0 : tensor<16xf8E4M3FN> -> f8E4M3FN
  return
}

// -----

func.func @reduce_rank7(%x: tensor<1x1x1x1x1x1x16xf32>) {
  // expected-error @+1 {{'tile.reduce' op input tile has rank 7; tiles have at most 6 dimensions}}
  %r = tile.reduce sum %x, 6 : tensor<1x1x1x1x1x1x16xf32> -> tensor<1x1x1x1x1x1xf32>
  return
}

// -----

func.func @reduce_valid_type(%x: tensor<16xf32>, %n: i64) {
  // expected-error @+1 {{'tile.reduce' op operand #1 must be index, but got 'i64'}}
  %r = "tile.reduce"(%x, %n) {dim = 0 : i64, kind = 0 : i32} : (tensor<16xf32>, i64) -> f32
  return
}

// -----

func.func @broadcast_rank(%x: tensor<8192xf32>) {
  // expected-error @+1 {{'tile.broadcast' op input 'tensor<8192xf32>' and result 'tensor<4x8192xf32>' must have the same rank (insert unit dimensions with 'tile.reshape' first)}}
  %r = tile.broadcast %x : tensor<8192xf32> -> tensor<4x8192xf32>
  return
}

// -----

func.func @broadcast_extent(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{'tile.broadcast' op dimension 1 of the input has extent 2, which cannot be broadcast to 8 (only extent 1 is repeated)}}
  %r = tile.broadcast %x : tensor<4x2xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_shrink(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.broadcast' op dimension 0 of the input has extent 4, which cannot be broadcast to 1 (only extent 1 is repeated)}}
  %r = tile.broadcast %x : tensor<4x8xf32> -> tensor<1x8xf32>
  return
}

// -----

func.func @broadcast_element(%x: tensor<4x1xf32>) {
  // expected-error @+1 {{'tile.broadcast' op element type 'bf16' of the result differs from the input's 'f32'}}
  %r = tile.broadcast %x : tensor<4x1xf32> -> tensor<4x8xbf16>
  return
}

// -----

func.func @broadcast_dynamic(%x: tensor<?x1xf32>) {
  // expected-error @+1 {{'tile.broadcast' op input tile shape must be static, got 'tensor<?x1xf32>'}}
  %r = tile.broadcast %x : tensor<?x1xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_rank7(%x: tensor<1x1x1x1x1x1xf32>) {
  // expected-error @+1 {{'tile.broadcast' op result tile has rank 7; tiles have at most 6 dimensions}}
  %r = tile.broadcast %x : tensor<1x1x1x1x1x1xf32> -> tensor<1x1x1x1x1x1x8xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<8192xf32>) {
  // expected-error @+1 {{'tile.reshape' op changes the element count: 'tensor<8192xf32>' has 8192, 'tensor<2x2048xf32>' has 4096}}
  %r = tile.reshape %x : tensor<8192xf32> -> tensor<2x2048xf32>
  return
}

// -----

func.func @reshape_element(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reshape' op element type 'f16' of the result differs from the input's 'f32'}}
  %r = tile.reshape %x : tensor<8xf32> -> tensor<8x1xf16>
  return
}

// -----

func.func @reshape_dynamic(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reshape' op result tile shape must be static, got 'tensor<?x1xf32>'}}
  %r = tile.reshape %x : tensor<8xf32> -> tensor<?x1xf32>
  return
}

// -----

func.func @reshape_rank7(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reshape' op result tile has rank 7; tiles have at most 6 dimensions}}
  %r = tile.reshape %x : tensor<8xf32> -> tensor<1x1x1x1x1x1x8xf32>
  return
}

// -----

func.func @load_fp8_mismatch(%a: !tile.ref<f8E4M3FN, 1>, %i: index) {
  // expected-error @+1 {{'tile.load' op tile element type 'f8E5M2' does not match the ref element type 'f8E4M3FN'}}
  %x = tile.load %a[%i] limits [%i] {dims = array<i64: 0>} : !tile.ref<f8E4M3FN, 1> -> tensor<16xf8E5M2>
  return
}

// -----

func.func @load_rank7(%a: !tile.ref<f32, 7>, %i: index) {
  // expected-error @+1 {{'tile.load' op tile has rank 7; tiles have at most 6 dimensions}}
  %x = tile.load %a[%i, %i, %i, %i, %i, %i, %i] limits [%i, %i, %i, %i, %i, %i, %i] {dims = array<i64: 0, 1, 2, 3, 4, 5, 6>} : !tile.ref<f32, 7> -> tensor<1x1x1x1x1x1x16xf32>
  return
}

// -----

// The kernel contract's attributes (#tile.role, #tile.abi_slot).

// expected-error @+2 {{unknown role 'pad' (input, output, inout, scratch, signal_pad, peer_table, scalar, unused or peers)}}
// expected-error @+1 {{failed to parse Tile_RoleAttr parameter 'role'}}
func.func @role_unknown(%a: !tile.ref<i32, 2> {tile.role = #tile.role<pad>})

// -----

// expected-error @+1 {{role 'peer_table' names the parameter whose peers it lists: #tile.role<peer_table of "NAME">}}
func.func @role_table_of_nothing(%a: !tile.ref<i64, 1> {tile.role = #tile.role<peer_table>})

// -----

// expected-error @+1 {{role 'input' names no other parameter}}
func.func @role_input_of(%a: !tile.ref<f32, 1> {tile.role = #tile.role<input of "b">})

// -----

// expected-error @+1 {{a constexpr is compiled in, not an argument}}
func.func @role_constexpr(%a: i64 {tile.role = #tile.role<constexpr>})

// -----

// expected-error @+1 {{'tile.role' of argument #0 must be a #tile.role, got "input"}}
func.func private @role_string(%a: !tile.ref<f32, 1> {tile.role = "input"})

// -----

// expected-error @+1 {{ABI slot 'x.size0': type is 'ptr', expected 'i64'}}
func.func @slot_type() attributes {tile.abi = [#tile.abi_slot<"x.size0", size : ptr, param = "x", dim = 0>]}

// -----

// expected-error @+1 {{ABI slot 'x.size0': a size slot needs a dimension}}
func.func @slot_no_dim() attributes {tile.abi = [#tile.abi_slot<"x.size0", size : i64, param = "x">]}

// -----

// expected-error @+1 {{ABI slot 'x.size': a slot of kind 'size' is named 'x.size1'}}
func.func @slot_name() attributes {tile.abi = [#tile.abi_slot<"x.size", size : i64, param = "x", dim = 1>]}

// -----

// expected-error @+1 {{ABI slot '__dslc_state': the hidden slot of kind 'state' belongs to no parameter}}
func.func @slot_hidden_param() attributes {tile.abi = [#tile.abi_slot<"__dslc_state", state : ptr, param = "x">]}

// -----

// expected-error @+2 {{unknown slot type 'f64' (ptr, i64 or f32)}}
// expected-error @+1 {{failed to parse Tile_AbiSlotAttr parameter 'type'}}
func.func @slot_f64() attributes {tile.abi = [#tile.abi_slot<"n", scalar : f64, param = "n">]}

// -----

// expected-error @+1 {{'tile.abi' must be an array of #tile.abi_slot, got ["x:ptr"]}}
func.func @slot_strings() attributes {tile.abi = ["x:ptr"]}

// -----

func.func @dot_rank(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'tile.dot' op lhs 'tensor<2x4x8xf32>', rhs 'tensor<8x4xf32>' and result 'tensor<4x4xf32>' must have one rank}}
  %r = tile.dot %a, %b : tensor<2x4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @dot_rank4(%a: tensor<2x2x4x8xf32>, %b: tensor<2x2x8x4xf32>) {
  // expected-error @+1 {{'tile.dot' op lhs must be a 2-d tile (or 3-d, batched), got 'tensor<2x2x4x8xf32>' (rank 4)}}
  %r = tile.dot %a, %b : tensor<2x2x4x8xf32>, tensor<2x2x8x4xf32> -> tensor<2x2x4x4xf32>
  return
}

// -----

func.func @dot_batches(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error @+1 {{'tile.dot' op batch dimensions differ: lhs 'tensor<2x4x8xf32>', rhs 'tensor<3x8x4xf32>', result 'tensor<2x4x4xf32>'}}
  %r = tile.dot %a, %b : tensor<2x4x8xf32>, tensor<3x8x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @view_element(%x: !tile.ref<f32, 2>, %n: index) {
  // expected-error @+1 {{'tile.view' op changes the element type from 'f32' to 'f16': a view keeps its tensor's element type}}
  %v = tile.view %x [%n] : !tile.ref<f32, 2> -> !tile.ref<f16, 1>
  return
}

// -----

func.func @view_sizes(%x: !tile.ref<f32, 2>, %n: index) {
  // expected-error @+1 {{'tile.view' op gives 1 size(s) for '!tile.ref<f32, 2>': expected one per dimension (2)}}
  %v = tile.view %x [%n] : !tile.ref<f32, 2> -> !tile.ref<f32, 2>
  return
}

// -----

func.func @transpose_not_permutation(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.transpose' op [0, 0] is not a permutation of the 2 dimensions}}
  %t = tile.transpose %x [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @transpose_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.transpose' op result dimension 0 of 'tensor<4x8xf32>' must be input dimension 1 of 'tensor<4x8xf32>'}}
  %t = tile.transpose %x [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @dot_k(%a: tensor<4x8xf32>, %b: tensor<16x4xf32>) {
  // expected-error @+1 {{'tile.dot' op contracted dimensions differ: lhs 'tensor<4x8xf32>' has K = 8, rhs 'tensor<16x4xf32>' has K = 16}}
  %r = tile.dot %a, %b : tensor<4x8xf32>, tensor<16x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @dot_result_shape(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'tile.dot' op result must be 4x4 (lhs rows x rhs columns), got 'tensor<4x8xf32>'}}
  %r = tile.dot %a, %b : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @dot_int(%a: tensor<4x8xi8>, %b: tensor<8x4xi8>) {
  // expected-error @+1 {{'tile.dot' op inputs must be f32, bf16, f16, f8E4M3FN or f8E5M2 tiles, got 'i8'}}
  %r = tile.dot %a, %b : tensor<4x8xi8>, tensor<8x4xi8> -> tensor<4x4xf32>
  return
}

// -----

func.func @dot_mixed(%a: tensor<4x8xbf16>, %b: tensor<8x4xf16>) {
  // expected-error @+1 {{'tile.dot' op inputs have different element types: 'bf16' and 'f16'}}
  %r = tile.dot %a, %b : tensor<4x8xbf16>, tensor<8x4xf16> -> tensor<4x4xf32>
  return
}

// -----

func.func @dot_result_type(%a: tensor<4x8xbf16>, %b: tensor<8x4xbf16>) {
  // expected-error @+1 {{'tile.dot' op result element type must be f32, bf16 or f16, got 'f8E4M3FN'}}
  %r = tile.dot %a, %b : tensor<4x8xbf16>, tensor<8x4xbf16> -> tensor<4x4xf8E4M3FN>
  return
}

// -----

func.func @dot_acc(%a: tensor<4x8xbf16>, %b: tensor<8x4xbf16>, %c: tensor<4x4xbf16>) {
  // expected-error @+1 {{'tile.dot' op accumulator must be 'tensor<4x4xf32>' (f32, the result's shape), got 'tensor<4x4xbf16>'}}
  %r = tile.dot %a, %b acc %c : tensor<4x8xbf16>, tensor<8x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xbf16>
  return
}

// -----

func.func @dot_dynamic(%a: tensor<?x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'tile.dot' op lhs shape must be static, got 'tensor<?x8xf32>'}}
  %r = tile.dot %a, %b : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @gather_indices(%x: !tile.ref<f32, 2>, %i: tensor<8xi64>) {
  // expected-error @+1 {{'tile.gather' op has 1 index tile(s) for '!tile.ref<f32, 2>': expected one per dimension (2)}}
  %r = tile.gather %x[%i] : !tile.ref<f32, 2>, tensor<8xi64> -> tensor<8xf32>
  return
}

// -----

func.func @gather_index_shape(%x: !tile.ref<f32, 1>, %i: tensor<4xi64>) {
  // expected-error @+1 {{'tile.gather' op index tile 'tensor<4xi64>' must be integers of the shape of 'tensor<8xf32>'}}
  %r = tile.gather %x[%i] : !tile.ref<f32, 1>, tensor<4xi64> -> tensor<8xf32>
  return
}

// -----

func.func @scatter_mask(%x: !tile.ref<f32, 1>, %i: tensor<8xi64>, %v: tensor<8xf32>, %m: tensor<8xi8>) {
  // expected-error @+1 {{'tile.scatter' op mask 'tensor<8xi8>' must be i1 of the shape of 'tensor<8xf32>'}}
  tile.scatter %v, %x[%i] mask %m : tensor<8xi8> : tensor<8xf32>, !tile.ref<f32, 1>, tensor<8xi64>
  return
}

// -----

func.func @atomic_bool(%x: !tile.ref<i1, 1>, %i: tensor<8xi64>, %v: tensor<8xi1>) {
  // expected-error @+1 {{'tile.atomic' op updates integers of 8 to 64 bits or bf16, f16, f32, f64 elements, got 'i1'}}
  tile.atomic add relaxed %v, %x[%i] : tensor<8xi1>, !tile.ref<i1, 1>, tensor<8xi64>
  return
}

// -----

func.func @atomic_and_float(%x: !tile.ref<f32, 1>, %i: tensor<8xi64>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'tile.atomic' op 'and' updates integer elements, got 'f32'}}
  tile.atomic and relaxed %v, %x[%i] : tensor<8xf32>, !tile.ref<f32, 1>, tensor<8xi64>
  return
}

// -----

func.func @atomic_indices(%x: !tile.ref<f32, 2>, %i: tensor<8xi64>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'tile.atomic' op has 1 index tile(s) for '!tile.ref<f32, 2>': expected one per dimension (2)}}
  tile.atomic add relaxed %v, %x[%i] : tensor<8xf32>, !tile.ref<f32, 2>, tensor<8xi64>
  return
}

// -----

func.func @mma_fp8_inputs(%a: tensor<16x16xf8E4M3FN>, %b: tensor<16x16xf8E4M3FN>) {
  // expected-error @+1 {{'tile.dot' op a #tile.mma result needs blocked bf16, f16 or f32 inputs and an f32 result, got lhs 'tensor<16x16xf8E4M3FN>', result 'tensor<16x16xf32, #tile.mma<warpsM = 1, warpsN = 1>>'}}
  %r = tile.dot %a, %b : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN> -> tensor<16x16xf32, #tile.mma<warpsM = 1, warpsN = 1>>
  return
}

// -----

func.func @mma_f32_inputs(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op f32 inputs on tensor cores are read as tf32: the kernel needs tile.allow_tf32 (dot_precision="tf32")}}
  %r = tile.dot %a, %b : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32, #tile.mma<warpsM = 1, warpsN = 1>>
  return
}

// -----

func.func @mma_split(%a: tensor<32x16xbf16>, %b: tensor<16x32xbf16>) {
  // expected-error @+1 {{'tile.dot' op a 32x32 result does not split into 4x1 warp blocks of whole 16x16 fragments}}
  %r = tile.dot %a, %b : tensor<32x16xbf16>, tensor<16x32xbf16> -> tensor<32x32xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  return
}

// -----

func.func @mma_acc(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op the accumulator of a #tile.mma result must have its type 'tensor<16x16xf32, #tile.mma<warpsM = 1, warpsN = 1>>', got 'tensor<16x16xf32>'}}
  %r = tile.dot %a, %b acc %c : tensor<16x16xbf16>, tensor<16x16xbf16>, tensor<16x16xf32> -> tensor<16x16xf32, #tile.mma<warpsM = 1, warpsN = 1>>
  return
}

// -----

func.func @encoded_input(%a: tensor<16x16xf32, #tile.mma<warpsM = 1, warpsN = 1>>, %b: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op only a #tile.mma result may carry an encoding, and no input}}
  %r = tile.dot %a, %b : tensor<16x16xf32, #tile.mma<warpsM = 1, warpsN = 1>>, tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

// -----

// expected-error @+1 {{#tile.mma needs 1 <= warpsB * warpsM * warpsN <= 32, got warpsM = 0, warpsN = 4, warpsB = 1}}
func.func @mma_warps(%a: tensor<16x16xf32, #tile.mma<warpsM = 0, warpsN = 4>>) {
  return
}

// -----

func.func @mma_batch_split(%a: tensor<3x16x16xbf16>, %b: tensor<3x16x16xbf16>) {
  // expected-error @+1 {{'tile.dot' op a batch of 3 matrices does not split over warpsB = 2 warp groups}}
  %r = tile.dot %a, %b : tensor<3x16x16xbf16>, tensor<3x16x16xbf16> -> tensor<3x16x16xf32, #tile.mma<warpsM = 1, warpsN = 1, warpsB = 2>>
  return
}

// -----

func.func @convert_shape(%a: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.convert_layout' op requires the same shape for all operands and results}}
  %r = tile.convert_layout %a : tensor<16x16xf32> -> tensor<16x32xf32, #tile.mma<warpsM = 1, warpsN = 1>>
  return
}

// -----

// expected-error @+1 {{'tile.dot_engine' must be a #tile.dot_engine, got "mma"}}
func.func @engine_string() attributes {tile.dot_engine = "mma"} {
  return
}

// -----

// expected-error @+1 {{#tile.staged holds bf16, f16 or fp8 tiles, got 'f32'}}
func.func @staged_f32() attributes {a = #tile.staged<f32, [16, 16], offset = 0, pitch = 20, stages = 2>} {
  return
}

// -----

// expected-error @+1 {{#tile.staged rows are whole 16-byte units: 12 columns, pitch 16}}
func.func @staged_columns() attributes {a = #tile.staged<bf16, [16, 12], offset = 0, pitch = 16, stages = 2>} {
  return
}

// -----

// expected-error @+1 {{#tile.staged offset 64 is not a non-negative multiple of 128}}
func.func @staged_offset() attributes {a = #tile.staged<bf16, [16, 16], offset = 64, pitch = 24, stages = 2>} {
  return
}

// -----

// expected-error @+1 {{#tile.staged holds 1..8 stages, got 9}}
func.func @staged_stages() attributes {a = #tile.staged<bf16, [16, 16], offset = 0, pitch = 24, stages = 9>} {
  return
}

// -----

// expected-error @+1 {{#tile.staged ends past the 232448 bytes of shared memory a CTA may have}}
func.func @staged_size() attributes {a = #tile.staged<bf16, [1024, 64], offset = 0, pitch = 72, stages = 2>} {
  return
}

// -----

// expected-error @+1 {{#tile.staged holds fp8 tiles for wgmma only (swizzled; ldmatrix reads 16-bit elements)}}
func.func @staged_fp8_padded() attributes {a = #tile.staged<f8E4M3FN, [16, 32], offset = 0, pitch = 48, stages = 2>} {
  return
}

// -----

func.func @staged_dot_k_major_padded(%i: index, %acc: tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>) {
  // expected-error @+1 {{'tile.staged_dot' op reads a K-major rhs (rhs_k_major) with wgmma only (swizzled buffers)}}
  %d = tile.staged_dot #tile.staged<bf16, [32, 32], offset = 0, pitch = 40, stages = 2>, #tile.staged<bf16, [32, 32], offset = 5120, pitch = 40, stages = 2> stage %i acc %acc {rhs_k_major} : tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>
  return
}

// -----

func.func @async_copy_type(%x: !tile.ref<f16, 2>, %i: index) {
  // expected-error @+1 {{'tile.async_copy' op copies 'f16' elements into a buffer of 'bf16'}}
  tile.async_copy %x[%i, %i] limits [%i, %i] to #tile.staged<bf16, [16, 16], offset = 0, pitch = 24, stages = 2> stage %i {dims = array<i64: 0, 1>} : !tile.ref<f16, 2>
  return
}

// -----

func.func @async_copy_dims(%x: !tile.ref<bf16, 2>, %i: index) {
  // expected-error @+1 {{'tile.async_copy' op copies rows along a leading dimension and columns along the last of '!tile.ref<bf16, 2>'}}
  tile.async_copy %x[%i, %i] limits [%i, %i] to #tile.staged<bf16, [16, 16], offset = 0, pitch = 24, stages = 2> stage %i {dims = array<i64: 1, 0>} : !tile.ref<bf16, 2>
  return
}

// -----

func.func @async_wait_pending() {
  // expected-error @+1 {{'tile.async_wait' op pending must be in 0..7, got 8}}
  tile.async_wait 8
  return
}

// -----

func.func @staged_dot_shapes(%i: index, %acc: tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>) {
  // expected-error @+1 {{'tile.staged_dot' op multiplies [32, K] by [K, N] tiles of one element type, N = 32, got lhs #tile.staged<bf16, [32, 32], offset = 0, pitch = 40, stages = 2> and rhs #tile.staged<bf16, [16, 32], offset = 5120, pitch = 40, stages = 2>}}
  %d = tile.staged_dot #tile.staged<bf16, [32, 32], offset = 0, pitch = 40, stages = 2>, #tile.staged<bf16, [16, 32], offset = 5120, pitch = 40, stages = 2> stage %i acc %acc : tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>
  return
}

// -----

func.func @staged_dot_blocked(%i: index, %acc: tensor<32x32xf32>) {
  // expected-error @+1 {{'tile.staged_dot' op computes a 2-d f32 tile encoded #tile.mma, got 'tensor<32x32xf32>'}}
  %d = tile.staged_dot #tile.staged<bf16, [32, 32], offset = 0, pitch = 40, stages = 2>, #tile.staged<bf16, [32, 32], offset = 5120, pitch = 40, stages = 2> stage %i acc %acc : tensor<32x32xf32>
  return
}

// -----

func.func @staged_dot_k(%i: index, %acc: tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>) {
  // expected-error @+1 {{'tile.staged_dot' op needs K a multiple of 16 (the tensor cores' k-step), got 8}}
  %d = tile.staged_dot #tile.staged<bf16, [32, 8], offset = 0, pitch = 8, stages = 2>, #tile.staged<bf16, [8, 32], offset = 1024, pitch = 40, stages = 2> stage %i acc %acc : tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>
  return
}

// -----

// expected-error @+1 {{#tile.staged swizzle is 32, 64 or 128 bytes (or none), got 16}}
func.func @staged_swizzle_width() attributes {a = #tile.staged<bf16, [16, 64], offset = 0, pitch = 64, stages = 2, swizzle = 16>} {
  return
}

// -----

// expected-error @+1 {{a #tile.staged swizzle of 128 bytes needs unpadded rows (pitch = 64) of whole 128-byte atoms, rows a multiple of 8 and an offset that is a multiple of 1024}}
func.func @staged_swizzle_pitch() attributes {a = #tile.staged<bf16, [16, 64], offset = 0, pitch = 72, stages = 2, swizzle = 128>} {
  return
}

// -----

// expected-error @+1 {{a #tile.staged swizzle of 128 bytes needs unpadded rows (pitch = 64) of whole 128-byte atoms, rows a multiple of 8 and an offset that is a multiple of 1024}}
func.func @staged_swizzle_offset() attributes {a = #tile.staged<bf16, [16, 64], offset = 128, pitch = 64, stages = 2, swizzle = 128>} {
  return
}

// -----

func.func @staged_dot_mixed(%i: index, %acc: tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>) {
  // expected-error @+1 {{'tile.staged_dot' op reads one swizzled (wgmma) and one padded (ldmatrix) buffer}}
  %d = tile.staged_dot #tile.staged<bf16, [64, 64], offset = 0, pitch = 64, stages = 2, swizzle = 128>, #tile.staged<bf16, [64, 64], offset = 16384, pitch = 72, stages = 2> stage %i acc %acc : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  return
}

// -----

func.func @staged_dot_wgmma_layout(%i: index, %acc: tensor<64x64xf32, #tile.mma<warpsM = 2, warpsN = 2>>) {
  // expected-error @+1 {{'tile.staged_dot' op reads swizzled buffers with wgmma, which needs one m64 row block per warpgroup and N a multiple of 16 up to 256, got 'tensor<64x64xf32, #tile.mma<warpsM = 2, warpsN = 2>>'}}
  %d = tile.staged_dot #tile.staged<bf16, [64, 64], offset = 0, pitch = 64, stages = 2, swizzle = 128>, #tile.staged<bf16, [64, 64], offset = 16384, pitch = 64, stages = 2, swizzle = 128> stage %i acc %acc : tensor<64x64xf32, #tile.mma<warpsM = 2, warpsN = 2>>
  return
}

// -----

func.func @staged_dot_pending_mma_sync(%i: index, %acc: tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>) {
  // expected-error @+1 {{'tile.staged_dot' op leaves a product in flight (pending = 1), which only wgmma (swizzled buffers) does}}
  %d = tile.staged_dot #tile.staged<bf16, [32, 32], offset = 0, pitch = 40, stages = 2>, #tile.staged<bf16, [32, 32], offset = 5120, pitch = 40, stages = 2> stage %i acc %acc {pending = 1 : i64} : tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>
  return
}

// -----

func.func @staged_dot_pending_two(%i: index, %acc: tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>) {
  // expected-error @+1 {{'tile.staged_dot' op leaves 0 or 1 products in flight, got pending = 2}}
  %d = tile.staged_dot #tile.staged<bf16, [64, 64], offset = 0, pitch = 64, stages = 2, swizzle = 128>, #tile.staged<bf16, [64, 64], offset = 16384, pitch = 64, stages = 2, swizzle = 128> stage %i acc %acc {pending = 2 : i64} : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  return
}

// -----

func.func @dot_wait_blocked(%acc: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot_wait' op waits for a tensor-core accumulator (f32 encoded #tile.mma), got 'tensor<64x64xf32>'}}
  %d = tile.dot_wait %acc : tensor<64x64xf32>
  return
}

// -----

func.func @shift_dim(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tile.shift' op dimension 2 is out of range for 'tensor<8x64xf32>'}}
  %a = tile.shift %x, 2 by 1 : tensor<8x64xf32>
  return
}

// -----

func.func @shift_offset(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tile.shift' op offset -8 along dimension 0 of 'tensor<8x64xf32>' must be nonzero and less than its extent 8 in magnitude}}
  %a = tile.shift %x, 0 by -8 : tensor<8x64xf32>
  return
}

// -----

func.func @rhs_transposed_on_cuda_cores(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>) {
  // expected-error @+1 {{'tile.dot' op reads its rhs transposed only on tensor cores (a #tile.mma result), got 'tensor<16x16xf32>'}}
  %r = tile.dot %a, %b {rhs_transposed} : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @rhs_transposed_k(%a: tensor<16x32xbf16>, %b: tensor<16x16xbf16>) {
  // expected-error @+1 {{'tile.dot' op contracted dimensions differ: lhs 'tensor<16x32xbf16>' has K = 32, rhs 'tensor<16x16xbf16>' has K = 16}}
  %r = tile.dot %a, %b {rhs_transposed} : tensor<16x32xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32, #tile.mma<warpsM = 1, warpsN = 1>>
  return
}
