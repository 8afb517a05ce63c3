// A loop reading a staged tile at one per-thread address plus a constant
// per piece (tests/compiler/Target/addresses.test): 8 pieces of 16 bytes
// at tid * 16 + 1024 k of the workspace, summed over n iterations.
module {
llvm.mlir.global internal @ws() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8192 x i8>
llvm.func @staged_offsets(%out: !llvm.ptr<1>, %n: i64) attributes {nvvm.kernel} {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %sixteen = llvm.mlir.constant(16 : i64) : i64
  %z = llvm.mlir.constant(dense<0.0> : vector<4xf32>) : vector<4xf32>
  %tid32 = nvvm.read.ptx.sreg.tid.x : i32
  %tid = llvm.zext %tid32 : i32 to i64
  %off = llvm.mul %tid, %sixteen : i64
  %ws = llvm.mlir.addressof @ws : !llvm.ptr<3>
  %base = llvm.getelementptr %ws[%off] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
  llvm.br ^loop(%zero, %z : i64, vector<4xf32>)
^loop(%i: i64, %acc: vector<4xf32>):
  %p0 = llvm.getelementptr %base[1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %p1 = llvm.getelementptr %base[2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %p2 = llvm.getelementptr %base[3072] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %p3 = llvm.getelementptr %base[4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %x0 = llvm.load volatile %p0 {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
  %x1 = llvm.load volatile %p1 {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
  %x2 = llvm.load volatile %p2 {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
  %x3 = llvm.load volatile %p3 {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
  %s0 = llvm.fadd %acc, %x0 : vector<4xf32>
  %s1 = llvm.fadd %s0, %x1 : vector<4xf32>
  %s2 = llvm.fadd %s1, %x2 : vector<4xf32>
  %s3 = llvm.fadd %s2, %x3 : vector<4xf32>
  %next = llvm.add %i, %one : i64
  %more = llvm.icmp "ult" %next, %n : i64
  llvm.cond_br %more, ^loop(%next, %s3 : i64, vector<4xf32>), ^done
^done:
  llvm.store %s3, %out {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  llvm.return
}
}
