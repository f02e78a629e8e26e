// The descriptor limit of a network process. Every rank of a large job holds its own keep-alive connection, so the
// collector, the relay and the simulated storm each need as many file descriptors as the system lets them have
// (docs/live-at-scale.md); each keeps its own reserve for what else it opens.
#pragma once

#include <cstddef>

namespace meshscope::net {

// Raises the soft RLIMIT_NOFILE to the hard limit and returns the soft limit now in force (1,048,576 for an
// unlimited one; 1,024 when the limit cannot be read). Later calls find it raised and only read it.
std::size_t raise_descriptor_limit();

// The hard RLIMIT_NOFILE: the most a process may raise its soft limit to (`unlimited` when it has none or the
// limit cannot be read).
std::size_t hard_descriptor_limit(std::size_t unlimited);

}  // namespace meshscope::net
