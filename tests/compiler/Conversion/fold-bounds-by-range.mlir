// RUN: dslc-opt %s -split-input-file -allow-unregistered-dialect -dslc-fold-bounds-by-range -canonicalize | FileCheck %s

// A loop over the 8 chunks of a compiled-in row of 4096 in blocks of 512
// (MLIRGen's form): every chunk ends at begin + 512 <= 4096, so the tile's
// end is begin + 512 and its valid count max(min(end, 4096) - begin, 0)
// reads no min or max.

// CHECK-LABEL: func.func @whole_chunks(
// CHECK-DAG: %[[C512:.*]] = arith.constant 512 : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[B:.*]] = arith.muli %[[I]], %[[C512]] : index
// CHECK: %[[E:.*]] = arith.addi %[[B]], %[[C512]] : index
// CHECK-NOT: arith.min
// CHECK-NOT: arith.max
// CHECK: "test.use"(%[[E]], %[[C512]])
func.func @whole_chunks() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c512 = arith.constant 512 : index
  %c4096 = arith.constant 4096 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %b = arith.muli %i, %c512 : index
    %n = arith.addi %b, %c512 : index
    %e = arith.minui %n, %c4096 : index
    %m = arith.minsi %e, %c4096 : index
    %d = arith.subi %m, %b : index
    %v = arith.maxsi %d, %c0 : index
    "test.use"(%e, %v) : (index, index) -> ()
  }
  return
}

// -----

// A row of 4100 in blocks of 512: the last chunk ends at 4100, so the min
// stays; a comparison the ranges decide (the begin is below 4100 on every
// iteration) becomes a constant (the canonicalizer hoists it).

// CHECK-LABEL: func.func @ragged_chunks(
// CHECK: %[[T:.*]] = arith.constant true
// CHECK: scf.for
// CHECK: arith.minui
// CHECK: "test.use"(%{{.*}}, %[[T]])
func.func @ragged_chunks() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %c512 = arith.constant 512 : index
  %c4100 = arith.constant 4100 : index
  scf.for %i = %c0 to %c9 step %c1 {
    %b = arith.muli %i, %c512 : index
    %n = arith.addi %b, %c512 : index
    %e = arith.minui %n, %c4100 : index
    %in = arith.cmpi ult, %b, %c4100 : index
    "test.use"(%e, %in) : (index, i1) -> ()
  }
  return
}

// -----

// A run-time extent decides nothing.

// CHECK-LABEL: func.func @runtime_extent(
// CHECK: arith.minui
// CHECK: arith.maxsi
func.func @runtime_extent(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %t = arith.ceildivui %n, %c512 : index
  scf.for %i = %c0 to %t step %c1 {
    %b = arith.muli %i, %c512 : index
    %x = arith.addi %b, %c512 : index
    %e = arith.minui %x, %n : index
    %d = arith.subi %e, %b : index
    %v = arith.maxsi %d, %c0 : index
    "test.use"(%e, %v) : (index, index) -> ()
  }
  return
}
