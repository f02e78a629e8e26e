// meshscope completion bash: a bash completion script. The commands come from the command table; a command's
// options from its own --help at completion time, so the script never drifts from the flags.
#include <iostream>
#include <string>
#include <string_view>

#include "command_table.h"
#include "commands.h"

namespace meshscope::app {

namespace {
constexpr const char* usage =
    "usage: meshscope completion bash   print a bash completion script\n"
    "  e.g. meshscope completion bash > /etc/bash_completion.d/meshscope\n"
    "       source <(meshscope completion bash)\n";

std::string bash_script() {
    std::string names;
    for (const auto& c : command_table()) names += std::string(names.empty() ? "" : " ") + std::string(c.name);
    return "# bash completion for meshscope (meshscope completion bash)\n"
           "_meshscope() {\n"
           "    local cur=${COMP_WORDS[COMP_CWORD]} words\n"
           "    if [[ $COMP_CWORD -eq 1 ]]; then\n"
           "        words=\"" +
           names +
           " --help --version\"\n"
           "    elif [[ $cur == -* ]]; then\n"
           "        words=$(\"${COMP_WORDS[0]}\" \"${COMP_WORDS[1]}\" --help 2>/dev/null"
           " | grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u)\n"
           "    else\n"
           "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
           "        return\n"
           "    fi\n"
           "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
           "}\n"
           "complete -o filenames -F _meshscope meshscope\n";
}
}  // namespace

int run_completion(int argc, char** argv) {
    const std::string_view shell = argc >= 2 ? std::string_view(argv[1]) : std::string_view();
    if (argc == 2 && (shell == "--help" || shell == "-h")) {
        std::cout << usage;
        return exit_ok;
    }
    if (argc == 2 && shell == "bash") {
        std::cout << bash_script();
        return exit_ok;
    }
    if (argc < 2) {
        std::cerr << "meshscope completion: give a shell (bash)\n" << usage;
    } else if (argc > 2) {
        std::cerr << "meshscope completion: one shell only, got " << argc - 1 << " arguments\n" << usage;
    } else {
        std::cerr << "meshscope completion: '" << shell << "' is not a shell it knows (bash)\n" << usage;
    }
    return exit_usage;
}

}  // namespace meshscope::app
