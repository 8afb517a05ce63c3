// nccl_symmetric_allgather_repro: NCCL alone (no dslc code), to decide
// whether the wrong ncclAllGather results docs/measurements.md reports at
// 8198 elements (4099 per rank) in the registered window are NCCL's.
//
// One process drives every visible GPU (ncclCommInitAll), as dslrun and
// `tuner bench` do. For each buffer placement, dtype and per-rank count it
// fills every rank's send buffer with a pattern unique per rank and element,
// poisons the receive buffer (0xff), runs one ncclAllGather, and compares
// the whole receive buffer bitwise on every rank. Placements:
//   plain        send and receive cudaMalloc'ed (NCCL's ordinary kernels);
//   window A:B   send at byte offset A, receive at byte offset B of one
//                ncclMemAlloc'ed buffer registered with
//                ncclCommWindowRegister(..., NCCL_WIN_COLL_SYMMETRIC) (NCCL
//                2.27+ may then run its symmetric kernels).
// dslc's heap puts every buffer at a 256-byte-aligned offset, identical on
// every rank; the default offsets cover that, 4 KiB and 2 MiB.
//
// Build (here or on the GPU machine), one line:
//   g++ -O2 -std=c++17 benchmarks/nccl_symmetric_allgather_repro.cpp
//       -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lnccl -lcudart
//       -o nccl_ag_repro
// Run on 2 GPUs, with NCCL's choice of kernel logged:
//   NCCL_NVLS_ENABLE=0 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING ./nccl_ag_repro
// Options: --counts 4096,4099,... (per rank) --dtypes bf16,f16,f32
//          --offsets 0:8388608,256:8388864 (window A:B pairs)
// Exit status: 0 all right, 1 some result wrong, 2 usage, 3 CUDA/NCCL error.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void cudaCheck(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(e));
    std::exit(3);
  }
}

void ncclCheck(ncclResult_t r, const char *what) {
  if (r != ncclSuccess) {
    std::fprintf(stderr, "NCCL error in %s: %s\n", what, ncclGetErrorString(r));
    std::exit(3);
  }
}

struct DType {
  const char *name;
  ncclDataType_t type;
  size_t bytes;
};

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t c = s.find(',', pos);
    out.push_back(
        s.substr(pos, c == std::string::npos ? std::string::npos : c - pos));
    if (c == std::string::npos)
      break;
    pos = c + 1;
  }
  return out;
}

/// Byte k of rank r's send buffer: distinct per rank and position, never
/// 0xff (the poison).
unsigned char pattern(int rank, size_t k) {
  return static_cast<unsigned char>((k * 7 + rank * 101 + 13) % 251);
}

struct Placement {
  bool window = false;
  size_t offIn = 0, offOut = 0;
  std::string name() const {
    return window ? "window " + std::to_string(offIn) + ":" +
                        std::to_string(offOut)
                  : std::string("plain");
  }
};

struct Job {
  int n = 0;
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
};

/// One all-gather of `count` elements per rank; returns the wrong bytes
/// over every rank and prints the first.
long long runOne(Job &job, const std::vector<void *> &send,
                 const std::vector<void *> &recv, const DType &t,
                 size_t count) {
  size_t per = count * t.bytes, total = per * job.n;
  for (int i = 0; i < job.n; ++i) {
    cudaCheck(cudaSetDevice(i), "cudaSetDevice");
    std::vector<unsigned char> host(per);
    for (size_t k = 0; k < per; ++k)
      host[k] = pattern(i, k);
    cudaCheck(cudaMemcpy(send[i], host.data(), per, cudaMemcpyHostToDevice),
              "fill send");
    cudaCheck(cudaMemset(recv[i], 0xff, total), "poison recv");
    cudaCheck(cudaDeviceSynchronize(), "fill");
  }
  ncclCheck(ncclGroupStart(), "ncclGroupStart");
  for (int i = 0; i < job.n; ++i) {
    cudaCheck(cudaSetDevice(i), "cudaSetDevice");
    ncclCheck(ncclAllGather(send[i], recv[i], count, t.type, job.comms[i],
                            job.streams[i]),
              "ncclAllGather");
  }
  ncclCheck(ncclGroupEnd(), "ncclGroupEnd");
  long long wrong = 0;
  for (int i = 0; i < job.n; ++i) {
    cudaCheck(cudaSetDevice(i), "cudaSetDevice");
    cudaCheck(cudaStreamSynchronize(job.streams[i]), "all-gather");
    std::vector<unsigned char> host(total);
    cudaCheck(cudaMemcpy(host.data(), recv[i], total, cudaMemcpyDeviceToHost),
              "read recv");
    for (size_t k = 0; k < total; ++k) {
      unsigned char want = pattern(static_cast<int>(k / per), k % per);
      if (host[k] == want)
        continue;
      if (wrong == 0)
        std::printf("    first wrong byte on rank %d: byte %zu (rank %zu's "
                    "part, byte %zu of %zu): got 0x%02x, expected 0x%02x\n",
                    i, k, k / per, k % per, per, host[k], want);
      ++wrong;
    }
  }
  return wrong;
}

} // namespace

int main(int argc, char **argv) {
  std::string counts = "4096,4097,4098,4099,4100,4104,8191,8192,8193,65539";
  std::string dtypes = "bf16,f16,f32";
  std::string offsets = "0:8388608,256:8388864,4096:8392704,2097152:10485760";
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    if (a + 1 >= argc) {
      std::fprintf(stderr,
                   "usage: %s [--counts C,...] [--dtypes bf16,f16,f32]"
                   " [--offsets IN:OUT,...]\n",
                   argv[0]);
      return 2;
    }
    if (arg == "--counts")
      counts = argv[++a];
    else if (arg == "--dtypes")
      dtypes = argv[++a];
    else if (arg == "--offsets")
      offsets = argv[++a];
    else {
      std::fprintf(stderr, "unknown option %s\n", arg.c_str());
      return 2;
    }
  }
  std::vector<DType> types;
  for (const std::string &d : split(dtypes)) {
    if (d == "bf16")
      types.push_back({"bf16", ncclBfloat16, 2});
    else if (d == "f16")
      types.push_back({"f16", ncclFloat16, 2});
    else if (d == "f32")
      types.push_back({"f32", ncclFloat32, 4});
    else {
      std::fprintf(stderr, "unknown dtype %s (bf16, f16, f32)\n", d.c_str());
      return 2;
    }
  }
  std::vector<size_t> countList;
  for (const std::string &c : split(counts))
    countList.push_back(std::strtoull(c.c_str(), nullptr, 10));
  std::vector<Placement> places = {Placement()};
  for (const std::string &p : split(offsets)) {
    size_t colon = p.find(':');
    if (colon == std::string::npos) {
      std::fprintf(stderr, "bad offsets '%s' (IN:OUT)\n", p.c_str());
      return 2;
    }
    Placement w;
    w.window = true;
    w.offIn = std::strtoull(p.substr(0, colon).c_str(), nullptr, 10);
    w.offOut = std::strtoull(p.substr(colon + 1).c_str(), nullptr, 10);
    places.push_back(w);
  }
  size_t maxPer = 0;
  for (size_t c : countList)
    for (const DType &t : types)
      maxPer = std::max(maxPer, c * t.bytes);

  Job job;
  cudaCheck(cudaGetDeviceCount(&job.n), "cudaGetDeviceCount");
  if (job.n < 2) {
    std::fprintf(stderr, "needs at least 2 GPUs (found %d)\n", job.n);
    return 3;
  }
  int version = 0;
  ncclCheck(ncclGetVersion(&version), "ncclGetVersion");
  std::printf("NCCL %d, %d GPUs, one process\n", version, job.n);
  job.comms.resize(job.n);
  job.streams.resize(job.n);
  ncclCheck(ncclCommInitAll(job.comms.data(), job.n, nullptr),
            "ncclCommInitAll");
  for (int i = 0; i < job.n; ++i) {
    cudaCheck(cudaSetDevice(i), "cudaSetDevice");
    cudaCheck(cudaStreamCreate(&job.streams[i]), "cudaStreamCreate");
  }

  long long anyWrong = 0;
  for (const Placement &p : places) {
    std::vector<void *> base(job.n, nullptr), send(job.n), recv(job.n);
    std::vector<ncclWindow_t> wins(job.n, nullptr);
    size_t need = std::max(p.offIn + maxPer, p.offOut + maxPer * job.n);
    size_t bytes =
        (need + (size_t(2) << 20) - 1) / (size_t(2) << 20) * (size_t(2) << 20);
    for (int i = 0; i < job.n; ++i) {
      cudaCheck(cudaSetDevice(i), "cudaSetDevice");
      if (p.window) {
        ncclCheck(ncclMemAlloc(&base[i], bytes), "ncclMemAlloc");
        send[i] = static_cast<char *>(base[i]) + p.offIn;
        recv[i] = static_cast<char *>(base[i]) + p.offOut;
      } else {
        cudaCheck(cudaMalloc(&send[i], maxPer), "cudaMalloc send");
        cudaCheck(cudaMalloc(&recv[i], maxPer * job.n), "cudaMalloc recv");
      }
    }
    if (p.window) {
      ncclCheck(ncclGroupStart(), "ncclGroupStart");
      for (int i = 0; i < job.n; ++i) {
        cudaCheck(cudaSetDevice(i), "cudaSetDevice");
        ncclCheck(ncclCommWindowRegister(job.comms[i], base[i], bytes, &wins[i],
                                         NCCL_WIN_COLL_SYMMETRIC),
                  "ncclCommWindowRegister");
      }
      ncclCheck(ncclGroupEnd(), "ncclGroupEnd");
    }
    for (const DType &t : types)
      for (size_t count : countList) {
        long long wrong = runOne(job, send, recv, t, count);
        std::printf("%-22s %-4s count %7zu per rank (%8zu B): %s",
                    p.name().c_str(), t.name, count, count * t.bytes,
                    wrong ? "WRONG" : "ok");
        if (wrong)
          std::printf(" (%lld bytes)", wrong);
        std::printf("\n");
        std::fflush(stdout);
        anyWrong += wrong;
      }
    if (p.window) {
      ncclCheck(ncclGroupStart(), "ncclGroupStart");
      for (int i = 0; i < job.n; ++i) {
        cudaCheck(cudaSetDevice(i), "cudaSetDevice");
        ncclCheck(ncclCommWindowDeregister(job.comms[i], wins[i]),
                  "ncclCommWindowDeregister");
      }
      ncclCheck(ncclGroupEnd(), "ncclGroupEnd");
    }
    for (int i = 0; i < job.n; ++i) {
      cudaCheck(cudaSetDevice(i), "cudaSetDevice");
      if (p.window) {
        ncclCheck(ncclMemFree(base[i]), "ncclMemFree");
      } else {
        cudaCheck(cudaFree(send[i]), "cudaFree");
        cudaCheck(cudaFree(recv[i]), "cudaFree");
      }
    }
  }
  for (int i = 0; i < job.n; ++i)
    ncclCheck(ncclCommDestroy(job.comms[i]), "ncclCommDestroy");
  std::printf("%s\n", anyWrong ? "SOME RESULTS WRONG" : "all results right");
  return anyWrong ? 1 : 0;
}
