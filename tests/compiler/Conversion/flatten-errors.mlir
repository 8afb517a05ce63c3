// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -verify-diagnostics

// The ABI flattening lays slots out from each argument's #tile.role. A
// kernel written without roles gets them from the analysis MLIRGen runs;
// one with some roles missing is refused.

// expected-error @+1 {{kernel parameter 'y' has no #tile.role (argument attribute 'tile.role') while others have one}}
func.func @some_roles(%x: !tile.ref<f32, 1> {tile.role = #tile.role<input>},
                      %y: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.arg_names = ["x", "y"]} {
  return
}

// -----

// expected-error @+1 {{kernel parameter 'd' has a type the ABI cannot pass: 'f64' (scalars are i64 or f32)}}
func.func @f64_scalar(%d: f64 {tile.role = #tile.role<scalar>})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.arg_names = ["d"]} {
  return
}

// -----

// A symmetric tensor's table is one address: its length is the world size.
// expected-error @+1 {{the peer table 'x.peers' of 'x' needs rank 1 and the world size (tile.peer_count)}}
func.func @peers_without_world(%x: !tile.ref<f32, 1> {tile.role = #tile.role<input>},
                               %p: !tile.ref<i64, 1> {tile.role = #tile.role<peers of "x">})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.arg_names = ["x", "x.peers"]} {
  return
}
