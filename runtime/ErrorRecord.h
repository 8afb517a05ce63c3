/*===- ErrorRecord.h - The kernel's timeout record (C and CUDA) ----------===*
 *
 * The record a kernel fills when one of its bounded spins times out
 * (docs/kernel-abi.md, "Error record"). Plain C so that CUDA test kernels,
 * the C API and ctypes users share one definition.
 *
 *===---------------------------------------------------------------------===*/
#ifndef DSLC_RUNTIME_ERRORRECORD_H
#define DSLC_RUNTIME_ERRORRECORD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  DSLC_RECORD_NONE = 0,
  DSLC_RECORD_WAIT_TIMEOUT = 1,
  DSLC_RECORD_PACKET_TIMEOUT = 2,
  /* An index outside its tensor (a signal slot, or a packet range past the
     scratch): slot = the index (packet: first packet), expected = the
     tensor's size (packets the scratch holds), seen = the index reached. */
  DSLC_RECORD_OUT_OF_BOUNDS = 3,
};

typedef struct DslcErrorRecord {
  uint32_t status;  /* DSLC_RECORD_* */
  uint32_t line;    /* DSL source line of the wait */
  uint32_t column;  /* DSL source column */
  uint32_t cta;     /* blockIdx.x of the CTA that timed out */
  int64_t slot;     /* flat index of the slot in the pad (or packet index) */
  int64_t expected; /* value waited for */
  int64_t seen;     /* last value read */
  uint64_t address; /* device address polled */
} DslcErrorRecord;

#ifdef __cplusplus
}
static_assert(sizeof(DslcErrorRecord) == 48, "DslcErrorRecord is 48 bytes");
#endif

#endif /* DSLC_RUNTIME_ERRORRECORD_H */
