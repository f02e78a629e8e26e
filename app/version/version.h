// What every MeshScope executable prints for --version.
#pragma once

#include <string>
#include <string_view>

namespace meshscope::app {

// "meshscope 0.1.0 (commit 74a8c20a1b2c)": the program's name, the project's version, the commit it was built
// from ("-dirty" after it when the tree had changes, "unknown" outside a git checkout).
[[nodiscard]] std::string version_line(std::string_view program);

}  // namespace meshscope::app
