// tour_finding: a tour explains a pitfall in the findings' own words (core's finding texts), never a second
// wording of the same fact. A live step shows the job's real finding; any other step core's worked example.
#include "meshscope/monitor/finding_text.h"
#include "meshscope/tour/tour.h"

namespace meshscope {

namespace {
// The examples of docs/findings.md, built by the same functions the monitor uses (the singleton pitfall's
// tuples are the tour's own).
std::optional<Finding> example(FindingKind kind) {
    switch (kind) {
        case FindingKind::reinit_mismatch: return monitor::reinit_mismatch(0, "(16, 1, 2)", "(16, 1, 4)");
        case FindingKind::missing_rank: return monitor::missing_rank({2}, 4, 30);
        case FindingKind::stale_rank: return monitor::stale_rank({4}, 60);
        case FindingKind::straggler: return monitor::straggler(Phase::communicator, {{13, 12.0, false}}, 1.0, 16);
        default: return std::nullopt;
    }
}
}  // namespace

std::optional<Finding> tour_finding(const TourStep& step, const TourContext& context) {
    if (step.finding_text.empty()) return std::nullopt;
    const auto kind = parse_finding_kind(step.finding_text);
    if (!kind) return std::nullopt;
    for (const Finding& f : context.findings)
        if (f.kind == *kind) return f;
    return example(*kind);
}

}  // namespace meshscope
