// meshscope-dashboard: the desktop window (Planner and Live pages). `meshscope` with no sub-command starts it.
#include "commands.h"

int main(int argc, char** argv) {
    return meshscope::app::run_gui(argc, argv);
}
