//===- ErrorTest.cpp - Error formatting and call checking -----------------===//
#include "runtime/Error.h"
#include "runtime/ErrorRecord.h"
#include "runtime/KernelError.h"

#include <catch2/catch.hpp>
#include <cuda_runtime_api.h>
#include <nccl.h>

using namespace dslc::rt;

TEST_CASE("call failures name the rank, the call and the error", "[error]") {
  CHECK(formatCallFailure(3, "cudaMalloc(&p, n)", "cudaErrorMemoryAllocation",
                          2, "out of memory") ==
        "rank 3: cudaMalloc(&p, n) failed: out of memory "
        "(cudaErrorMemoryAllocation = 2)");
  CHECK(formatCallFailure(-1, "f()", "X", 1, "bad") ==
        "f() failed: bad (X = 1)");
}

TEST_CASE("checkCudart throws with the CUDA error string", "[error]") {
  try {
    DSLC_CUDART(1, cudaErrorInvalidValue);
    FAIL("no throw");
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::Cuda);
    std::string m = e.what();
    CHECK(m.find("rank 1: cudaErrorInvalidValue failed") == 0);
    CHECK(m.find("invalid argument") != std::string::npos);
    CHECK(m.find("cudaErrorInvalidValue = 1") != std::string::npos);
  }
  CHECK_NOTHROW(DSLC_CUDART(0, cudaSuccess));
  try {
    DSLC_CUDART(0, cudaErrorNoDevice);
    FAIL("no throw");
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::NoDevice);
  }
}

TEST_CASE("checkNccl throws with NCCL's error string", "[error]") {
  try {
    DSLC_NCCL(2, ncclInvalidArgument);
    FAIL("no throw");
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::Nccl);
    std::string m = e.what();
    CHECK(m.find("rank 2: ncclInvalidArgument failed: invalid argument") == 0);
  }
  CHECK_NOTHROW(DSLC_NCCL(0, ncclInProgress));
}

TEST_CASE("an error record becomes a message with all its fields", "[error]") {
  KernelMetadata md;
  md.kernel = "k";
  md.sourceFile = "ex.py";
  DslcErrorRecord rec{};
  CHECK(formatErrorRecord(rec, md, 0, 100).empty());
  rec.status = DSLC_RECORD_WAIT_TIMEOUT;
  rec.line = 12;
  rec.column = 5;
  rec.cta = 7;
  rec.slot = 3;
  rec.expected = 1;
  rec.seen = 0;
  rec.address = 0x1000;
  CHECK(formatErrorRecord(rec, md, 1, 2000) ==
        "rank 1: kernel k: wait at ex.py:12:5 timed out after 2000 ms: slot "
        "3 expected 1, saw 0 (CTA 7, address 0x1000)");
  rec.status = DSLC_RECORD_PACKET_TIMEOUT;
  CHECK(formatErrorRecord(rec, md, 1, 2000).find("packet poll at") !=
        std::string::npos);
  // A packet range past the scratch (seen on the GPU with a scratch sized
  // for the one-shot and the fused two-shot at N = 65539).
  rec.status = DSLC_RECORD_OUT_OF_BOUNDS;
  rec.slot = 66816;
  rec.expected = 66560;
  rec.seen = 67072;
  CHECK(formatErrorRecord(rec, md, 0, 2000) ==
        "rank 0: kernel k: index at ex.py:12:5 is outside its tensor: 66816 "
        "reaches 67072 but the size is 66560 (CTA 7, address 0x1000); for LL "
        "packets, the scratch is too small for this size");
}
