#include "local_launch.h"

#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>

namespace meshscope::probe {

int launch_local(const std::string& program, const std::vector<std::string>& args, int ranks) {
    std::vector<pid_t> children;
    for (int r = 0; r < ranks; ++r) {
        const pid_t pid = fork();
        if (pid < 0) {
            std::perror("meshscope-probe: fork");
            break;
        }
        if (pid == 0) {
            setenv("RANK", std::to_string(r).c_str(), 1);
            setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
            setenv("WORLD_SIZE", std::to_string(ranks).c_str(), 1);
            setenv("LOCAL_WORLD_SIZE", std::to_string(ranks).c_str(), 1);
            std::vector<char*> argv;
            argv.push_back(const_cast<char*>(program.c_str()));
            for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            execv("/proc/self/exe", argv.data());
            std::perror("meshscope-probe: exec");
            _exit(127);
        }
        children.push_back(pid);
    }
    int worst = children.size() == static_cast<std::size_t>(ranks) ? 0 : 1;
    for (const pid_t pid : children) {
        int status = 0;
        if (waitpid(pid, &status, 0) < 0) continue;
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        worst = std::max(worst, code);
    }
    return worst;
}

}  // namespace meshscope::probe
