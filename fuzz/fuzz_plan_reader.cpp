// libFuzzer target: the meshscope.plan/1 reader, meshscope::plan_from_json, on arbitrary bytes parsed as JSON.
// Its callers are the event parser (an event's declared "plan") and the monitor (core/src/monitor/
// monitor_ingest.cpp), so it sees whatever a client sends.
//
// Checked for every accepted document, beyond "no crash, no leak, no UB":
//   - the plan keeps the document's dp, cp and ep, and its creation order when the document names one;
//   - writing the plan back (to_json, as `meshscope plan --format json` does) and reading that again gives
//     the same plan, written out identically.
// Refusals must carry a message that starts with "invalid plan: " or is Topology's / Placement's own text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/plan_json.h"

namespace {
// Writing a plan back lists every group and rank; beyond this world the round trip costs the fuzzer more time
// than it is worth (the reading itself is still fuzzed at any size).
constexpr std::int64_t max_round_trip_world = 4096;

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "fuzz_plan_reader: invariant broken: %s\n", what);
    std::abort();
}
void check(bool ok, const char* what) {
    if (!ok) fail(what);
}

void check_accepted(const nlohmann::json& document, const meshscope::Plan& plan) {
    const auto& topology = document.at("topology");
    check(topology.at("dp").get<std::int64_t>() == plan.topology().dp, "plan keeps dp");
    check(topology.at("cp").get<std::int64_t>() == plan.topology().cp, "plan keeps cp");
    check(topology.at("ep").get<std::int64_t>() == plan.topology().ep, "plan keeps ep");
    if (const auto order = document.find("creation_order"); order != document.end())
        check(order->get<std::string>() == meshscope::to_string(plan.order()), "plan keeps creation_order");
    if (plan.topology().world() > max_round_trip_world) return;

    const nlohmann::json written = meshscope::to_json(plan);
    const auto again = meshscope::plan_from_json(written);
    check(again.has_value(), "plan_from_json(to_json(plan)) is accepted");
    check(meshscope::to_json(*again) == written, "to_json(plan_from_json(to_json(plan))) == to_json(plan)");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // Without exceptions: text that is not JSON comes back discarded, and is not the plan reader's business.
    const auto document = nlohmann::json::parse(data, data + size, nullptr, false);
    if (document.is_discarded()) return 0;
    const auto plan = meshscope::plan_from_json(document);
    if (!plan) {
        const std::string message = plan.error().message();
        check(!message.empty(), "a refusal has a message");
        (void)nlohmann::json(message).dump();  // valid UTF-8, or this throws and the fuzzer reports it
        return 0;
    }
    check_accepted(document, *plan);
    return 0;
}
