#include "descriptor_limit.h"

#include <sys/resource.h>

namespace meshscope::net {

std::size_t raise_descriptor_limit() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
    if (limit.rlim_cur < limit.rlim_max) {
        rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
    }
    constexpr rlim_t unlimited = 1 << 20;
    if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > unlimited) return unlimited;
    return static_cast<std::size_t>(limit.rlim_cur);
}

std::size_t hard_descriptor_limit(std::size_t unlimited) {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_max == RLIM_INFINITY) return unlimited;
    return static_cast<std::size_t>(limit.rlim_max);
}

}  // namespace meshscope::net
