// Names the calling thread as `top -H`, `perf` and /proc/PID/task/*/comm show it, so that an operator (and
// bench/collector/steady_cpu.sh) can tell the collector's and the relay's threads apart. Linux keeps 15
// characters.
#pragma once

#include <pthread.h>

namespace meshscope::net {

inline void name_this_thread(const char* name) {
    pthread_setname_np(pthread_self(), name);
}

}  // namespace meshscope::net
