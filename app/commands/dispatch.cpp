#include <iostream>
#include <string_view>

#include "command_table.h"
#include "commands.h"
#include "version.h"

namespace meshscope::app {

namespace {
void print_usage(std::ostream& out) {
    out << "usage: meshscope [--screenshot FILE] [options]   open the dashboard\n"
           "       meshscope <command> [options]\n"
           "       meshscope --version\n\ncommands:\n";
    for (const auto& c : command_table())
        out << "  " << c.name << std::string(12 - c.name.size(), ' ') << c.summary << "\n";
    out << "\nRun 'meshscope <command> --help' for a command's options.\n";
}
}  // namespace

int dispatch(int argc, char** argv) {
    if (argc >= 2) {
        const std::string_view first = argv[1];
        for (const auto& c : command_table())
            if (first == c.name) return c.run(argc - 1, argv + 1);
        if (first == "help" || first == "--help" || first == "-h") {
            print_usage(std::cout);
            return exit_ok;
        }
        if (first == "--version" || first == "-V") {
            std::cout << version_line("meshscope") << "\n";
            return exit_ok;
        }
        if (!first.empty() && first.front() != '-') {
            std::cerr << "meshscope: unknown command '" << first << "'\n";
            print_usage(std::cerr);
            return exit_usage;
        }
    }
    return run_dashboard(argc, argv);
}

}  // namespace meshscope::app
