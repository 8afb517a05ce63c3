//===- RendezvousTest.cpp - Process environment and unique-id files -------===//
#include "runtime/Rendezvous.h"
#include "runtime/Error.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <thread>
#include <unistd.h>

using namespace dslc::rt;

namespace {
std::function<const char *(const char *)>
envOf(const std::map<std::string, std::string> &m) {
  return [m](const char *name) -> const char * {
    auto it = m.find(name);
    return it == m.end() ? nullptr : it->second.c_str();
  };
}
std::string tempPath(const char *tag) {
  return "/tmp/dslc-rdv-test-" + std::to_string(getpid()) + "-" + tag;
}
} // namespace

TEST_CASE("process environment: torchrun, Open MPI, none", "[rendezvous]") {
  auto t = readProcessEnv(
      envOf({{"RANK", "1"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}}));
  REQUIRE(t);
  CHECK(t->rank == 1);
  CHECK(t->worldSize == 4);
  CHECK(t->localRank == 1);
  auto m = readProcessEnv(envOf({{"OMPI_COMM_WORLD_RANK", "5"},
                                 {"OMPI_COMM_WORLD_SIZE", "8"},
                                 {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}));
  REQUIRE(m);
  CHECK(m->rank == 5);
  CHECK(m->localRank == 1);
  CHECK_FALSE(readProcessEnv(envOf({})));
  auto noLocal = readProcessEnv(envOf({{"RANK", "2"}, {"WORLD_SIZE", "3"}}));
  REQUIRE(noLocal);
  CHECK(noLocal->localRank == 2);
}

TEST_CASE("process environment: malformed values are errors", "[rendezvous]") {
  CHECK_THROWS_WITH(readProcessEnv(envOf({{"RANK", "x"}, {"WORLD_SIZE", "2"}})),
                    Catch::Contains("RANK='x'"));
  CHECK_THROWS_WITH(readProcessEnv(envOf({{"RANK", "2"}, {"WORLD_SIZE", "2"}})),
                    Catch::Contains("RANK=2 is not below WORLD_SIZE=2"));
  CHECK_THROWS_WITH(readProcessEnv(envOf({{"RANK", "0"}})),
                    Catch::Contains("RANK is set but WORLD_SIZE is not"));
}

TEST_CASE("unique id file round trip, also while the reader waits",
          "[rendezvous]") {
  std::string path = tempPath("id");
  std::remove(path.c_str());
  UniqueIdBytes id;
  for (size_t i = 0; i < id.size(); ++i)
    id[i] = static_cast<char>(i * 7 + 3);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    writeUniqueIdFile(path, id, 2);
  });
  UniqueIdBytes got = readUniqueIdFile(path, 2, 5000);
  writer.join();
  CHECK(got == id);
  // A reader of another world size notices the stale file.
  CHECK_THROWS_WITH(readUniqueIdFile(path, 4, 100),
                    Catch::Contains("written for world size 2"));
  std::remove(path.c_str());
}

TEST_CASE("unique id file: timeout and malformed files", "[rendezvous]") {
  std::string path = tempPath("missing");
  std::remove(path.c_str());
  auto start = std::chrono::steady_clock::now();
  try {
    readUniqueIdFile(path, 2, 200);
    FAIL("no throw");
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::Timeout);
    CHECK(std::string(e.what()).find("did not appear within 200 ms") !=
          std::string::npos);
  }
  CHECK(std::chrono::steady_clock::now() - start <
        std::chrono::milliseconds(3000));
  {
    std::ofstream(path) << "hello\n";
  }
  CHECK_THROWS_WITH(readUniqueIdFile(path, 2, 100),
                    Catch::Contains("not a dslc rendezvous file"));
  {
    std::ofstream(path) << "dslc-rendezvous 1\nworld_size 2\nid abc\n";
  }
  CHECK_THROWS_WITH(readUniqueIdFile(path, 2, 100),
                    Catch::Contains("malformed id line"));
  std::remove(path.c_str());
}
