/*===- CApi.h - C interface of the dslc runtime (ctypes-friendly) --------===*
 *
 * Every function returns a dslcStatus (0 = DSLC_OK); on failure the message
 * is available from dslcGetLastError() (thread-local, valid until the next
 * failing call on that thread). No C++ exception crosses this interface.
 * Handles are opaque pointers. Tensors are passed as (data, dtype name,
 * rank, sizes, peer table) with dtype names as in the metadata ("bfloat16",
 * "int32", ...). "local" indexes the ranks this process drives
 * (0 .. dslcCommNumLocal-1).
 *
 * Streams: every `void *stream` argument is a cudaStream_t and means what it
 * means to CUDA: NULL is the legacy default stream (PyTorch's default stream
 * has the handle 0), cudaStreamPerThread the per-thread default stream.
 * DSLC_RANK_STREAM names the rank's own (non-blocking) stream, which is
 * unordered with the default stream: use it only for work you order
 * yourself (dslcCommSynchronize, dslcKernelSynchronize).
 *
 *===---------------------------------------------------------------------===*/
#ifndef DSLC_RUNTIME_CAPI_H
#define DSLC_RUNTIME_CAPI_H

#include "runtime/ErrorRecord.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The rank's own stream (dslcCommStream), as a stream argument. */
#define DSLC_RANK_STREAM ((void *)(intptr_t)-1)

typedef enum dslcStatus {
  DSLC_OK = 0,
  DSLC_ERROR_INVALID_ARGUMENT = 1,
  DSLC_ERROR_METADATA = 2,
  DSLC_ERROR_IO = 3,
  DSLC_ERROR_CUDA = 4,
  DSLC_ERROR_NCCL = 5,
  DSLC_ERROR_NO_DEVICE = 6,
  DSLC_ERROR_TIMEOUT = 7,
  DSLC_ERROR_KERNEL_TIMEOUT = 8,
  DSLC_ERROR_OUT_OF_MEMORY = 9,
  DSLC_ERROR_INTERNAL = 10,
} dslcStatus;

typedef struct dslcComm_s *dslcComm;
typedef struct dslcHeap_s *dslcHeap;
typedef struct dslcBuffer_s *dslcBuffer;
typedef struct dslcKernel_s *dslcKernel;
typedef struct dslcArgs_s *dslcArgs;

/* The message of this thread's last failure ("" when none). */
const char *dslcGetLastError(void);
const char *dslcStatusName(int status);
/* Visible CUDA devices (0 without driver or GPU); never fails. */
int dslcDeviceCount(void);

/* Communicators. */
dslcStatus dslcGetUniqueId(void *out128);
dslcStatus dslcCommCreateAll(int ndev, const int *devices, dslcComm *out);
dslcStatus dslcCommCreateRank(int rank, int worldSize, int device,
                              const void *uniqueId128, dslcComm *out);
/* rendezvousFile may be NULL (default path); timeoutMs bounds the wait. */
dslcStatus dslcCommCreateFromEnv(const char *rendezvousFile, int64_t timeoutMs,
                                 dslcComm *out);
/* A virtual world: worldSize ranks (1..32) all on `device`, driven by this
 * process, without NCCL (docs/runtime.md, "Virtual world"): local i is rank
 * i. Its collectives run dslc kernels only. */
dslcStatus dslcCommCreateVirtual(int worldSize, int device, dslcComm *out);
/* *out = 1 for a virtual world, else 0. */
dslcStatus dslcCommIsVirtual(dslcComm comm, int *out);
dslcStatus dslcCommDestroy(dslcComm comm);
dslcStatus dslcCommWorldSize(dslcComm comm, int *out);
dslcStatus dslcCommNumLocal(dslcComm comm, int *out);
dslcStatus dslcCommRank(dslcComm comm, int local, int *out);
dslcStatus dslcCommDevice(dslcComm comm, int local, int *out);
/* The rank's cudaStream_t. */
dslcStatus dslcCommStream(dslcComm comm, int local, void **out);
dslcStatus dslcCommBarrier(dslcComm comm);
dslcStatus dslcCommSynchronize(dslcComm comm);

/* Symmetric heap. */
dslcStatus dslcHeapCreate(dslcComm comm, size_t bytesPerRank, dslcHeap *out);
dslcStatus dslcHeapDestroy(dslcHeap heap);
/* zero != 0: zeroed on every rank followed by a barrier (signal pads). */
dslcStatus dslcHeapAlloc(dslcHeap heap, size_t bytes, size_t align, int zero,
                         dslcBuffer *out);
dslcStatus dslcHeapFree(dslcHeap heap, dslcBuffer buf);
/* Buffers made elsewhere (e.g. PyTorch symmetric memory): one address and
 * one device peer table per local rank; the tables are checked. Free with
 * dslcBufferRelease. */
dslcStatus dslcBufferImport(dslcComm comm, void *const *local,
                            void *const *peerTables, size_t bytes,
                            dslcBuffer *out);
dslcStatus dslcBufferRelease(dslcBuffer buf);
dslcStatus dslcBufferLocal(dslcBuffer buf, int local, void **out);
dslcStatus dslcBufferPeers(dslcBuffer buf, int local, void **out);

/* Kernels. metadataPath may be NULL (cubinPath + ".json"); both may hold
 * "{rank}". timeoutMs < 0: $DSLC_TIMEOUT_MS or 5000. */
dslcStatus dslcKernelLoad(dslcComm comm, const char *cubinPath,
                          const char *metadataPath, int64_t timeoutMs,
                          dslcKernel *out);
dslcStatus dslcKernelDestroy(dslcKernel kernel);
dslcStatus dslcKernelName(dslcKernel kernel, const char **out);
dslcStatus dslcKernelSetTimeoutMs(dslcKernel kernel, int64_t ms);
dslcStatus dslcKernelGrid(dslcKernel kernel, int local, dslcArgs args,
                          int64_t *out);
/* stream: a cudaStream_t (NULL: the legacy default stream) or
 * DSLC_RANK_STREAM. */
dslcStatus dslcKernelLaunch(dslcKernel kernel, int local, dslcArgs args,
                            void *stream);
/* Waits (bounded) for the ranks' own streams and for this kernel's launches
 * on other streams since the last call, then checks the error records. */
dslcStatus dslcKernelSynchronize(dslcKernel kernel);
dslcStatus dslcKernelErrorRecord(dslcKernel kernel, int local,
                                 DslcErrorRecord *out);

/* Arguments (bind by name, or by position when name is NULL). */
dslcStatus dslcArgsCreate(dslcKernel kernel, int local, dslcArgs *out);
dslcStatus dslcArgsDestroy(dslcArgs args);
dslcStatus dslcArgsSetTensor(dslcArgs args, const char *name, int position,
                             void *data, const char *dtype, int rank,
                             const int64_t *sizes, void *peers);
dslcStatus dslcArgsSetInt(dslcArgs args, const char *name, int position,
                          int64_t value);
dslcStatus dslcArgsSetFloat(dslcArgs args, const char *name, int position,
                            double value);
/* Checks the arguments as a launch would (world size and rank of the
 * kernel's communicator, constraints) without launching. */
dslcStatus dslcArgsCheck(dslcArgs args);

/* Collectives (runtime/Collectives.h): a tuned dslc kernel per size, or NCCL.
 * kernelDirs: ':'-separated directories made by `tuner compile` (NULL:
 * $DSLC_KERNEL_DIR); cacheDir: the tuning cache (NULL: the default);
 * stagingBytes: per rank (0: $DSLC_STAGING_BYTES or 256 MiB). Creation is
 * collective. dtype: "bfloat16", "float32", ...; op: "sum", "prod", "max",
 * "min", "avg" (non-sums go to NCCL). stream: as for dslcKernelLaunch.
 * send == recv is allowed. Capturable into CUDA graphs (see prepare). */
typedef struct dslcCollectives_s *dslcCollectives;
dslcStatus dslcCollectivesCreate(dslcComm comm, const char *kernelDirs,
                                 const char *cacheDir, size_t stagingBytes,
                                 dslcCollectives *out);
dslcStatus dslcCollectivesDestroy(dslcCollectives coll);
dslcStatus dslcAllReduce(dslcCollectives coll, int local, const void *send,
                         void *recv, size_t count, const char *dtype,
                         const char *op, void *stream);
dslcStatus dslcReduceScatter(dslcCollectives coll, int local, const void *send,
                             void *recv, size_t recvCount, const char *dtype,
                             const char *op, void *stream);
dslcStatus dslcAllGather(dslcCollectives coll, int local, const void *send,
                         void *recv, size_t sendCount, const char *dtype,
                         void *stream);
/* collective: "all_reduce", "reduce_scatter", "all_gather"; counts are the
 * collective's total element counts (N). Makes what those calls need
 * before a graph capture. */
dslcStatus dslcCollectivesPrepare(dslcCollectives coll, const char *collective,
                                  const size_t *counts, size_t numCounts,
                                  const char *dtype);
/* Where a call would go: writes "kernel: REASON", "nccl: REASON" or, on a
 * world spanning nodes, "hierarchical: REASON" (kernels in each node, NCCL
 * across nodes) into buf (truncated to len). */
dslcStatus dslcCollectivesChoice(dslcCollectives coll, const char *collective,
                                 size_t count, const char *dtype, char *buf,
                                 size_t len);
/* What the last call (of any collective) ran: "PATH: COLLECTIVE DTYPE of N:
 * PATH (REASON)" with PATH kernel, nccl or hierarchical; "" before the
 * first call. */
dslcStatus dslcCollectivesLastCall(dslcCollectives coll, char *buf, size_t len);
/* Local rank `local`'s load/store (LSA) team from NCCL: its size, the
 * rank's index in it and the number of such teams (nodes) in the world.
 * Any out pointer may be NULL. DSLC_ERROR_NCCL when NCCL cannot tell. */
dslcStatus dslcCommTeams(dslcComm comm, int local, int *lsaSize, int *lsaRank,
                         int *numNodes);

/* Additions for the Python package (python/dslc). */

/* The NCCL library the runtime's calls resolve to (the file that defines
 * ncclGetVersion, from dladdr) and its version (ncclGetVersion, e.g. 22809
 * for 2.28.9). path may be NULL; it is truncated to len. Needs no GPU. */
dslcStatus dslcNcclLibrary(char *path, size_t len, int *version);
/* The grid's tile count for the arguments bound so far (the extents'
 * tensors and scalars must be bound): what "num_tiles" means in the
 * metadata's constraints. */
dslcStatus dslcArgsNumTiles(dslcArgs args, int64_t *out);
/* Reads every local rank's error record: DSLC_OK when none is set, else
 * DSLC_ERROR_KERNEL_TIMEOUT with the records' messages in
 * dslcGetLastError() ("rank R: kernel K: wait at FILE:L:C timed out ...";
 * one line per rank) and the communicator marked failed (teardown then
 * aborts NCCL). For launches on streams the runtime does not own, after
 * the caller's own synchronization failed or finished. */
dslcStatus dslcKernelCheckErrors(dslcKernel kernel);
/* The dslc cache directory (tuning cache, compiled kernels) by the kernel
 * contract's one rule (contract/TuningCache.h, docs/tuner.md): `given` when
 * not NULL or empty, else $DSLC_CACHE_DIR, else $XDG_CACHE_HOME/dslc, else
 * $HOME/.cache/dslc. DSLC_ERROR_IO naming the variables when none is set;
 * DSLC_ERROR_INVALID_ARGUMENT when len bytes cannot hold it. */
dslcStatus dslcCacheDir(const char *given, char *dir, size_t len);
/* The tuning cache's size bucket of `count` elements (the contract's
 * rule): floor(log2(count)), 0 for count <= 1. */
int dslcSizeBucket(int64_t count);

/* The sizes a compiled kernel is specialized for (contract/Sizing.h,
 * specializedSizes: its metadata's integer `==` constraints), as JSON
 * `[["x", 1, 8192], ...]` into buf: what the Python package's compile
 * cache keys a cubin on. Reads the metadata file; needs no GPU.
 * DSLC_ERROR_INVALID_ARGUMENT when len bytes cannot hold the text. */
dslcStatus dslcMetadataSpecializedSizes(const char *metadataPath, char *buf,
                                        size_t len);
/* The shape a caller allocates for argument `name` of the kernel whose
 * metadata is at metadataPath, by the binding plan (contract::commShape)
 * for worldSize ranks and a grid of numTiles tiles (dslcArgsNumTiles): a
 * signal pad constrainedShape, an LL scratch llScratchBytes as a rank-1
 * count of its dtype's elements. sizes holds maxRank entries; *rank
 * receives the rank. Other roles: DSLC_ERROR_INVALID_ARGUMENT. Needs no
 * GPU. */
dslcStatus dslcMetadataFillShape(const char *metadataPath, const char *name,
                                 int worldSize, int64_t numTiles,
                                 int64_t *sizes, int maxRank, int *rank);
/* The binding plan (contract/BindingPlan.h, planBindingProblems) of the
 * kernel whose metadata text (the JSON dslc writes beside the cubin) is
 * metadataJson, for the request requestJson ({"world": W, "shapes": {name:
 * [sizes]}, "scalars": {name: value}, "bound": [names], "from_data": bool,
 * "collective": "all_reduce"}), as JSON into buf: every argument's role,
 * dtype, shape, symmetric, fill and peer-table target, and the problems
 * ({"kind", "arg", "text"}; none: the plan is whole). DSLC_ERROR_METADATA
 * for metadata the contract rejects; DSLC_ERROR_INVALID_ARGUMENT for a bad
 * request or when len bytes cannot hold the plan. Needs no GPU
 * (docs/python.md, "The binding plan"). */
dslcStatus dslcBindingPlan(const char *metadataJson, const char *requestJson,
                           char *buf, size_t len);
/* Whether the tuning cache in cacheDir (NULL or "": dslcCacheDir's rule)
 * holds a config for kernel `kernel` of the source with this sha256, for
 * worldSize ranks, dtype and the size bucket of count
 * (contract::tunedConfigOf, what `dslc --config-from-cache` reads): *found
 * 1 or 0. A missing or damaged cache holds nothing. Needs no GPU. */
dslcStatus dslcTuningCacheHas(const char *cacheDir, const char *kernel,
                              const char *sha256, int worldSize,
                              const char *dtype, int64_t count, int *found);
/* The same for a kernel tuned per shape: an entry counts only when it was
 * tuned at the shapes of shapesJson, a JSON object of the call's tensor
 * shapes ({"x": [16, 4096], "y": [4096, 4096]}; contract::shapeKey, the
 * key the tuner writes), so that two shapes of one size bucket (a 16-row
 * and a square matmul) are tuned apart. NULL or "": any shape. A malformed
 * shapesJson is DSLC_ERROR_INVALID_ARGUMENT. Needs no GPU. */
dslcStatus dslcTuningCacheHasShape(const char *cacheDir, const char *kernel,
                                   const char *sha256, int worldSize,
                                   const char *dtype, int64_t count,
                                   const char *shapesJson, int *found);
/* GPU `device` as the tuner describes it, as JSON into buf: {"device":
 * the tuning cache's device key (contract::tuningDeviceName; with
 * isVirtual, that of a virtual world), "driver": "cuda X.Y driver, X.Y
 * runtime", "multiprocessors": its SM count (the tuner's CTA target),
 * "memory_bytes_per_s": its HBM peak, "l2_bytes": its L2 size}
 * (runtime/Floor.h): what a measuring process (`tuner run
 * --measurer-fds`) answers the tuner's "info" with.
 * DSLC_ERROR_NO_DEVICE without such a GPU. */
dslcStatus dslcTunerDeviceInfo(int device, int isVirtual, char *buf,
                               size_t len);
/* Whether the eager and graph medians (us; 0: not measured) of a call that
 * moves `bytes` through GPU `device` are physically possible
 * (runtime/Floor.h, phasesBelowFloor: the rule the tuner's worker and
 * dslrun apply): "" into why when they are, else the reason. */
dslcStatus dslcTimesBelowFloor(int device, double eagerUs, double graphUs,
                               uint64_t bytes, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* DSLC_RUNTIME_CAPI_H */
