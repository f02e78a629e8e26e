// check_answer: every check kind of docs/tours.md judged on core's own plan, placement, parallel state and peer
// layouts, so the desktop and the web agree. A wrong answer's message shows what the learner's own answer
// means (the group of the rank they picked, the position they named), never the right answer.
#include <algorithm>

#include "meshscope/mesh/peer_layout.h"
#include "meshscope/mesh/plan.h"
#include "meshscope/tour/tour.h"
#include "tour_internal.h"

namespace meshscope {

namespace {
using json = nlohmann::json;

std::string group_text(std::span<const std::int64_t> ranks) {
    std::string out = "[";
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (i == 16) return out + ", ... (" + std::to_string(ranks.size()) + " ranks)]";
        out += (i ? ", " : "") + std::to_string(ranks[i]);
    }
    return out + "]";
}

std::string nodes_text(std::span<const std::int64_t> ranks, const Placement& placement) {
    std::vector<std::int64_t> nodes;
    for (auto r : ranks)
        if (nodes.empty() || nodes.back() != placement.node_of(r)) nodes.push_back(placement.node_of(r));
    std::string out = nodes.size() == 1 ? "node " : "nodes ";
    for (std::size_t i = 0; i < nodes.size(); ++i) out += (i ? ", " : "") + std::to_string(nodes[i]);
    return out;
}

Expected<std::int64_t> answer_integer(const json& answer, const char* key) {
    if (!answer.is_object() || !answer.contains(key) || !answer.at(key).is_number_integer() ||
        answer.at(key).get<std::int64_t>() < 0)
        return ValueError(std::string("answer needs \"") + key + "\", a non-negative integer");
    return answer.at(key).get<std::int64_t>();
}

Verdict right(std::string message) {
    return {true, "Right: " + std::move(message)};
}
Verdict wrong(std::string message) {
    return {false, std::move(message)};
}

std::optional<Verdict> outside(std::int64_t rank, std::int64_t world) {
    if (rank < world) return std::nullopt;
    return wrong("there is no rank " + std::to_string(rank) + ": this job has " + std::to_string(world) +
                 " ranks, 0 to " + std::to_string(world - 1) + ".");
}

// The step's plan and the check's mesh and dim in it (parse_tour made sure they exist).
struct Target {
    Plan plan;
    std::string mesh_name;
    std::string dim_name;
    std::size_t dim = 0;
    [[nodiscard]] const PlanMesh& mesh() const { return *plan.mesh(mesh_name); }
};
Target target_of(const TourStep& step, const json& check) {
    Target t{tour::planner_plan(step.planner).value(), check.at("mesh").get<std::string>(),
             check.at("dim").get<std::string>()};
    t.dim = t.mesh().mesh.dim_index(t.dim_name).value();
    return t;
}

Expected<Verdict> rank_in_group(const TourStep& step, const json& check, const json& answer) {
    const auto rank = answer_integer(answer, "rank");
    if (!rank) return rank.error();
    const Target t = target_of(step, check);
    if (auto v = outside(*rank, t.plan.topology().world())) return *v;
    const std::int64_t of = check.at("of").get<std::int64_t>();
    const bool not_self = check.value("not_self", true);
    const std::string of_name = "rank " + std::to_string(of);
    if (not_self && *rank == of)
        return wrong("that is " + of_name + " itself; find another member of its " + t.dim_name + " group.");
    const auto group = t.mesh().mesh.group_of(*rank, t.dim);
    const std::string who = "rank " + std::to_string(*rank) + "'s " + t.dim_name + " group is " + group_text(group);
    if (std::find(group.begin(), group.end(), of) == group.end())
        return wrong(who + "; it does not contain " + of_name + ".");
    if (*rank == of) return right(who + ".");
    return right("rank " + std::to_string(*rank) + " shares " + of_name + "'s " + t.dim_name + " group " +
                 group_text(group) + ".");
}

Expected<Verdict> rank_leaves_node(const TourStep& step, const json& check, const json& answer) {
    const auto rank = answer_integer(answer, "rank");
    if (!rank) return rank.error();
    const Target t = target_of(step, check);
    if (auto v = outside(*rank, t.plan.topology().world())) return *v;
    const auto group = t.mesh().mesh.group_of(*rank, t.dim);
    const std::string who = "rank " + std::to_string(*rank) + "'s " + t.dim_name + " group " + group_text(group);
    const std::string nodes = nodes_text(group, t.plan.placement());
    if (leaves_node(group, t.plan.placement())) return right(who + " spans " + nodes + ".");
    return wrong(who + " stays on " + nodes + ".");
}

Expected<Verdict> count(const TourStep& step, const json& check, const json& answer) {
    const auto number = answer_integer(answer, "number");
    if (!number) return number.error();
    const Target t = target_of(step, check);
    const DimSpan& span = t.mesh().spans.at(t.dim);
    const std::string what = check.at("what").get<std::string>();
    const std::string of_mesh = "the " + t.mesh().name + " mesh";
    std::int64_t expected = 0;
    std::string said;
    if (what == "groups") {
        expected = span.groups;
        said = of_mesh + " has " + std::to_string(expected) + " " + t.dim_name + " groups.";
    } else if (what == "group_size") {
        expected = span.group_size;
        said = "every " + t.dim_name + " group of " + of_mesh + " has " + std::to_string(expected) +
               (expected == 1 ? " rank." : " ranks.");
    } else {
        expected = span.cross_node_groups;
        said = std::to_string(expected) + " of " + of_mesh + "'s " + std::to_string(span.groups) + " " + t.dim_name +
               " groups leave a node.";
    }
    if (*number == expected) return right(said);
    return wrong(std::to_string(*number) + " is too " + (*number > expected ? "high" : "low") + ".");
}

Expected<Verdict> layout(const TourStep& step, const json& check, const json& answer) {
    const auto bad = ValueError(
        "answer needs \"layout\", an object with dp, cp and ep (and gpus_per_node), each a positive integer");
    if (!answer.is_object() || !answer.contains("layout") || !answer.at("layout").is_object()) return bad;
    const json& l = answer.at("layout");
    for (const auto& item : l.items())
        if (item.key() != "dp" && item.key() != "cp" && item.key() != "ep" && item.key() != "gpus_per_node") return bad;
    auto field = [&](const char* key, std::optional<std::int64_t> fallback) -> std::optional<std::int64_t> {
        if (!l.contains(key)) return fallback;
        if (!l.at(key).is_number_integer()) return std::nullopt;
        return l.at(key).get<std::int64_t>();
    };
    const auto dp = field("dp", std::nullopt), cp = field("cp", std::nullopt), ep = field("ep", std::nullopt);
    const auto gpus = field("gpus_per_node", step.planner.gpus_per_node);
    if (!dp || !cp || !ep || !gpus) return bad;
    if (check.contains("gpus_per_node") && *gpus != check.at("gpus_per_node").get<std::int64_t>())
        return wrong("the task is set on nodes of " + std::to_string(check.at("gpus_per_node").get<std::int64_t>()) +
                     " GPUs, not " + std::to_string(*gpus) + ".");

    auto topology = Topology::make(*dp, *cp, *ep);
    if (!topology) return wrong("core refuses this layout: " + topology.error().message());
    if (topology->world() > 4096) return wrong("keep the world at 4096 ranks or fewer for this task.");
    auto plan = Plan::make(*topology, *gpus, step.planner.order);
    if (!plan) return wrong("core refuses this layout: " + plan.error().message());
    const std::string shape = "(dp, cp, ep) = " + topology->tuple_string();
    for (const auto* key : {"world", "cp", "ep"}) {
        if (!check.contains(key)) continue;
        const std::int64_t want = check.at(key).get<std::int64_t>();
        const std::int64_t got = std::string_view(key) == "world" ? topology->world()
                                 : std::string_view(key) == "cp"  ? topology->cp
                                                                  : topology->ep;
        if (got != want)
            return wrong(shape + " has " + key + " " + std::to_string(got) + "; the task asks for " + key + " " +
                         std::to_string(want) + ".");
    }
    if (check.contains("inside_node")) {
        const std::string dim = check.at("inside_node").get<std::string>();
        const PlanMesh* expert = plan->mesh("expert");
        if (!expert) return wrong(shape + " builds no expert mesh (ep = 1), so it has no " + dim + " groups.");
        const std::size_t d = expert->mesh.dim_index(dim).value();
        const DimSpan& span = expert->spans.at(d);
        if (span.cross_node_groups > 0)
            return wrong(shape + " with " + std::to_string(*gpus) +
                         " GPUs per node: " + std::to_string(span.cross_node_groups) + " of its " +
                         std::to_string(span.groups) + " " + dim + " groups leave a node.");
        return right(shape + " with " + std::to_string(*gpus) + " GPUs per node keeps every " + dim +
                     " group inside one node.");
    }
    return right(shape + " is a layout core accepts.");
}

Expected<Verdict> creation_index(const TourStep& step, const json& check, const json& answer) {
    const auto number = answer_integer(answer, "number");
    if (!number) return number.error();
    const Target t = target_of(step, check);
    const std::int64_t of = check.at("of").get<std::int64_t>();
    const CreationOrder order = *parse_creation_order(check.at("order").get<std::string>());
    const std::string order_name(to_string(order));
    const DeviceMesh& mesh = t.mesh().mesh;
    const std::int64_t count = mesh.group_count(t.dim);
    const std::string group = group_text(mesh.group_of(of, t.dim));
    if (*number >= count)
        return wrong("the " + t.mesh().name + " mesh has only " + std::to_string(count) + " " + t.dim_name +
                     " groups, created at positions 0 to " + std::to_string(count - 1) + ".");
    if (mesh.group_index(of, t.dim, order) == *number)
        return right("in " + order_name + " order rank " + std::to_string(of) + "'s " + t.dim_name + " group " + group +
                     " is created at position " + std::to_string(*number) + ".");
    return wrong("in " + order_name + " order position " + std::to_string(*number) + " creates " +
                 group_text(mesh.group(t.dim, *number, order)) + ", not rank " + std::to_string(of) + "'s " +
                 t.dim_name + " group " + group + ".");
}

Expected<Verdict> finding_rank(const json& check, const json& answer, const TourContext& context) {
    const auto rank = answer_integer(answer, "rank");
    if (!rank) return rank.error();
    const std::string kind = check.at("finding").get<std::string>();
    const FindingKind k = *parse_finding_kind(kind);
    bool any = false;
    for (const Finding& f : context.findings) {
        if (f.kind != k) continue;
        any = true;
        if (std::find(f.ranks.begin(), f.ranks.end(), *rank) != f.ranks.end())
            return right("rank " + std::to_string(*rank) + " is named by the " + kind + " finding: " + f.message + ".");
    }
    if (!any) return wrong("the job has no " + kind + " finding yet; wait until the findings list shows one.");
    return wrong("rank " + std::to_string(*rank) + " is not one of the ranks of the " + kind + " finding.");
}

Expected<Verdict> sandbox(const json& check, const json& answer) {
    auto calls = read_sandbox_calls(answer);
    if (!calls) return calls.error();
    if (calls->empty()) return wrong("the sandbox has made no call yet.");
    const auto results = run_sandbox(*calls);
    const std::string expect = check.at("expect").get<std::string>();
    const SandboxResult& last = results.back();
    const std::string got = last.outcome == SandboxOutcome::error ? std::string(python_name(last.error->type()))
                                                                  : std::string(to_string(last.outcome));
    if (got != expect) return wrong("the last call's outcome is " + got + ", not " + expect + ".");
    if (check.contains("after")) {
        const std::string after = check.at("after").get<std::string>();
        std::optional<std::size_t> failed;
        for (std::size_t i = 0; i < results.size(); ++i)
            if (results[i].outcome == SandboxOutcome::error) failed = i;
        if (!failed) return wrong("no call has failed yet: first reproduce the error, then fix it.");
        bool came = false;
        for (std::size_t i = *failed + 1; i < calls->size(); ++i) came = came || to_string((*calls)[i].op) == after;
        if (!came)
            return wrong("the last call's outcome is " + got + ", but no " + after +
                         " came after the last failed call.");
        return right(expect + " after a " + after + " that followed the failed call.");
    }
    if (last.outcome == SandboxOutcome::error) return right(got + ": " + last.error->message());
    return right("the last call's outcome is " + got + ".");
}

Expected<Verdict> peer_group(const TourStep& step, const json& check, const json& answer) {
    const auto rank = answer_integer(answer, "rank");
    if (!rank) return rank.error();
    if (auto v = outside(*rank, step.peers.world)) return *v;
    const std::string framework = check.at("framework").get<std::string>();
    const std::int64_t of = check.at("of").get<std::int64_t>();
    if (*rank == of)
        return wrong("that is rank " + std::to_string(of) + " itself; find another member of its ep group.");
    const auto layout = peer_layout(*parse_framework(framework), {.world = step.peers.world,
                                                                  .cp = step.peers.cp,
                                                                  .ep = step.peers.ep,
                                                                  .gpus_per_node = step.peers.gpus_per_node});
    if (!layout) return layout.error();
    const std::string in = "in " + tour::framework_title(framework) + "'s layout ";
    const std::string of_name = "rank " + std::to_string(of);
    for (const auto& group : layout->dim("ep")->groups) {
        if (std::find(group.begin(), group.end(), *rank) == group.end()) continue;
        if (std::find(group.begin(), group.end(), of) == group.end())
            return wrong(in + "rank " + std::to_string(*rank) + "'s ep group is " + group_text(group) +
                         "; it does not contain " + of_name + ".");
        return right(in + "rank " + std::to_string(*rank) + " shares " + of_name + "'s ep group " + group_text(group) +
                     ".");
    }
    return wrong(in + "rank " + std::to_string(*rank) + " is in no ep group.");
}

Expected<Verdict> choice(const json& check, const json& answer) {
    const auto index = answer_integer(answer, "choice");
    if (!index) return index.error();
    const json& options = check.at("options");
    if (*index >= static_cast<std::int64_t>(options.size()))
        return ValueError("answer needs \"choice\", an option index from 0 to " + std::to_string(options.size() - 1));
    const std::string text = options.at(*index).get<std::string>();
    if (*index == check.at("correct").get<std::int64_t>()) return right("\"" + text + "\".");
    return wrong("not \"" + text + "\"; read the step again and try another answer.");
}

}  // namespace

nlohmann::json to_json(const Verdict& verdict) {
    return {{"correct", verdict.correct}, {"message", verdict.message}};
}

Expected<Verdict> check_answer(const TourStep& step, const nlohmann::json& answer, const TourContext& context) {
    if (!step.task) return ValueError("this step has no task");
    const json& check = step.task->check;
    const std::string kind = check.at("kind").get<std::string>();
    if (kind == "rank_in_group") return rank_in_group(step, check, answer);
    if (kind == "rank_leaves_node") return rank_leaves_node(step, check, answer);
    if (kind == "count") return count(step, check, answer);
    if (kind == "layout") return layout(step, check, answer);
    if (kind == "creation_index") return creation_index(step, check, answer);
    if (kind == "finding_rank") return finding_rank(check, answer, context);
    if (kind == "sandbox") return sandbox(check, answer);
    if (kind == "peer_group") return peer_group(step, check, answer);
    return choice(check, answer);
}

}  // namespace meshscope
