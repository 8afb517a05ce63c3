// RUN: dslc-opt %s -split-input-file -verify-diagnostics -dslc-distribute-tiles | FileCheck %s

// Two grids one after the other (Helion's several top-level loops), and
// between them hl.barrier(): bar.sync, then thread 0 reads the generation,
// arrives on the arrivals word (after the 4096 epochs: word 4096 of the
// state) with acq_rel, and the last CTA resets the arrivals and moves the
// generation (release) while the others spin (bounded) until it moves;
// fences around, bar.sync after.

// CHECK-LABEL: func.func @two_phases(
// CHECK: scf.for
// CHECK: nvvm.barrier0
// CHECK: "mov.u32 $0, %tid.x;"
// CHECK: scf.if
// CHECK: arith.constant 4096 : i64
// CHECK: arith.constant 4097 : i64
// CHECK: "ld.relaxed.gpu.global.b32 $0, [$1];"
// CHECK: "fence.acq_rel.gpu;"
// CHECK: "atom.acq_rel.gpu.global.add.u32 $0, [$1], 1;"
// CHECK: "mov.u32 $0, %nctaid.x;"
// CHECK: "st.relaxed.gpu.global.b32 [$0], 0;\0A\09red.release.gpu.global.add.u32 [$1], 1;"
// CHECK: } else {
// CHECK: nvvm.read.ptx.sreg.globaltimer
// CHECK: scf.while
// CHECK: "ld.acquire.gpu.global.b32 $0, [$1];"
// CHECK: llvm.call @__dslc_error_trap
// CHECK: "fence.acq_rel.gpu;"
// CHECK: nvvm.barrier0
// CHECK: scf.for
func.func @two_phases(%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %n = tile.dim %x, 0 : !tile.ref<f32, 1>
  tile.grid(%n) block [128] {
  ^bb0(%i: index):
    %t = tile.load %x[%i] limits [%n] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<128xf32>
    tile.store %t, %out[%i] limits [%n] {dims = array<i64: 0>} : tensor<128xf32>, !tile.ref<f32, 1>
  }
  tile.grid_barrier
  tile.grid(%n) block [64] {
  ^bb0(%i: index):
    %t = tile.load %out[%i] limits [%n] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<64xf32>
    tile.store %t, %x[%i] limits [%n] {dims = array<i64: 0>} : tensor<64xf32>, !tile.ref<f32, 1>
  }
  return
}

// -----

func.func @not_between(%x: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %n = tile.dim %x, 0 : !tile.ref<f32, 1>
  tile.grid(%n) block [128] {
  ^bb0(%i: index):
  }
  // expected-error @+1 {{'tile.grid_barrier' op must be between two 'tile.grid' ops (it orders the grid before it against the grid after it)}}
  tile.grid_barrier
  return
}

// -----

func.func @inside(%x: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %n = tile.dim %x, 0 : !tile.ref<f32, 1>
  tile.grid(%n) block [128] {
  ^bb0(%i: index):
    // expected-error @+1 {{'tile.grid_barrier' op must be at the kernel's top level, between two 'tile.grid' ops (a grid-wide barrier inside a tile loop would wait for CTAs that skip it)}}
    tile.grid_barrier
  }
  return
}
