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

#include "meshscope/mesh/device_mesh.h"
#include "meshscope/mesh/error.h"
#include "meshscope/mesh/topology.h"
#include "meshscope/monitor/finding.h"

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

// The planner's inputs in effect at a step: the step's view over the earlier steps' views (a field a view leaves
// out is unchanged), over the defaults below. What a check judges, and what a front end sets up to resume at
// step K.
struct TourPlannerState {
    std::optional<std::int64_t> dp;     // exactly one of dp and world is set; a view giving one clears the other
    std::optional<std::int64_t> world;  // dp = world / cp
    std::int64_t cp = 1;
    std::int64_t ep = 1;
    std::int64_t gpus_per_node = 8;
    CreationOrder order = CreationOrder::torch29;
    std::string mesh = "expert";       // "model", "data" or "expert"
    std::optional<std::int64_t> rank;  // the selected rank
    [[nodiscard]] std::int64_t dp_size() const noexcept { return dp ? *dp : *world / cp; }
};

// The peers view in effect at a step (carried over like the planner's).
struct TourPeersState {
    std::int64_t world = 16;
    std::int64_t cp = 1;
    std::int64_t ep = 2;
    std::int64_t gpus_per_node = 8;
    std::optional<std::int64_t> rank;
};

// The job of the last live view with "simulate" or "records" (the Live page keeps showing it): a simulated job, or a
// shipped fault job's records (resources/hang-jobs) diagnosed on the plan (dp, cp, ep) and imported.
struct TourJob {
    std::int64_t dp = 8;
    std::int64_t cp = 1;
    std::int64_t ep = 1;
    std::int64_t gpus_per_node = 8;
    std::string faults;   // `meshscope simulate --faults` form
    std::string records;  // a shipped fault job ("skip"): its records, not a simulation
};

struct TourStep {
    std::string title;
    std::string text;
    TourPage page = TourPage::planner;
    nlohmann::json view;  // the whole "view" object, page included (validated by parse_tour)
    std::string anchor;   // empty: none
    std::optional<TourTask> task;
    // A finding kind whose core text the step shows beside its own ("finding_text": "reinit_mismatch"), so a
    // tour explains a pitfall in the findings' words; empty: none. See tour_finding().
    std::string finding_text;
    TourPlannerState planner;    // resolved by parse_tour
    TourPeersState peers;        // resolved by parse_tour
    std::optional<TourJob> job;  // resolved by parse_tour; empty until a live view simulates or imports one
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

// The tour with what parse_tour resolved per step, for the web page (docs/tours.md, "The resolved tour"):
// {"schema", "name", "title", "summary", "steps": [{"title", "text", "page", "view", "anchor"?, "task"?,
// "planner", "peers", "job"?, "finding_text"?, "finding"? (core's worked example)}]}.
[[nodiscard]] nlohmann::json to_json(const Tour& tour);

// What the step's check needs beyond the step itself: the findings of the step's live job.
struct TourContext {
    std::vector<Finding> findings;
};

struct Verdict {
    bool correct = false;
    std::string message;  // right: what the learner found; wrong: why, without giving the answer away
};
// {"correct": bool, "message": text}: what POST /api/v1/tours/NAME/steps/K/check answers.
[[nodiscard]] nlohmann::json to_json(const Verdict& verdict);

// ValueError when the answer has the wrong shape for the check (`answer needs "rank", a non-negative integer`).
[[nodiscard]] Expected<Verdict> check_answer(const TourStep& step, const nlohmann::json& answer,
                                             const TourContext& context = {});

// The finding a step's "finding_text" names, in core's words: the first finding of that kind in the context (the
// step's live job) or else core's worked example of the kind (docs/tours.md lists them); nullopt when the step
// names none, or the kind has no example and the job has no such finding yet.
[[nodiscard]] std::optional<Finding> tour_finding(const TourStep& step, const TourContext& context = {});

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
