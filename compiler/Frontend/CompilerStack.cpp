//===- CompilerStack.cpp - The stack dslc compiles on ---------------------===//

#include "compiler/Frontend/CompilerStack.h"

#include <pthread.h>

namespace dslc {

namespace {
struct Call {
  const std::function<int()> *fn;
  int result = 1;
};

void *runCall(void *arg) {
  auto *call = static_cast<Call *>(arg);
  call->result = (*call->fn)();
  return nullptr;
}
} // namespace

int runOnCompilerStack(const std::function<int()> &fn) {
  Call call{&fn};
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0)
    return fn();
  pthread_t thread;
  bool started = pthread_attr_setstacksize(&attr, kCompilerStackBytes) == 0 &&
                 pthread_create(&thread, &attr, runCall, &call) == 0;
  pthread_attr_destroy(&attr);
  if (!started)
    return fn();
  pthread_join(thread, nullptr);
  return call.result;
}

} // namespace dslc
