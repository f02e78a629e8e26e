#include "http_options.h"

#include "descriptor_limit.h"

namespace meshscope::server {

std::size_t default_max_connections() {
    const std::size_t limit = net::raise_descriptor_limit();
    return limit > reserved_descriptors ? limit - reserved_descriptors : 1;
}

}  // namespace meshscope::server
