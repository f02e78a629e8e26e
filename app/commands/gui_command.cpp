// Placeholder until the planner window lands (issue 3): keeps `meshscope` buildable meanwhile.
#include <iostream>

#include "commands.h"

namespace meshscope::app {

int run_gui(int, char**) {
    std::cerr << "meshscope: the dashboard is not part of this build yet; try 'meshscope plan --help'\n";
    return exit_failure;
}

}  // namespace meshscope::app
