#include "cli_support.h"

#include <iostream>

#include "commands.h"

namespace meshscope::app {

Usage::Usage(std::string_view command, std::string hint)
    : command_(command),
      hint_(hint.empty() ? "Run 'meshscope " + std::string(command) + " --help' for usage." : std::move(hint)) {}

int Usage::operator()(std::string_view message) const {
    std::cerr << "meshscope " << command_ << ": " << message << "\n" << hint_ << "\n";
    return exit_usage;
}

std::optional<int> parse_or_usage(CLI::App& cli, int argc, char** argv, const Usage& usage) {
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        return usage(e.what());
    }
    return std::nullopt;
}

}  // namespace meshscope::app
