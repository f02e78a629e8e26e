#include "meshscope/monitor/event.h"

#include <array>

namespace meshscope {

namespace {
constexpr std::array<std::string_view, phase_count> phase_names = {
    "launch", "process_group", "device_mesh", "parallel_state", "communicator", "ready", "heartbeat", "error", "exit",
};
constexpr std::array<std::string_view, 3> status_names = {"started", "done", "failed"};
}  // namespace

std::string_view to_string(Phase phase) noexcept {
    return phase_names[static_cast<std::size_t>(phase)];
}
std::string_view to_string(Status status) noexcept {
    return status_names[static_cast<std::size_t>(status)];
}

std::optional<Phase> parse_phase(std::string_view text) noexcept {
    for (std::size_t i = 0; i < phase_names.size(); ++i)
        if (phase_names[i] == text) return static_cast<Phase>(i);
    return std::nullopt;
}

std::optional<Status> parse_status(std::string_view text) noexcept {
    for (std::size_t i = 0; i < status_names.size(); ++i)
        if (status_names[i] == text) return static_cast<Status>(i);
    return std::nullopt;
}

std::string ReportedTopology::tuple_string() const {
    // Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict) on "(" + std::to_string(...).
    std::string out = "(";
    out += std::to_string(dp);
    out += ", ";
    out += std::to_string(cp);
    out += ", ";
    out += std::to_string(ep);
    out += ")";
    return out;
}

}  // namespace meshscope
