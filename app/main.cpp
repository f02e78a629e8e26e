// meshscope: the dashboard (no sub-command) and its sub-commands.
#include "commands/commands.h"

int main(int argc, char** argv) {
    return meshscope::app::dispatch(argc, argv);
}
