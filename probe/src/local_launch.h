// --local N: starts N ranks of this same program on this host (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE
// set as torchrun would), waits for all of them and returns the worst exit status.
#pragma once

#include <string>
#include <vector>

namespace meshscope::probe {

[[nodiscard]] int launch_local(const std::string& program, const std::vector<std::string>& args, int ranks);

}  // namespace meshscope::probe
