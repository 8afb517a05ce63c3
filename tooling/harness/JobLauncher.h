//===- JobLauncher.h - Start N ranks of this program as one job -*- C++ -*-===//
//
// `dslrun --launch N` and `tuner --launch N`: the process re-executes itself
// N times, without `--launch N` and with `--rendezvous FILE` in a fresh
// temporary directory, each child with RANK, WORLD_SIZE, LOCAL_RANK and
// LOCAL_WORLD_SIZE set as torchrun sets them, then waits for all.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_HARNESS_JOBLAUNCHER_H
#define DSLC_TOOLING_HARNESS_JOBLAUNCHER_H

namespace dslc::run {

/// Runs the job; returns 0 when every rank exited with 0, else the first
/// failing rank's status (128 + signal for a killed rank). `tool` names the
/// program in messages.
int launchJob(const char *tool, int n, int argc, char **argv);

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_JOBLAUNCHER_H
