// The one list of meshscope's commands: `meshscope --help`, the headless install's message, shell completion and
// the docs' command list (checked by tests/cli/test_command_table.py) all come from it.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace meshscope::app {

struct Command {
    std::string_view name;
    int (*run)(int, char**);
    std::string_view summary;
};

[[nodiscard]] std::span<const Command> command_table();
// "plan, advise, ... and completion": the names in the table's order, for a sentence.
[[nodiscard]] std::string command_names();

}  // namespace meshscope::app
