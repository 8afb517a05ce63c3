// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// LL packets of a tile that is not a whole number of pieces: with fp8 tiles
// moving most of the kernel's bytes (a [4096] fp8 copy beside the [1000]
// bf16 row: 8 KiB against 6000 bytes) a piece is 16 elements, so the row is 62
// whole pieces and one of 8 elements: 2 of its 4 16-byte packets (8 data
// bytes each) are the row's (packets 248 and 249 of 250). Each put packet
// is stored only when it is one of the tile's, and the get polls only
// those (a packet past the tile reads the piece's first packet and counts
// as arrived): packets past the row are the next slots', or past the
// scratch. (From slot 7: the scratch range check compares with 257.)

// CHECK-LABEL: func.func @partial_piece(
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c250_i64 : i64
// CHECK: scf.if %[[IN]] {
// CHECK: st.volatile.global.v4.b32
// CHECK: arith.cmpi ult, %{{.*}}, %c250_i64 : i64
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK: ld.volatile.global.v4.b32
func.func @partial_piece(%x: !tile.ref<bf16, 1>, %q: !tile.ref<f8E4M3FN, 1>,
                         %scratch: !tile.ref<i64, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %x, 0 : !tile.ref<bf16, 1>
  %v = tile.load %x[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<1000xbf16>
  %flag = arith.constant 1 : i32
  %c7 = arith.constant 7 : index
  comm.ll_put %v, %scratch[%c7] flag %flag {packet = 16 : i64} : tensor<1000xbf16>, !tile.ref<i64, 1>
  %g = comm.ll_get %scratch[%c7] flag %flag {packet = 16 : i64} : !tile.ref<i64, 1> -> tensor<1000xbf16>
  %f = arith.extf %g : tensor<1000xbf16> to tensor<1000xf32>
  %t = arith.truncf %f : tensor<1000xf32> to tensor<1000xf8E4M3FN>
  tile.store %t, %q[%c0] limits [%n] {dims = array<i64: 0>} : tensor<1000xf8E4M3FN>, !tile.ref<f8E4M3FN, 1>
  %m = tile.dim %q, 0 : !tile.ref<f8E4M3FN, 1>
  %c = tile.load %q[%c0] limits [%m] {dims = array<i64: 0>} : !tile.ref<f8E4M3FN, 1> -> tensor<4096xf8E4M3FN>
  tile.store %c, %q[%c0] limits [%m] {dims = array<i64: 0>} : tensor<4096xf8E4M3FN>, !tile.ref<f8E4M3FN, 1>
  return
}

// -----

// A tile of whole pieces (512 bf16 in pieces of 8: 128 packets, from slot
// 7) has no such guard.

// CHECK-LABEL: func.func @whole_pieces(
// CHECK-NOT: arith.cmpi ult, %{{.*}}, %c128_i64 : i64
// CHECK: st.volatile.global.v4.b32
func.func @whole_pieces(%x: !tile.ref<bf16, 1>, %scratch: !tile.ref<i64, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %x, 0 : !tile.ref<bf16, 1>
  %v = tile.load %x[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<512xbf16>
  %flag = arith.constant 1 : i32
  %c7 = arith.constant 7 : index
  comm.ll_put %v, %scratch[%c7] flag %flag {packet = 16 : i64} : tensor<512xbf16>, !tile.ref<i64, 1>
  return
}
