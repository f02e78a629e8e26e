// What every command does with its CLI11 parser and its usage errors, written once.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace meshscope::app {

// A command's usage error: "meshscope <command>: <message>" then the hint line on stderr, and exit_usage.
class Usage {
public:
    // hint: the line after the message; none given: "Run 'meshscope <command> --help' for usage."
    explicit Usage(std::string_view command, std::string hint = {});
    int operator()(std::string_view message) const;

private:
    std::string command_;
    std::string hint_;
};

// Parses argv into cli. nullopt: the command goes on; otherwise the exit status to return (--help printed: 0;
// a parse error: usage's message, exit_usage).
[[nodiscard]] std::optional<int> parse_or_usage(CLI::App& cli, int argc, char** argv, const Usage& usage);

}  // namespace meshscope::app
