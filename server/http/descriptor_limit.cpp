// Every rank of a large job holds its own keep-alive connection, so the collector needs as many file
// descriptors as the system lets it have (docs/live-at-scale.md).
#include <sys/resource.h>

#include <algorithm>

#include "http_options.h"

namespace meshscope::server {

std::size_t raise_descriptor_limit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
    if (limit.rlim_cur < limit.rlim_max) {
        rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
    }
    if (limit.rlim_cur == RLIM_INFINITY) return 1 << 20;
    return static_cast<std::size_t>(limit.rlim_cur);
}

std::size_t default_max_connections() {
    const std::size_t limit = raise_descriptor_limit();
    return limit > reserved_descriptors ? limit - reserved_descriptors : 1;
}

}  // namespace meshscope::server
