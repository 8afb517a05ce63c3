// RUN: dslc-opt %s -split-input-file -dslc-mma-layouts -dslc-pipeline-dots -verify-diagnostics | FileCheck %s

// Helion's matmul loop at [128, 128, 32], 8 warps, tensor cores, the
// default 3 stages: the operand tiles of the first two iterations are
// copied before the loop (each under a guard that the iteration exists, a
// group committed either way); each iteration waits for all but the newest
// group, copies the tiles two iterations ahead into stage (i + 2) % 3 and
// computes on stage i % 3; the loads and the dot's valid_k go (the copies
// zero-fill past the limits); after the loop every copy is waited for.
// Rings: lhs 3 x 128 rows of 40 bf16 (80 bytes: an odd number of 16-byte
// units) = 3 x 10240 bytes at 0; rhs 3 x 32 rows of 136 = 3 x 8704 at
// 30720.

// CHECK-LABEL: func.func @matmul(
// CHECK: %[[STEPS:.*]] = arith.ceildivui
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %{{.*}}, %[[STEPS]] : index
// CHECK: scf.if %[[IN0]] {
// CHECK: tile.async_copy %arg0[%{{.*}}] limits[%{{.*}}] to <bf16, [128, 32], offset = 0, pitch = 40, stages = 3> stage %{{.*}} {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2>
// CHECK: tile.async_copy %arg1[%{{.*}}] limits[%{{.*}}] to <bf16, [32, 128], offset = 30720, pitch = 136, stages = 3> stage %{{.*}} {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2>
// CHECK: tile.async_commit
// CHECK: scf.if
// CHECK-COUNT-2: tile.async_copy
// CHECK: tile.async_commit
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %[[STEPS]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128x128xf32, #tile.mma<warpsM = 2, warpsN = 4>>)
// CHECK-NEXT: tile.async_wait 1
// CHECK: %[[STAGE:.*]] = arith.remui %[[I:.*]], %c3
// CHECK: %[[AHEAD:.*]] = arith.addi %[[IV]], %{{.*}} : index
// CHECK: %[[NEXT:.*]] = arith.remui %{{.*}}, %c3
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[AHEAD]], %[[STEPS]] : index
// CHECK: scf.if %[[IN]] {
// CHECK: tile.async_copy %arg0{{.*}} stage %[[NEXT]]
// CHECK: tile.async_copy %arg1{{.*}} stage %[[NEXT]]
// CHECK: tile.async_commit
// CHECK-NOT: tile.load
// CHECK: %[[D:.*]] = tile.staged_dot <bf16, [128, 32], offset = 0, pitch = 40, stages = 3>, <bf16, [32, 128], offset = 30720, pitch = 136, stages = 3> stage %[[STAGE]] acc %[[ACC]] : tensor<128x128xf32, #tile.mma<warpsM = 2, warpsN = 4>>
// CHECK-NEXT: scf.yield %[[D]]
// CHECK: tile.async_wait 0
// CHECK-NEXT: tile.convert_layout
func.func @matmul(%x: !tile.ref<bf16, 2>, %y: !tile.ref<bf16, 2>,
                  %out: !tile.ref<bf16, 2>)
    attributes {tile.kernel, tile.num_warps = 8 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %y, 1 : !tile.ref<bf16, 2>
  %steps = arith.ceildivui %k, %c32 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero) -> (tensor<128x128xf32>) {
    %k0 = arith.muli %i, %c32 : index
    %a_t = tile.load %x[%c0, %k0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<128x32xbf16>
    %b_t = tile.load %y[%k0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<32x128xbf16>
    %valid = arith.subi %k, %k0 : index
    %d = tile.dot %a_t, %b_t acc %a valid_k %valid : tensor<128x32xbf16>, tensor<32x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %r = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %r, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<128x128xbf16>, !tile.ref<bf16, 2>
  return
}

// -----

// num_stages = 2: one iteration ahead, each iteration waits for every
// group.

// CHECK-LABEL: func.func @two_stages(
// CHECK: scf.if
// CHECK: tile.async_commit
// CHECK-NOT: tile.async_commit
// CHECK: scf.for
// CHECK-NEXT: tile.async_wait 0
// CHECK: tile.staged_dot <bf16, [64, 32], offset = 0, pitch = 40, stages = 2>, <bf16, [32, 64], offset = 10240, pitch = 72, stages = 2> stage %{{.*}} acc %{{.*}} : tensor<64x64xf32, #tile.mma<warpsM = 2, warpsN = 2>>
// CHECK: tile.async_wait 0
func.func @two_stages(%x: !tile.ref<bf16, 2>, %y: !tile.ref<bf16, 2>,
                      %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.num_stages = 2 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %y, 1 : !tile.ref<bf16, 2>
  %steps = arith.ceildivui %k, %c32 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) {
    %k0 = arith.muli %i, %c32 : index
    %a_t = tile.load %x[%c0, %k0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<64x32xbf16>
    %b_t = tile.load %y[%k0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<32x64xbf16>
    %d = tile.dot %a_t, %b_t acc %a : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<64x64xf32>, !tile.ref<f32, 2>
  return
}

// -----

// Not pipelined: the body computes on a loaded tile besides the dot (the
// elementwise op could need the workspace while the ring is live); K = 24
// is not whole k-steps; num_stages = 1 asks for none.

// CHECK-LABEL: func.func @scaled_operand(
// CHECK-NOT: tile.async_copy
// CHECK: tile.dot
// CHECK-LABEL: func.func @ragged_k(
// CHECK-NOT: tile.async_copy
// CHECK: tile.dot
func.func @scaled_operand(%x: !tile.ref<bf16, 2>, %y: !tile.ref<bf16, 2>,
                          %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %y, 1 : !tile.ref<bf16, 2>
  %steps = arith.ceildivui %k, %c32 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) {
    %k0 = arith.muli %i, %c32 : index
    %a_t = tile.load %x[%c0, %k0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<64x32xbf16>
    %a2 = arith.addf %a_t, %a_t : tensor<64x32xbf16>
    %b_t = tile.load %y[%k0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<32x64xbf16>
    %d = tile.dot %a2, %b_t acc %a : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<64x64xf32>, !tile.ref<f32, 2>
  return
}
func.func @ragged_k(%x: !tile.ref<f16, 2>, %y: !tile.ref<f16, 2>,
                    %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c24 = arith.constant 24 : index
  %m = tile.dim %x, 0 : !tile.ref<f16, 2>
  %k = tile.dim %x, 1 : !tile.ref<f16, 2>
  %n = tile.dim %y, 1 : !tile.ref<f16, 2>
  %steps = arith.ceildivui %k, %c24 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) {
    %k0 = arith.muli %i, %c24 : index
    %a_t = tile.load %x[%c0, %k0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<f16, 2> -> tensor<64x24xf16>
    %b_t = tile.load %y[%k0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<f16, 2> -> tensor<24x64xf16>
    %d = tile.dot %a_t, %b_t acc %a : tensor<64x24xf16>, tensor<24x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<64x64xf32>, !tile.ref<f32, 2>
  return
}

// -----

// CHECK-LABEL: func.func @one_stage(
// CHECK-NOT: tile.async_copy
func.func @one_stage(%x: !tile.ref<bf16, 2>, %y: !tile.ref<bf16, 2>,
                     %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.num_stages = 1 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %y, 1 : !tile.ref<bf16, 2>
  %steps = arith.ceildivui %k, %c32 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32>) {
    %k0 = arith.muli %i, %c32 : index
    %a_t = tile.load %x[%c0, %k0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<64x32xbf16>
    %b_t = tile.load %y[%k0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<32x64xbf16>
    %d = tile.dot %a_t, %b_t acc %a : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<64x64xf32>, !tile.ref<f32, 2>
  return
}

// -----

// A ring that cannot fit: [256, 128] x [128, 256] tiles (two stages:
// 2 x (256 x 136 + 128 x 264) x 2 bytes) stay unpipelined, with a warning
// (one stage fits: the dot stays on tensor cores).

func.func @too_big(%x: !tile.ref<bf16, 2>, %y: !tile.ref<bf16, 2>,
                   %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 16 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %y, 1 : !tile.ref<bf16, 2>
  %steps = arith.ceildivui %k, %c128 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<256x256xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero) -> (tensor<256x256xf32>) {
    %k0 = arith.muli %i, %c128 : index
    %a_t = tile.load %x[%c0, %k0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<256x128xbf16>
    %b_t = tile.load %y[%k0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<128x256xbf16>
    // expected-warning @+1 {{this matrix product's loop is not pipelined: two stages of its operand tiles take 274432 bytes of shared memory, more than the 232448 a CTA may have (use smaller block sizes)}}
    %d = tile.dot %a_t, %b_t acc %a : tensor<256x128xbf16>, tensor<128x256xbf16>, tensor<256x256xf32> -> tensor<256x256xf32>
    scf.yield %d : tensor<256x256xf32>
  }
  tile.store %acc, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<256x256xf32>, !tile.ref<f32, 2>
  return
}

// -----

// dot_engine wgmma, [128, 128, 64] at 8 warps and 3 stages:
// -dslc-mma-layouts gives the result wgmma's layout (8 x 1 warps of 16
// rows), and the rings are
// swizzled in 128-byte atoms (lhs 128 rows x 128 bytes, rhs 64 rows x two
// atoms: 16 KiB each a stage, 1024-aligned); the waits inside the loop fence
// the copies for the async proxy; the module is marked for sm_90a.
// The accumulator is only carried, so each product stays in flight
// (pending = 1) while the next iteration issues its own; the copies come
// after the products, two iterations ahead with 3 stages (two groups
// before the loop). One barrier an iteration, at its end, serves both the
// stage the copies refill (the previous product is complete on every
// warpgroup) and the stage the next product reads (its copies landed:
// wait 0 of 3 stages, fenced for the async proxy); the first stage's is
// before the loop. After the loop tile.dot_wait completes the product
// before anything reads it.

// CHECK: module attributes {dslc.needs_sm90a}
// CHECK-LABEL: func.func @wgmma(
// CHECK: tile.async_copy %arg0{{.*}} to <bf16, [128, 64], offset = 0, pitch = 64, stages = 3, swizzle = 128>
// CHECK: tile.async_copy %arg1{{.*}} to <bf16, [64, 128], offset = 49152, pitch = 128, stages = 3, swizzle = 128>
// CHECK: tile.async_commit
// CHECK: tile.async_copy %arg0{{.*}} stage %c1
// CHECK: tile.async_commit
// CHECK-NEXT: tile.async_wait 1 {async_proxy}
// (The copies inside the loop load iteration i + 2's K tile: their offsets
// are recomputed from iv + 2 * step, not the loop's own.)
// CHECK: %[[ACC:.*]] = scf.for %[[IV:[^ ]*]] =
// CHECK-NOT: tile.async_wait
// CHECK: %[[I:.*]] = arith.divui
// CHECK: %[[STAGE:.*]] = arith.remui %[[I]], %c3
// CHECK: %[[AHEAD:.*]] = arith.muli %{{.*}}, %c2
// CHECK: %[[AT:.*]] = arith.addi %[[IV]], %[[AHEAD]] : index
// CHECK: %[[I2:.*]] = arith.addi %[[I]], %c2
// CHECK: %[[NEXT:.*]] = arith.remui %[[I2]], %c3
// CHECK-NOT: tile.async_copy
// CHECK: tile.staged_dot <bf16, [128, 64], offset = 0, pitch = 64, stages = 3, swizzle = 128>, <bf16, [64, 128], offset = 49152, pitch = 128, stages = 3, swizzle = 128> stage %[[STAGE]] acc %{{.*}} {pending = 1 : i64} : tensor<128x128xf32, #tile.mma<warpsM = 8, warpsN = 1>>
// CHECK-NEXT: tile.async_wait 0 {async_proxy}
// CHECK: %[[K:.*]] = arith.muli %[[AT]], %c64
// CHECK-NEXT: tile.async_copy %arg0[%c0, %[[K]]]{{.*}} stage %[[NEXT]]
// CHECK: tile.async_copy %arg1
// CHECK: tile.async_commit
// CHECK-NEXT: scf.yield
// CHECK: %[[DONE:.*]] = tile.dot_wait %[[ACC]] : tensor<128x128xf32, #tile.mma<warpsM = 8, warpsN = 1>>
// CHECK-NEXT: tile.async_wait 0
// CHECK-NOT: async_proxy
// CHECK: tile.convert_layout %[[DONE]]
func.func @wgmma(%x: !tile.ref<bf16, 2>, %y: !tile.ref<bf16, 2>,
                 %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.num_stages = 3 : i64,
                tile.dot_engine = #tile.dot_engine<wgmma>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %y, 1 : !tile.ref<bf16, 2>
  %steps = arith.ceildivui %k, %c64 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero) -> (tensor<128x128xf32>) {
    %k0 = arith.muli %i, %c64 : index
    %a_t = tile.load %x[%c0, %k0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<128x64xbf16>
    %b_t = tile.load %y[%k0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<64x128xbf16>
    %d = tile.dot %a_t, %b_t acc %a : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<128x128xf32>, !tile.ref<f32, 2>
  return
}

// -----

// Not pipelined: the K offset is carried by the loop (its value two
// iterations ahead is not known).

// CHECK-LABEL: func.func @carried_offset(
// CHECK-NOT: tile.async_copy
// CHECK: tile.dot
func.func @carried_offset(%x: !tile.ref<bf16, 2>, %y: !tile.ref<bf16, 2>,
                          %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %y, 1 : !tile.ref<bf16, 2>
  %steps = arith.ceildivui %k, %c32 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc, %end = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero, %k0 = %c0) -> (tensor<64x64xf32>, index) {
    %a_t = tile.load %x[%c0, %k0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<64x32xbf16>
    %b_t = tile.load %y[%k0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<32x64xbf16>
    %d = tile.dot %a_t, %b_t acc %a : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %next = arith.addi %k0, %c32 : index
    scf.yield %d, %next : tensor<64x64xf32>, index
  }
  tile.store %acc, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<64x64xf32>, !tile.ref<f32, 2>
  return
}

// -----

// wgmma at its default of 4 stages (no num_stages): the product in
// flight, copies three iterations ahead
// (three groups before the loop, then a wait for the first), after the
// product and the iteration's barrier (which waits for all but the newest
// group: the next iteration's stage), into stage (i + 3) % 4 -- the one
// iteration i - 1 read.

// CHECK-LABEL: func.func @wgmma_four_stages(
// CHECK-COUNT-3: tile.async_commit
// CHECK-NEXT: tile.async_wait 2 {async_proxy}
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to
// CHECK: %[[I:.*]] = arith.divui
// CHECK: arith.remui %[[I]], %c4
// CHECK: %[[I3:.*]] = arith.addi %[[I]], %c3
// CHECK: %[[NEXT:.*]] = arith.remui %[[I3]], %c4
// CHECK: tile.staged_dot {{.*}} {pending = 1 : i64}
// CHECK-NEXT: tile.async_wait 1 {async_proxy}
// CHECK: tile.async_copy %arg0{{.*}} stage %[[NEXT]]
// CHECK: tile.dot_wait
func.func @wgmma_four_stages(%x: !tile.ref<bf16, 2>, %y: !tile.ref<bf16, 2>,
                             %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<wgmma>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %y, 1 : !tile.ref<bf16, 2>
  %steps = arith.ceildivui %k, %c64 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero) -> (tensor<64x128xf32>) {
    %k0 = arith.muli %i, %c64 : index
    %a_t = tile.load %x[%c0, %k0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<64x64xbf16>
    %b_t = tile.load %y[%k0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<64x128xbf16>
    %d = tile.dot %a_t, %b_t acc %a : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<64x128xf32>, !tile.ref<f32, 2>
  return
}

// -----

// fp8 on wgmma (linear_fp8 of examples/matmul.py: x [M, K] by the
// transpose of w [N, K]): the f16 widening -dslc-mma-layouts put before
// the dot goes, the fp8 tiles are staged as loaded (K-major, 128-byte
// swizzle: a k-block of 128 fp8 is one atom a row) and the staged dot
// reads the rhs K-major.

// CHECK-LABEL: func.func @linear_fp8(
// CHECK: tile.async_copy %arg0{{.*}} to <f8E4M3FN, [128, 128], offset = 0, pitch = 128, stages = 4, swizzle = 128>
// CHECK: tile.async_copy %arg1{{.*}} to <f8E4M3FN, [128, 128], offset = 65536, pitch = 128, stages = 4, swizzle = 128>
// CHECK-NOT: arith.extf
// CHECK: tile.staged_dot <f8E4M3FN, [128, 128], offset = 0, pitch = 128, stages = 4, swizzle = 128>, <f8E4M3FN, [128, 128], offset = 65536, pitch = 128, stages = 4, swizzle = 128> stage %{{.*}} acc %{{.*}} {pending = 1 : i64, rhs_k_major} : tensor<128x128xf32, #tile.mma<warpsM = 8, warpsN = 1>>
func.func @linear_fp8(%x: !tile.ref<f8E4M3FN, 2>, %w: !tile.ref<f8E4M3FN, 2>,
                      %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.num_stages = 4 : i64,
                tile.dot_engine = #tile.dot_engine<wgmma>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %m = tile.dim %x, 0 : !tile.ref<f8E4M3FN, 2>
  %k = tile.dim %x, 1 : !tile.ref<f8E4M3FN, 2>
  %n = tile.dim %w, 0 : !tile.ref<f8E4M3FN, 2>
  %steps = arith.ceildivui %k, %c128 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero) -> (tensor<128x128xf32>) {
    %k0 = arith.muli %i, %c128 : index
    %a_t = tile.load %x[%c0, %k0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<f8E4M3FN, 2> -> tensor<128x128xf8E4M3FN>
    %w_t = tile.load %w[%c0, %k0] limits [%n, %k] {dims = array<i64: 0, 1>} : !tile.ref<f8E4M3FN, 2> -> tensor<128x128xf8E4M3FN>
    %b_t = tile.transpose %w_t [1, 0] : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %d = tile.dot %a_t, %b_t acc %a : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<128x128xf32>, !tile.ref<f32, 2>
  return
}

// -----

// A bf16 dot by a transposed rhs (x @ w.T, F.linear's layout): w's tiles
// are staged as loaded, [N, K], and read K-major (rhs_k_major); no
// transpose is left.

// CHECK-LABEL: func.func @linear_bf16(
// CHECK: tile.async_copy %arg0{{.*}} to <bf16, [128, 64], offset = 0, pitch = 64, stages = 4, swizzle = 128>
// CHECK: tile.async_copy %arg1{{.*}} to <bf16, [128, 64], offset = 65536, pitch = 64, stages = 4, swizzle = 128>
// CHECK-NOT: tile.transpose
// CHECK: tile.staged_dot <bf16, [128, 64], offset = 0, pitch = 64, stages = 4, swizzle = 128>, <bf16, [128, 64], offset = 65536, pitch = 64, stages = 4, swizzle = 128> stage %{{.*}} acc %{{.*}} {pending = 1 : i64, rhs_k_major} : tensor<128x128xf32, #tile.mma<warpsM = 8, warpsN = 1>>
func.func @linear_bf16(%x: !tile.ref<bf16, 2>, %w: !tile.ref<bf16, 2>,
                       %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.num_stages = 4 : i64,
                tile.dot_engine = #tile.dot_engine<wgmma>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %w, 0 : !tile.ref<bf16, 2>
  %steps = arith.ceildivui %k, %c64 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero) -> (tensor<128x128xf32>) {
    %k0 = arith.muli %i, %c64 : index
    %a_t = tile.load %x[%c0, %k0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<128x64xbf16>
    %w_t = tile.load %w[%c0, %k0] limits [%n, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<128x64xbf16>
    %b_t = tile.transpose %w_t [1, 0] : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a_t, %b_t acc %a : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<128x128xf32>, !tile.ref<f32, 2>
  return
}
