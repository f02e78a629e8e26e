// `meshscope` with no sub-command: replaces this process with `meshscope-dashboard` from the same folder,
// arguments unchanged, so the headless CLI never loads a GUI library itself.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <system_error>
#include <vector>

#include "command_table.h"
#include "commands.h"

namespace meshscope::app {

namespace {
constexpr const char* dashboard_name = "meshscope-dashboard";
}

int run_dashboard(int argc, char** argv) {
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    const auto dashboard = (error ? std::filesystem::path(argv[0]) : self).parent_path() / dashboard_name;
    std::vector<char*> args(argv, argv + argc);
    args.push_back(nullptr);
    std::string program = dashboard.string();
    args[0] = program.data();
    ::execv(program.c_str(), args.data());
    const int reason = errno;
    std::cerr << "meshscope: cannot start the dashboard " << program << ": " << std::strerror(reason)
              << "\nThis is a headless install: the commands are " << command_names() << " (meshscope --help).\n";
    return exit_failure;
}

}  // namespace meshscope::app
