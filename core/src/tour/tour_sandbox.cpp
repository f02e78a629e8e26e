// The singleton pitfall's sandbox: one simulated training process replayed from its call history on core's
// ParallelState (a fresh state per replay and per relaunch), so the web page can stay stateless and the
// desktop and the web show the same outcomes and FSDPTurbo's exact errors.
#include <memory>

#include "meshscope/mesh/parallel_state.h"
#include "meshscope/tour/tour.h"

namespace meshscope {

namespace {
using json = nlohmann::json;
// A learner clicks; a history longer than this is not a person's.
constexpr std::size_t max_calls = 1000;
}  // namespace

std::string_view to_string(SandboxOp op) noexcept {
    switch (op) {
        case SandboxOp::initialize: return "initialize";
        case SandboxOp::reset: return "reset";
        case SandboxOp::relaunch: return "relaunch";
    }
    return "?";
}

std::string_view to_string(SandboxOutcome outcome) noexcept {
    switch (outcome) {
        case SandboxOutcome::initialized: return "initialized";
        case SandboxOutcome::unchanged: return "unchanged";
        case SandboxOutcome::reset: return "reset";
        case SandboxOutcome::relaunched: return "relaunched";
        case SandboxOutcome::error: return "error";
    }
    return "?";
}

Expected<std::vector<SandboxCall>> read_sandbox_calls(const nlohmann::json& value) {
    if (!value.is_object() || !value.contains("calls") || !value.at("calls").is_array())
        return ValueError("answer needs \"calls\", an array of sandbox calls");
    const json& calls = value.at("calls");
    if (calls.size() > max_calls)
        return ValueError("calls: at most " + std::to_string(max_calls) + " calls, got " +
                          std::to_string(calls.size()));
    std::vector<SandboxCall> out;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const std::string where = "calls[" + std::to_string(i) + "]";
        const json& c = calls[i];
        if (!c.is_object() || !c.contains("op") || !c.at("op").is_string())
            return ValueError(where + ": needs \"op\": initialize, reset or relaunch");
        const std::string op = c.at("op").get<std::string>();
        SandboxCall call;
        if (op == "initialize") {
            call.op = SandboxOp::initialize;
            for (const auto& item : c.items())
                if (item.key() != "op" && item.key() != "dp" && item.key() != "cp" && item.key() != "ep")
                    return ValueError(where + ": unknown key \"" + item.key() + "\"");
            for (const char* key : {"dp", "cp", "ep"}) {
                if (!c.contains(key) || !c.at(key).is_number_integer())
                    return ValueError(where + "." + key + ": expected an integer");
            }
            call.dp = c.at("dp").get<std::int64_t>();
            call.cp = c.at("cp").get<std::int64_t>();
            call.ep = c.at("ep").get<std::int64_t>();
        } else if (op == "reset" || op == "relaunch") {
            call.op = op == "reset" ? SandboxOp::reset : SandboxOp::relaunch;
            if (c.size() != 1) return ValueError(where + ": " + op + " takes no arguments");
        } else {
            return ValueError(where + ": unknown op \"" + op + "\"");
        }
        out.push_back(call);
    }
    return out;
}

std::vector<SandboxResult> run_sandbox(std::span<const SandboxCall> calls) {
    // ParallelState holds a mutex (it is not movable): a relaunch is a new object, as a new process is.
    auto state = std::make_unique<ParallelState>();
    std::vector<SandboxResult> results;
    for (const SandboxCall& call : calls) {
        SandboxResult result;
        switch (call.op) {
            case SandboxOp::initialize: {
                ParallelContext context;
                context.dp_size = call.dp;
                context.cp_size = call.cp;
                const bool was = state->initialized();
                try {
                    state->initialize(context, ParallelConfig{call.ep});
                    result.outcome = was ? SandboxOutcome::unchanged : SandboxOutcome::initialized;
                } catch (const Error& e) {
                    result.outcome = SandboxOutcome::error;
                    result.error = e;
                }
                break;
            }
            case SandboxOp::reset:
                state->reset();
                result.outcome = SandboxOutcome::reset;
                break;
            case SandboxOp::relaunch:
                state = std::make_unique<ParallelState>();
                result.outcome = SandboxOutcome::relaunched;
                break;
        }
        result.state = state->topology();
        results.push_back(std::move(result));
    }
    return results;
}

nlohmann::json to_json(std::span<const SandboxCall> calls, std::span<const SandboxResult> results) {
    json out = json::array();
    for (std::size_t i = 0; i < results.size() && i < calls.size(); ++i) {
        const SandboxResult& r = results[i];
        json item = {{"op", std::string(to_string(calls[i].op))}, {"outcome", std::string(to_string(r.outcome))}};
        if (r.error)
            item["error"] = {{"type", std::string(python_name(r.error->type()))}, {"message", r.error->message()}};
        if (r.state)
            item["state"] = {{"dp", r.state->dp},
                             {"cp", r.state->cp},
                             {"ep", r.state->ep},
                             {"efsdp", r.state->efsdp},
                             {"edp", r.state->edp}};
        out.push_back(std::move(item));
    }
    return {{"results", std::move(out)}};
}

}  // namespace meshscope
