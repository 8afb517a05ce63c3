//===- FusedKernelTest.cpp - The GPU test's fused kernel, simulated ------===//
//
// tests/runtime/kernels/tile_rmsnorm_fp8.mlir (RMSNorm, per-row fp8
// quantization, logsumexp and column maxima, with masked tails of both
// dimensions) is the kernel TileLangGpuTest.cpp checks on the GPU. Here the
// simulator runs it and meets the same float64 reference within the
// rounding of its f32 computations.
//
//===----------------------------------------------------------------------===//

#include "RunIR.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace dslc::sim;
using dslc::sim::test::RunIR;

TEST_CASE("the RMSNorm/fp8/logsumexp kernel of the GPU test", "[fused]") {
  const int64_t t = 5, h = 8000; // both dimensions have a masked tail
  const double eps = 1e-6;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> val(-3.0, 3.0), scale(0.5, 1.5);
  std::vector<double> x(t * h), w(h);
  for (int64_t k = 0; k < t * h; ++k) {
    double v = val(rng);
    if (k / h == 1 || k / h == t - 1) // rows of negatives only
      v = -std::fabs(v) - 0.25;
    x[k] = roundFloat(ElemType::Kind::BF16, v);
  }
  for (double &v : w)
    v = roundFloat(ElemType::Kind::BF16, scale(rng));

  RunIR r(RunIR::readFile(std::string(DSLC_SOURCE_DIR) +
                          "/tests/runtime/kernels/tile_rmsnorm_fp8.mlir"));
  r.bind({t, h}, x);
  r.bind({h}, w);
  r.bindFloat(float(eps));
  Buffer &out = r.bind({t, h});
  Buffer &q = r.bind({t, h});
  Buffer &sc = r.bind({t});
  Buffer &deq = r.bind({t, h});
  Buffer &lse = r.bind({t});
  Buffer &colmax = r.bind({(t + 1) / 2, h});
  REQUIRE(r.run());

  int64_t codes = 0, neighbours = 0;
  for (int64_t row = 0; row < t; ++row) {
    double ss = 0, mx = -INFINITY;
    for (int64_t c = 0; c < h; ++c) {
      ss += x[row * h + c] * x[row * h + c];
      mx = std::max(mx, x[row * h + c]);
    }
    double inv = 1.0 / std::sqrt(ss / double(h) + double(float(eps)));
    double amax = 0, se = 0;
    for (int64_t c = 0; c < h; ++c) {
      amax = std::max(amax, std::fabs(x[row * h + c] * inv * w[c]));
      se += std::exp(x[row * h + c] - mx);
    }
    INFO("row " << row);
    CHECK(sc.f[row] == Approx(amax / 448.0).epsilon(1e-6));
    CHECK(lse.f[row] == Approx(mx + std::log(se)).epsilon(1e-6));
    for (int64_t c = 0; c < h; ++c) {
      size_t k = row * h + c;
      double y = x[k] * inv * w[c];
      // One bf16 rounding of a value within f32 rounding of y.
      CHECK(std::fabs(out.f[k] - y) <= std::fabs(y) / 128 + 1e-30);
      // The fp8 code of y * 448 / amax, or its neighbour where f32
      // rounding moves y across a midpoint.
      double want = roundFloat(ElemType::Kind::F8E4M3FN, y * 448.0 / amax);
      ++codes;
      if (q.f[k] != want) {
        ++neighbours;
        CHECK(std::fabs(q.f[k] - want) <= std::fabs(want) / 8);
      }
      // deq is f32(q) * scale rounded once to bf16: exact.
      CHECK(deq.f[k] == roundFloat(ElemType::Kind::BF16,
                                   double(float(q.f[k] * sc.f[row]))));
    }
  }
  CHECK(neighbours * 1000 <= codes);
  for (int64_t i = 0; i < (t + 1) / 2; ++i)
    for (int64_t c = 0; c < h; ++c) {
      double m = x[2 * i * h + c];
      if (2 * i + 1 < t)
        m = std::max(m, x[(2 * i + 1) * h + c]);
      CHECK(colmax.f[i * h + c] == m);
    }
}
