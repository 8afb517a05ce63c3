//===- AtomicFile.h - Whole-file replacement that never tears ---*- C++ -*-===//
//
// The one way dslc writes a file that someone reads later (the tuning cache,
// the tuner's manifest, dslc's -o output, dslrun's and the tuner's reports,
// the simulator's dumps, the rendezvous file): a reader, or the file left
// after a crash, a kill or a failed write at any point, is the old file or
// the new one, never a mix (docs/robustness.md, "Faults").
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_ATOMICFILE_H
#define DSLC_CONTRACT_ATOMICFILE_H

#include "contract/Expected.h"

#include <string>
#include <string_view>

namespace dslc::contract {

/// Replaces `path` with `bytes`: they go to a new temporary file in the same
/// directory (`PATH.tmp.PID.N`, created exclusively, mode 0666 less the
/// umask), which is flushed to disk (fsync) and renamed over `path`; the
/// directory is then fsync'ed so that the rename is durable too. On failure
/// the temporary file is removed, `path` is untouched and the message names
/// the file and the step that failed (with errno's text). A process killed
/// midway leaves `path` as it was (and possibly a `.tmp.` file). A symbolic
/// link is kept (its target is replaced); what is not a regular file
/// (/dev/null, /dev/stdout, a FIFO) is written in place.
Expected<bool> writeFileAtomically(const std::string &path,
                                   std::string_view bytes);

} // namespace dslc::contract

#endif // DSLC_CONTRACT_ATOMICFILE_H
