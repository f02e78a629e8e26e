// Tours: guided lessons that drive the real planner, Live page, sandbox and peers view (docs/tours.md).
// A tour is data (resources/tours/NAME.json, "meshscope.tour/1"); core reads it, and judges every answer a
// learner gives, so the desktop and the web teach the same thing with one implementation.
//
// Usage:
//   auto tour = meshscope::parse_tour(text).value();
//   auto verdict = meshscope::check_answer(tour.steps[2], nlohmann::json{{"rank", 7}}, {}).value();
//   if (!verdict.correct) show(verdict.message);
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/error.h"
#include "meshscope/finding.h"
#include "meshscope/topology.h"

namespace meshscope {

enum class TourPage { planner, live, sandbox, peers };
[[nodiscard]] std::string_view to_string(TourPage page) noexcept;

// Every anchor a step may name (docs/tours.md, "Anchors"); the front ends map each to a part of their screen.
[[nodiscard]] std::span<const std::string_view> tour_anchors() noexcept;

struct TourTask {
    std::string prompt;
    std::string hint;      // may be empty
    nlohmann::json check;  // {"kind": ..., fields}: validated by parse_tour
};

struct TourStep {
    std::string title;
    std::string text;
    TourPage page = TourPage::planner;
    nlohmann::json view;  // the whole "view" object, page included (validated by parse_tour)
    std::string anchor;   // empty: none
    std::optional<TourTask> task;
};

struct Tour {
    static constexpr std::string_view schema = "meshscope.tour/1";
    std::string name;
    std::string title;
    std::string summary;
    std::vector<TourStep> steps;
};

// ValueError naming the step (from 1) and the field: `step 3: task.check: unknown kind "rank_in_grup"`.
[[nodiscard]] Expected<Tour> parse_tour(std::string_view json_text);

// What the step's check needs beyond the step itself: the findings of the step's live job.
struct TourContext {
    std::vector<Finding> findings;
};

struct Verdict {
    bool correct = false;
    std::string message;  // right: what the learner found; wrong: why, without giving the answer away
};

// ValueError when the answer has the wrong shape for the check (`answer needs "rank", a non-negative integer`).
[[nodiscard]] Expected<Verdict> check_answer(const TourStep& step, const nlohmann::json& answer,
                                             const TourContext& context = {});

// The singleton pitfall's sandbox: one simulated process, replayed from its call history on core's ParallelState.
enum class SandboxOp { initialize, reset, relaunch };
struct SandboxCall {
    SandboxOp op = SandboxOp::initialize;
    std::int64_t dp = 1, cp = 1, ep = 1;  // initialize only
};
enum class SandboxOutcome { initialized, unchanged, reset, relaunched, error };
struct SandboxResult {
    SandboxOutcome outcome = SandboxOutcome::initialized;
    std::optional<Error> error;     // outcome error: the exact ValueError / RuntimeError
    std::optional<Topology> state;  // the parallel state after the call; empty when not initialized
};
[[nodiscard]] std::string_view to_string(SandboxOp op) noexcept;
[[nodiscard]] std::string_view to_string(SandboxOutcome outcome) noexcept;
// {"calls": [{"op": "initialize", "dp": 16, "cp": 1, "ep": 2}, {"op": "reset"}, ...]}; ValueError on a bad call.
[[nodiscard]] Expected<std::vector<SandboxCall>> read_sandbox_calls(const nlohmann::json& value);
[[nodiscard]] std::vector<SandboxResult> run_sandbox(std::span<const SandboxCall> calls);
// {"results": [{"op", "outcome", "error": {"type", "message"}?, "state": {"dp", "cp", "ep", "efsdp", "edp"}?}]}
[[nodiscard]] nlohmann::json to_json(std::span<const SandboxCall> calls, std::span<const SandboxResult> results);

}  // namespace meshscope
