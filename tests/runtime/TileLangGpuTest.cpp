//===- TileLangGpuTest.cpp - Reductions, math and fp8 on the GPU ----------===//
//
// Runs the Tile-IR kernels of tests/runtime/kernels (tile_rmsnorm_fp8.mlir,
// fp8_convert.mlir, built by dslc-translate) on one GPU and compares every
// output with a CPU reference: reductions along both dimensions with masked
// tails (valid counts), broadcasts, rsqrt/exp/log from libdevice, and the
// fp8 conversions (round to nearest even, saturating). Tagged [gpu]
// [tilelang]; skipped with a message without a GPU. The fp8 reference
// itself is checked without a GPU ([fp8]).
//
//===----------------------------------------------------------------------===//
#include "runtime/Error.h"
#include "runtime/Kernel.h"
#include "tests/runtime/TestSupport.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>

using namespace dslc;
using namespace dslc::rt;
using namespace dslc::test;

namespace {

//===----------------------------------------------------------------------===//
// Reference number formats
//===----------------------------------------------------------------------===//

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t toBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// f32 -> bf16, round to nearest even (NaN stays NaN).
uint16_t toBf16(float f) {
  uint32_t u = toBits(f);
  if (std::isnan(f))
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}
float fromBf16(uint16_t h) { return fromBits(uint32_t(h) << 16); }

/// An fp8 format: e4m3fn (no infinity, one NaN per sign, max 448) or e5m2
/// (IEEE-like, max 57344).
struct Fp8Format {
  int expBits, manBits, bias;
  double maxFinite;
  bool hasInf;
};
constexpr Fp8Format kE4M3{4, 3, 7, 448.0, false};
constexpr Fp8Format kE5M2{5, 2, 15, 57344.0, true};

double decodeFp8(uint8_t code, const Fp8Format &f) {
  int sign = code >> 7;
  int exp = (code >> f.manBits) & ((1 << f.expBits) - 1);
  int man = code & ((1 << f.manBits) - 1);
  int maxExp = (1 << f.expBits) - 1;
  double s = sign ? -1.0 : 1.0;
  if (f.hasInf && exp == maxExp)
    return man ? std::numeric_limits<double>::quiet_NaN()
               : s * std::numeric_limits<double>::infinity();
  if (!f.hasInf && exp == maxExp && man == (1 << f.manBits) - 1)
    return std::numeric_limits<double>::quiet_NaN();
  if (exp == 0)
    return s * std::ldexp(man, 1 - f.bias - f.manBits);
  return s * std::ldexp((1 << f.manBits) + man, exp - f.bias - f.manBits);
}

/// f32 -> fp8 as cvt.rn.satfinite does: round to nearest even; a magnitude
/// beyond the largest finite value (infinity included) gives that value
/// with the input's sign; NaN gives NaN (0x7f).
uint8_t encodeFp8(float x, const Fp8Format &f) {
  if (std::isnan(x))
    return 0x7f;
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  double a = std::fabs(static_cast<double>(x));
  int minExp = 1 - f.bias; // of the smallest normal
  auto encodeMagnitude = [&](double m) -> uint8_t {
    // m is exactly representable.
    if (m == 0)
      return 0;
    int e = std::ilogb(m);
    if (e < minExp)
      return static_cast<uint8_t>(std::ldexp(m, f.bias - 1 + f.manBits));
    int man = static_cast<int>(std::ldexp(m, f.manBits - e)) - (1 << f.manBits);
    return static_cast<uint8_t>(((e + f.bias) << f.manBits) | man);
  };
  if (a >= f.maxFinite)
    return sign | encodeMagnitude(f.maxFinite);
  int e = a == 0 ? minExp : std::max(std::ilogb(a), minExp);
  double quantum = std::ldexp(1.0, e - f.manBits);
  double q = std::nearbyint(a / quantum) * quantum; // ties to even
  if (q > f.maxFinite)
    q = f.maxFinite;
  return sign | encodeMagnitude(q);
}

//===----------------------------------------------------------------------===//
// Device buffers
//===----------------------------------------------------------------------===//

/// A device buffer of `count` elements of T followed by `guard` elements
/// filled with a sentinel byte, so writes past the tensor are caught.
template <typename T> struct DeviceBuffer {
  static constexpr int kSentinel = 0x5a;
  size_t count = 0, guard = 0;
  void *ptr = nullptr;

  DeviceBuffer(size_t count, size_t guard = 4096) : count(count), guard(guard) {
    size_t bytes = (count + guard) * sizeof(T);
    DSLC_CUDART(0, cudaMalloc(&ptr, bytes));
    DSLC_CUDART(0, cudaMemset(ptr, kSentinel, bytes));
  }
  ~DeviceBuffer() { (void)cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  void upload(const std::vector<T> &host) {
    DSLC_CUDART(0, cudaMemcpy(ptr, host.data(), count * sizeof(T),
                              cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(count);
    DSLC_CUDART(0, cudaMemcpy(host.data(), ptr, count * sizeof(T),
                              cudaMemcpyDeviceToHost));
    return host;
  }
  /// Whether the guard past the tensor still holds the sentinel.
  bool guardIntact() const {
    std::vector<uint8_t> g(guard * sizeof(T));
    DSLC_CUDART(0, cudaMemcpy(g.data(),
                              static_cast<char *>(ptr) + count * sizeof(T),
                              g.size(), cudaMemcpyDeviceToHost));
    for (uint8_t b : g)
      if (b != kSentinel)
        return false;
    return true;
  }
  TensorArg arg(DType dtype, std::vector<int64_t> sizes) const {
    TensorArg t;
    t.data = ptr;
    t.dtype = dtype;
    t.sizes = std::move(sizes);
    return t;
  }
};

bool haveKernel(const std::string &cubin) {
  if (std::ifstream(kernelPath(cubin)).good())
    return true;
#ifdef DSLC_TEST_HAVE_DSLC
  FAIL("missing " << kernelPath(cubin) << " (built by dslc-translate)");
#else
  WARN("skipped: no " << kernelPath(cubin)
                      << " (configure with the compiler to build it)");
#endif
  return false;
}

std::unique_ptr<Communicator> oneGpu() {
  DSLC_CUDART(0, cudaSetDevice(0));
  return Communicator::createAll({0});
}

/// Relative closeness with an absolute floor.
bool close(double got, double want, double rel, double abs = 1e-30) {
  if (std::isnan(want))
    return std::isnan(got);
  return std::fabs(got - want) <= rel * std::fabs(want) + abs;
}

} // namespace

TEST_CASE("fp8 reference encodings", "[fp8]") {
  CHECK(encodeFp8(1.0f, kE4M3) == 0x38);
  CHECK(encodeFp8(-2.0f, kE4M3) == 0xc0);
  CHECK(encodeFp8(448.0f, kE4M3) == 0x7e);
  CHECK(encodeFp8(1000.0f, kE4M3) == 0x7e); // saturates
  CHECK(encodeFp8(-INFINITY, kE4M3) == 0xfe);
  CHECK(encodeFp8(std::ldexp(1.0f, -9), kE4M3) == 0x01);  // min subnormal
  CHECK(encodeFp8(std::ldexp(1.0f, -10), kE4M3) == 0x00); // tie to even 0
  CHECK(encodeFp8(std::ldexp(3.0f, -10), kE4M3) == 0x02); // tie to even 2
  CHECK(encodeFp8(1.0625f, kE4M3) == 0x38); // halfway 1 and 1.125: even
  CHECK(encodeFp8(1.1875f, kE4M3) == 0x3a); // halfway 1.125 and 1.25: even
  CHECK(encodeFp8(1.0f, kE5M2) == 0x3c);
  CHECK(encodeFp8(57344.0f, kE5M2) == 0x7b);
  CHECK(encodeFp8(INFINITY, kE5M2) == 0x7b); // satfinite
  CHECK(encodeFp8(std::ldexp(1.0f, -16), kE5M2) == 0x01);
  CHECK(std::isnan(decodeFp8(encodeFp8(NAN, kE4M3), kE4M3)));
  CHECK(std::isnan(decodeFp8(encodeFp8(NAN, kE5M2), kE5M2)));
  for (int c = 0; c < 256; ++c) {
    double v = decodeFp8(uint8_t(c), kE4M3);
    if (!std::isnan(v) && !(v == 0 && c == 0x80)) {
      INFO("e4m3 code " << c);
      CHECK(encodeFp8(float(v), kE4M3) == c);
    }
    double u = decodeFp8(uint8_t(c), kE5M2);
    if (!std::isnan(u) && !std::isinf(u) && !(u == 0 && c == 0x80)) {
      INFO("e5m2 code " << c);
      CHECK(encodeFp8(float(u), kE5M2) == c);
    }
  }
}

TEST_CASE("the tile-language test kernels' metadata binds their ABI",
          "[tilelang]") {
  if (!haveKernel("tile_rmsnorm_fp8.cubin"))
    return;
  KernelMetadata md =
      loadMetadataFile(kernelPath("tile_rmsnorm_fp8.cubin.json"));
  BoundArgs args(md);
  auto at = [](uintptr_t a) { return reinterpret_cast<void *>(a << 12); };
  auto tensor = [&](uintptr_t a, DType d, std::vector<int64_t> sizes) {
    TensorArg t;
    t.data = at(a);
    t.dtype = d;
    t.sizes = std::move(sizes);
    return t;
  };
  args.setTensor("x", tensor(1, DType::BFloat16, {7, 5000}));
  args.setTensor("w", tensor(2, DType::BFloat16, {5000}));
  args.setFloat("eps", 1e-6);
  args.setTensor("out", tensor(3, DType::BFloat16, {7, 5000}));
  args.setTensor("q", tensor(4, DType::UInt8, {7, 5000}));
  args.setTensor("scale", tensor(5, DType::Float32, {7}));
  args.setTensor("deq", tensor(6, DType::BFloat16, {7, 5000}));
  args.setTensor("lse", tensor(7, DType::Float32, {7}));
  args.setTensor("colmax", tensor(8, DType::Float32, {4, 5000}));
  args.check(1, 0);
  CHECK(args.numTiles() == 4);
  ParamBuffer p = packParams(args, HiddenArgs{});
  REQUIRE(p.size() == 25);
  CHECK(p.cell(0) == (uint64_t(1) << 12));
  CHECK(p.cell(2) == 5000);  // x.size1
  CHECK(p.cell(21) == 5000); // colmax.size1
  CHECK(md.sharedBytes == 64);

  KernelMetadata conv = loadMetadataFile(kernelPath("fp8_convert.cubin.json"));
  BoundArgs c(conv);
  for (auto [i, name] : {std::pair{1, "x"}, {2, "back4"}, {3, "back5"}})
    c.setTensor(name, tensor(i, DType::Float32, {1539}));
  c.setTensor("q4", tensor(4, DType::UInt8, {1539}));
  c.setTensor("q5", tensor(5, DType::UInt8, {1539}));
  c.check(1, 0);
  CHECK(c.numTiles() == 4);
  CHECK(packParams(c, HiddenArgs{}).size() == 13);
}

TEST_CASE("fp8 conversions on the GPU: rounding, saturation, NaN",
          "[gpu][tilelang]") {
  if (!requireGpus(1, "fp8 conversions") || !haveKernel("fp8_convert.cubin"))
    return;
  // Every e4m3 and e5m2 value, the midpoints between neighbours (ties go to
  // even), values past the largest finite ones, infinities, NaN, zeros and
  // values below half the smallest subnormal; 1539 elements (a masked tail
  // of the last 512-element tile).
  std::vector<float> x;
  for (const Fp8Format *f : {&kE4M3, &kE5M2})
    for (int c = 0; c < 256; ++c) {
      double v = decodeFp8(uint8_t(c), *f);
      double next = decodeFp8(uint8_t(c + 1), *f);
      if (std::isnan(v))
        continue;
      x.push_back(float(v));
      if ((c & 0x7f) != 0x7f && !std::isnan(next) && !std::isinf(next) &&
          !std::isinf(v))
        x.push_back(float((v + next) / 2));
    }
  for (float v : {500.0f, -500.0f, 60000.0f, 70000.0f, 1e30f, INFINITY,
                  -INFINITY, NAN, 0.0f, -0.0f, 1e-10f, -1e-10f})
    x.push_back(v);
  while (x.size() < 1539)
    x.push_back(float(x.size()) * 0.37f - 200.0f);
  x.resize(1539);
  const size_t n = x.size();

  auto comm = oneGpu();
  auto kernel = Kernel::load(*comm, kernelPath("fp8_convert.cubin"));
  DeviceBuffer<float> dx(n), back4(n), back5(n);
  DeviceBuffer<uint8_t> q4(n), q5(n);
  dx.upload(x);
  BoundArgs args = kernel->args(0);
  int64_t size = static_cast<int64_t>(n);
  args.setTensor("x", dx.arg(DType::Float32, {size}));
  args.setTensor("q4", q4.arg(DType::UInt8, {size}));
  args.setTensor("q5", q5.arg(DType::UInt8, {size}));
  args.setTensor("back4", back4.arg(DType::Float32, {size}));
  args.setTensor("back5", back5.arg(DType::Float32, {size}));
  kernel->launch(0, args);
  kernel->synchronize();

  std::vector<uint8_t> g4 = q4.download(), g5 = q5.download();
  std::vector<float> b4 = back4.download(), b5 = back5.download();
  int bad = 0;
  for (size_t i = 0; i < n && bad < 20; ++i) {
    struct {
      const Fp8Format &f;
      uint8_t got;
      float back;
      const char *name;
    } cases[] = {{kE4M3, g4[i], b4[i], "e4m3"}, {kE5M2, g5[i], b5[i], "e5m2"}};
    for (auto &c : cases) {
      uint8_t want = encodeFp8(x[i], c.f);
      double decoded = decodeFp8(c.got, c.f);
      bool ok = std::isnan(x[i]) ? std::isnan(decoded) && std::isnan(c.back)
                                 : c.got == want && double(c.back) == decoded;
      if (!ok) {
        ++bad;
        UNSCOPED_INFO(fmt::format("{} of x[{}] = {:a}: code {:#04x} (want "
                                  "{:#04x}), back {:a}",
                                  c.name, i, x[i], c.got, want, c.back));
      }
    }
  }
  CHECK(bad == 0);
  CHECK(q4.guardIntact());
  CHECK(q5.guardIntact());
  CHECK(back4.guardIntact());
  CHECK(back5.guardIntact());
}

namespace {

/// The CPU reference of tile_rmsnorm_fp8.mlir for x [t, h], in double
/// except where the kernel's own f32 values are the input (deq).
struct RmsNormReference {
  std::vector<double> y; ///< the RMSNorm before rounding
  std::vector<double> amax, lse;
  std::vector<float> colmax;

  RmsNormReference(const std::vector<uint16_t> &x,
                   const std::vector<uint16_t> &w, int64_t t, int64_t h,
                   float eps)
      : y(t * h), amax(t), lse(t), colmax(((t + 1) / 2) * h) {
    for (int64_t r = 0; r < t; ++r) {
      double ss = 0, mx = -INFINITY;
      for (int64_t c = 0; c < h; ++c) {
        double v = fromBf16(x[r * h + c]);
        ss += v * v;
        mx = std::max(mx, v);
      }
      double inv = 1.0 / std::sqrt(ss / double(h) + double(eps));
      double am = 0, se = 0;
      for (int64_t c = 0; c < h; ++c) {
        double v = fromBf16(x[r * h + c]);
        y[r * h + c] = v * inv * double(fromBf16(w[c]));
        am = std::max(am, std::fabs(y[r * h + c]));
        se += std::exp(v - mx);
      }
      amax[r] = am;
      lse[r] = mx + std::log(se);
    }
    for (int64_t i = 0; i < (t + 1) / 2; ++i)
      for (int64_t c = 0; c < h; ++c) {
        float m = fromBf16(x[2 * i * h + c]);
        if (2 * i + 1 < t)
          m = std::max(m, fromBf16(x[(2 * i + 1) * h + c]));
        colmax[i * h + c] = m;
      }
  }
};

void runRmsNorm(Kernel &kernel, int64_t t, int64_t h, uint32_t seed) {
  INFO("x [" << t << ", " << h << "]");
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> val(-3.0f, 3.0f), scale(0.5f, 1.5f);
  std::vector<uint16_t> x(t * h), w(h);
  for (int64_t r = 0; r < t; ++r)
    for (int64_t c = 0; c < h; ++c) {
      float v = val(rng);
      // Row 1 and the last row are all negative: their maxima and colmax
      // must not come from the identity or a masked zero.
      if (r == 1 || r == t - 1)
        v = -std::fabs(v) - 0.25f;
      x[r * h + c] = toBf16(v);
    }
  for (auto &v : w)
    v = toBf16(scale(rng));
  const float eps = 1e-6f;
  RmsNormReference ref(x, w, t, h, eps);

  int64_t tiles = (t + 1) / 2;
  DeviceBuffer<uint16_t> dx(t * h), dw(h), out(t * h), deq(t * h);
  DeviceBuffer<uint8_t> q(t * h);
  DeviceBuffer<float> sc(t), lse(t), colmax(tiles * h);
  dx.upload(x);
  dw.upload(w);
  BoundArgs args = kernel.args(0);
  args.setTensor("x", dx.arg(DType::BFloat16, {t, h}));
  args.setTensor("w", dw.arg(DType::BFloat16, {h}));
  args.setFloat("eps", eps);
  args.setTensor("out", out.arg(DType::BFloat16, {t, h}));
  args.setTensor("q", q.arg(DType::UInt8, {t, h}));
  args.setTensor("scale", sc.arg(DType::Float32, {t}));
  args.setTensor("deq", deq.arg(DType::BFloat16, {t, h}));
  args.setTensor("lse", lse.arg(DType::Float32, {t}));
  args.setTensor("colmax", colmax.arg(DType::Float32, {tiles, h}));
  kernel.launch(0, args);
  kernel.synchronize();

  std::vector<uint16_t> gOut = out.download(), gDeq = deq.download();
  std::vector<uint8_t> gQ = q.download();
  std::vector<float> gScale = sc.download(), gLse = lse.download(),
                     gCol = colmax.download();
  int bad = 0;
  int64_t inexact = 0;
  auto report = [&](bool ok, const std::string &what) {
    if (!ok && ++bad <= 20)
      UNSCOPED_INFO(what);
  };
  for (int64_t r = 0; r < t; ++r) {
    // f32 reductions in another order, rsqrt within 2 ulp, exp/log within
    // 2 ulp: relative 1e-5 on the row values.
    report(close(gScale[r], ref.amax[r] / 448.0, 1e-5),
           fmt::format("scale[{}] = {} want {}", r, gScale[r],
                       ref.amax[r] / 448.0));
    report(close(gLse[r], ref.lse[r], 1e-5),
           fmt::format("lse[{}] = {} want {}", r, gLse[r], ref.lse[r]));
    bool sawMax = false;
    for (int64_t c = 0; c < h; ++c) {
      size_t k = r * h + c;
      double y = ref.y[k];
      // bf16 keeps 8 bits: within 2 units of the last place.
      report(
          close(fromBf16(gOut[k]), y, 1.0 / 64, 1e-6),
          fmt::format("out[{}, {}] = {} want {}", r, c, fromBf16(gOut[k]), y));
      // The code is the reference's or, where y in f32 rounds to the other
      // side of a midpoint, its neighbour of the same sign.
      double scaled = y * 448.0 / ref.amax[r];
      double got = decodeFp8(gQ[k], kE4M3);
      uint8_t want = encodeFp8(float(scaled), kE4M3);
      if (gQ[k] != want)
        ++inexact;
      bool neighbour = ((gQ[k] ^ want) & 0x80) == 0 &&
                       std::abs(int(gQ[k] & 0x7f) - int(want & 0x7f)) <= 1;
      report(neighbour,
             fmt::format("q[{}, {}] = {:#04x} ({}) want {:#04x} ({})", r, c,
                         gQ[k], got, want, scaled));
      sawMax |= std::fabs(got) == 448.0;
      // deq is f32(q) * scale rounded once to bf16, from the GPU's q and
      // scale: exact.
      float d = float(got) * gScale[r];
      report(gDeq[k] == toBf16(d), fmt::format("deq[{}, {}] = {} want {}", r, c,
                                               fromBf16(gDeq[k]), d));
    }
    // The row's largest magnitude quantizes to +-448 (e4m3's largest).
    report(sawMax, fmt::format("row {}: no element quantized to +-448", r));
  }
  for (int64_t i = 0; i < tiles; ++i)
    for (int64_t c = 0; c < h; ++c)
      report(gCol[i * h + c] == ref.colmax[i * h + c],
             fmt::format("colmax[{}, {}] = {} want {}", i, c, gCol[i * h + c],
                         ref.colmax[i * h + c]));
  CHECK(bad == 0);
  // Neighbouring codes are rare: y on the GPU is within a few f32 ulps.
  INFO(inexact << " of " << t * h
               << " fp8 codes are the reference's "
                  "neighbour");
  CHECK(inexact * 1000 <= t * h);
  CHECK(out.guardIntact());
  CHECK(q.guardIntact());
  CHECK(deq.guardIntact());
  CHECK(sc.guardIntact());
  CHECK(lse.guardIntact());
  CHECK(colmax.guardIntact());
}

} // namespace

TEST_CASE("RMSNorm, fp8 quantization, logsumexp and column maxima on the "
          "GPU against a CPU reference",
          "[gpu][tilelang]") {
  if (!requireGpus(1, "tile reductions and math") ||
      !haveKernel("tile_rmsnorm_fp8.cubin"))
    return;
  auto comm = oneGpu();
  auto kernel = Kernel::load(*comm, kernelPath("tile_rmsnorm_fp8.cubin"));
  // Masked tails of both dimensions (7 rows: the last tile holds one; 5000
  // columns of a 8192-wide tile), then full tiles.
  runRmsNorm(*kernel, 7, 5000, 1);
  runRmsNorm(*kernel, 8, 8192, 2);
  runRmsNorm(*kernel, 1, 1, 3);
}
