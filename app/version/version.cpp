#include "version.h"

#include "meshscope_version_info.h"

namespace meshscope::app {

std::string version_line(std::string_view program) {
    return std::string(program) + " " + MESHSCOPE_VERSION + " (commit " + MESHSCOPE_COMMIT + ")";
}

}  // namespace meshscope::app
