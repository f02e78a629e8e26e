// parse_tour: a tour file is refused whole, with the step (from 1) and the field named, so a typo in a shipped
// tour fails the test command rather than a learner's screen. Each step's planner, peers and job state is
// resolved here (a view's absent fields are unchanged), and every view is built once with core's own checks.
#include <algorithm>
#include <array>

#include "meshscope/mesh/json_limits.h"
#include "meshscope/mesh/peer_layout.h"
#include "meshscope/mesh/plan.h"
#include "meshscope/tour/tour.h"
#include "tour_internal.h"

namespace meshscope {

namespace {
constexpr std::array<std::string_view, 4> page_names = {"planner", "live", "sandbox", "peers"};
constexpr std::array<std::string_view, 12> anchor_names = {
    "planner.inputs", "planner.mesh",  "planner.order", "planner.grid",  "planner.inspector", "live.progress",
    "live.grid",      "live.findings", "live.rank",     "sandbox.calls", "sandbox.state",     "peers.layouts"};
// A tour is read by people one rank at a time: a world beyond this is a typo, and keeps every check cheap.
constexpr std::int64_t max_tour_world = 4096;

using json = nlohmann::json;
using tour::Fail;

std::string in_quotes(std::string_view text) {
    return "\"" + std::string(text) + "\"";
}

// Field readers: `where` is the prefix of every message ("step 3: task.check"), `key` the field.
class Reader {
public:
    Reader(const json& object, std::string where, std::string path)
        : object_(object), where_(std::move(where)), path_(std::move(path)) {}

    [[nodiscard]] std::string field(std::string_view key) const {
        return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
    }
    [[noreturn]] void fail(std::string_view key, const std::string& what) const {
        throw Fail(where_ + field(key) + ": " + what);
    }
    [[noreturn]] void fail_here(const std::string& what) const {
        throw Fail(where_ + (path_.empty() ? std::string() : path_ + ": ") + what);
    }
    void allow_only(std::initializer_list<std::string_view> keys) const {
        for (const auto& item : object_.items()) {
            bool known = false;
            for (auto k : keys) known = known || item.key() == k;
            if (!known) fail_here("unknown key " + in_quotes(item.key()));
        }
    }
    [[nodiscard]] bool has(std::string_view key) const { return object_.contains(std::string(key)); }
    [[nodiscard]] const json& at(std::string_view key) const { return object_.at(std::string(key)); }

    [[nodiscard]] std::string text(std::string_view key, bool required = true) const {
        if (!has(key)) {
            if (required) fail(key, "missing");
            return {};
        }
        if (!at(key).is_string()) fail(key, "expected a string");
        const auto value = at(key).get<std::string>();
        if (required && value.empty()) fail(key, "empty");
        return value;
    }
    [[nodiscard]] std::optional<std::int64_t> integer(std::string_view key, std::int64_t min, bool required) const {
        if (!has(key)) {
            if (required) fail(key, "missing");
            return std::nullopt;
        }
        const json& v = at(key);
        if (!v.is_number_integer() || v.get<std::int64_t>() < min)
            fail(key, min == 0 ? "expected a non-negative integer" : "expected a positive integer");
        return v.get<std::int64_t>();
    }
    template <std::size_t N>
    [[nodiscard]] std::string one_of(std::string_view key, const std::array<std::string_view, N>& names,
                                     std::string_view what, bool required = true) const {
        const std::string value = text(key, required);
        if (value.empty() && !required) return value;
        for (auto n : names)
            if (n == value) return value;
        fail(key, "unknown " + std::string(what) + " " + in_quotes(value));
    }
    [[nodiscard]] const json& object(std::string_view key) const {
        if (!has(key)) fail(key, "missing");
        if (!at(key).is_object()) fail(key, "expected an object");
        return at(key);
    }

private:
    const json& object_;
    std::string where_;
    std::string path_;
};

constexpr std::array<std::string_view, 3> mesh_names = {"model", "data", "expert"};
constexpr std::array<std::string_view, 2> order_names = {"torch29", "torch28"};

void read_planner_view(const Reader& view, TourPlannerState& state) {
    view.allow_only({"page", "dp", "world", "cp", "ep", "gpus_per_node", "order", "mesh", "rank"});
    if (view.has("dp") && view.has("world")) view.fail_here("give dp or world, not both");
    if (auto dp = view.integer("dp", 1, false)) {
        state.dp = dp;
        state.world.reset();
    }
    if (auto world = view.integer("world", 1, false)) {
        state.world = world;
        state.dp.reset();
    }
    if (auto cp = view.integer("cp", 1, false)) state.cp = *cp;
    if (auto ep = view.integer("ep", 1, false)) state.ep = *ep;
    if (auto g = view.integer("gpus_per_node", 1, false)) state.gpus_per_node = *g;
    if (auto order = view.one_of("order", order_names, "order", false); !order.empty())
        state.order = *parse_creation_order(order);
    if (auto mesh = view.one_of("mesh", mesh_names, "mesh", false); !mesh.empty()) state.mesh = mesh;
    if (auto rank = view.integer("rank", 0, false)) state.rank = rank;
}

void read_peers_view(const Reader& view, TourPeersState& state) {
    view.allow_only({"page", "world", "cp", "ep", "gpus_per_node", "rank"});
    if (auto world = view.integer("world", 1, false)) state.world = *world;
    if (auto cp = view.integer("cp", 1, false)) state.cp = *cp;
    if (auto ep = view.integer("ep", 1, false)) state.ep = *ep;
    if (auto g = view.integer("gpus_per_node", 1, false)) state.gpus_per_node = *g;
    if (auto rank = view.integer("rank", 0, false)) state.rank = rank;
}

// The topology of a planner state, core's own checks and messages; the tour's world bound on top.
Expected<Topology> planner_topology(const TourPlannerState& state) {
    const std::int64_t world = state.world ? *state.world : *state.dp * state.cp;
    if (world > max_tour_world)
        return ValueError("a tour's world is at most " + std::to_string(max_tour_world) + " ranks, got " +
                          std::to_string(world));
    return state.world ? Topology::from_world(*state.world, state.cp, state.ep)
                       : Topology::make(*state.dp, state.cp, state.ep);
}

}  // namespace

std::string_view to_string(TourPage page) noexcept {
    return page_names[static_cast<std::size_t>(page)];
}

std::span<const std::string_view> tour_anchors() noexcept {
    return anchor_names;
}

namespace tour {

Expected<Plan> planner_plan(const TourPlannerState& state) {
    auto topology = planner_topology(state);
    if (!topology) return topology.error();
    return Plan::make(*topology, state.gpus_per_node, state.order);
}

std::vector<std::string> mesh_dims(std::string_view mesh) {
    if (mesh == "model") return {std::string(mp_replicate_dim), std::string(mp_shard_dim)};
    if (mesh == "data") return {"dp", "cp"};
    return {"edp", "efsdp", "ep", "expert_cp"};
}

std::string framework_title(std::string_view framework) {
    if (framework == "fsdpturbo") return "FSDPTurbo";
    if (framework == "torchtitan") return "TorchTitan";
    return "Megatron-Core";
}

}  // namespace tour

namespace {

std::string dims_text(const std::vector<std::string>& dims) {
    std::string out = "(";
    for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + dims[i];
    return out + ")";
}

// The check's fields for its kind (docs/tours.md, "Checks"), against the step's resolved state.
// long: one branch per check kind (9), each reading that kind's fields
void read_check(const Reader& check, const TourStep& step, const std::optional<Plan>& plan) {
    static constexpr std::array<std::string_view, 9> kinds = {"rank_in_group", "rank_leaves_node", "count",
                                                              "layout",        "creation_index",   "finding_rank",
                                                              "sandbox",       "peer_group",       "choice"};
    // The kind names the check, so its messages name the check ("task.check: unknown kind ...").
    const std::string kind = check.text("kind");
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) check.fail_here("unknown kind " + in_quotes(kind));
    auto needs_page = [&](TourPage page) {
        if (step.page != page)
            check.fail_here(kind + " needs a " + std::string(to_string(page)) + " view, not " +
                            std::string(to_string(step.page)));
    };
    auto rank_field = [&](std::string_view key, std::int64_t world) {
        const std::int64_t r = *check.integer(key, 0, true);
        if (r >= world)
            check.fail(key,
                       "rank " + std::to_string(r) + " is outside the world of " + std::to_string(world) + " ranks");
    };
    // mesh + dim, with the expert mesh present in the step's plan.
    auto mesh_dim = [&]() {
        const std::string mesh = check.one_of("mesh", mesh_names, "mesh");
        const std::string dim = check.text("dim");
        const auto dims = tour::mesh_dims(mesh);
        if (std::find(dims.begin(), dims.end(), dim) == dims.end())
            check.fail("dim", in_quotes(dim) + " is not a dim of the " + mesh + " mesh " + dims_text(dims));
        if (!plan->mesh(mesh))
            check.fail("mesh",
                       "the expert mesh needs ep > 1 (this step has ep = " + std::to_string(plan->topology().ep) + ")");
    };
    if (kind == "rank_in_group") {
        needs_page(TourPage::planner);
        check.allow_only({"kind", "mesh", "dim", "of", "not_self"});
        mesh_dim();
        rank_field("of", plan->topology().world());
        if (check.has("not_self") && !check.at("not_self").is_boolean())
            check.fail("not_self", "expected true or false");
    } else if (kind == "rank_leaves_node") {
        needs_page(TourPage::planner);
        check.allow_only({"kind", "mesh", "dim"});
        mesh_dim();
    } else if (kind == "count") {
        needs_page(TourPage::planner);
        check.allow_only({"kind", "mesh", "dim", "what"});
        mesh_dim();
        static constexpr std::array<std::string_view, 3> whats = {"groups", "group_size", "cross_node_groups"};
        (void)check.one_of("what", whats, "count");
    } else if (kind == "layout") {
        needs_page(TourPage::planner);
        check.allow_only({"kind", "world", "cp", "ep", "gpus_per_node", "inside_node"});
        const bool any = check.has("world") || check.has("cp") || check.has("ep");
        (void)check.integer("world", 1, false);
        (void)check.integer("cp", 1, false);
        (void)check.integer("ep", 1, false);
        (void)check.integer("gpus_per_node", 1, false);
        if (!any) check.fail_here("a layout check needs world, cp or ep");
        static constexpr std::array<std::string_view, 4> expert = {"edp", "efsdp", "ep", "expert_cp"};
        (void)check.one_of("inside_node", expert, "expert mesh dim", false);
    } else if (kind == "creation_index") {
        needs_page(TourPage::planner);
        check.allow_only({"kind", "mesh", "dim", "of", "order"});
        mesh_dim();
        rank_field("of", plan->topology().world());
        (void)check.one_of("order", order_names, "order");
    } else if (kind == "finding_rank") {
        needs_page(TourPage::live);
        check.allow_only({"kind", "finding"});
        const std::string finding = check.text("finding");
        if (!parse_finding_kind(finding)) check.fail("finding", "unknown finding kind " + in_quotes(finding));
        if (!step.job) check.fail_here("finding_rank needs a live job (view.simulate or view.records)");
    } else if (kind == "sandbox") {
        needs_page(TourPage::sandbox);
        check.allow_only({"kind", "expect", "after"});
        static constexpr std::array<std::string_view, 4> expects = {"initialized", "unchanged", "RuntimeError",
                                                                    "ValueError"};
        (void)check.one_of("expect", expects, "outcome");
        static constexpr std::array<std::string_view, 2> afters = {"reset", "relaunch"};
        (void)check.one_of("after", afters, "op", false);
    } else if (kind == "peer_group") {
        needs_page(TourPage::peers);
        check.allow_only({"kind", "framework", "of"});
        static constexpr std::array<std::string_view, 3> frameworks = {"fsdpturbo", "torchtitan", "megatron"};
        (void)check.one_of("framework", frameworks, "framework");
        rank_field("of", step.peers.world);
    } else {  // choice
        check.allow_only({"kind", "options", "correct"});
        if (!check.has("options")) check.fail("options", "missing");
        const json& options = check.at("options");
        if (!options.is_array() || options.size() < 2) check.fail("options", "expected at least two texts");
        for (const auto& o : options)
            if (!o.is_string() || o.get<std::string>().empty()) check.fail("options", "expected at least two texts");
        const std::int64_t correct = *check.integer("correct", 0, true);
        if (correct >= static_cast<std::int64_t>(options.size()))
            check.fail("correct", "index " + std::to_string(correct) + " is past the last option (" +
                                      std::to_string(options.size() - 1) + ")");
    }
}

// long: a step's fields read and checked in the order docs/tours.md lists them, one branch per page
TourStep read_step(const json& value, std::size_t number, const TourStep* previous) {
    const std::string where = "step " + std::to_string(number) + ": ";
    if (!value.is_object()) throw Fail(where + "expected an object");
    const Reader step_reader(value, where, "");
    step_reader.allow_only({"title", "text", "view", "anchor", "task", "finding_text"});

    TourStep step;
    if (previous) {
        step.planner = previous->planner;
        step.peers = previous->peers;
        step.job = previous->job;
    } else {
        step.planner.dp = 8;
    }
    step.title = step_reader.text("title");
    step.text = step_reader.text("text");
    step.view = step_reader.object("view");

    const Reader view(step.view, where, "view");
    const std::string page = view.one_of("page", page_names, "page");
    step.page = static_cast<TourPage>(std::find(page_names.begin(), page_names.end(), page) - page_names.begin());
    switch (step.page) {
        case TourPage::planner: read_planner_view(view, step.planner); break;
        case TourPage::peers: read_peers_view(view, step.peers); break;
        case TourPage::sandbox:
            view.allow_only({"page", "fresh"});
            if (view.has("fresh") && !view.at("fresh").is_boolean()) view.fail("fresh", "expected true or false");
            break;
        case TourPage::live: {
            view.allow_only({"page", "simulate", "records"});
            if (view.has("simulate") && view.has("records"))
                view.fail("records", "a live view shows a simulated job or a job's records, not both");
            if (view.has("records")) {
                // A shipped fault job's records (resources/hang-jobs), on the plan it ran with.
                const Reader rec(view.object("records"), where, "view.records");
                rec.allow_only({"job", "dp", "cp", "ep"});
                TourJob job;
                job.records = rec.text("job");
                const bool name_ok = !job.records.empty() && job.records.size() <= 64 &&
                                     std::all_of(job.records.begin(), job.records.end(), [](char c) {
                                         return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
                                     });
                if (!name_ok) rec.fail("job", "expected a shipped job's name (a-z, 0-9 and -)");
                job.dp = *rec.integer("dp", 1, true);
                if (auto cp = rec.integer("cp", 1, false)) job.cp = *cp;
                if (auto ep = rec.integer("ep", 1, false)) job.ep = *ep;
                if (auto t = Topology::make(job.dp, job.cp, job.ep); !t) rec.fail_here(t.error().message());
                step.job = job;
            }
            if (view.has("simulate")) {
                const Reader sim(view.object("simulate"), where, "view.simulate");
                sim.allow_only({"dp", "cp", "ep", "gpus_per_node", "faults"});
                TourJob job;
                job.dp = *sim.integer("dp", 1, true);
                if (auto cp = sim.integer("cp", 1, false)) job.cp = *cp;
                if (auto ep = sim.integer("ep", 1, false)) job.ep = *ep;
                if (auto g = sim.integer("gpus_per_node", 1, false)) job.gpus_per_node = *g;
                job.faults = sim.text("faults", false);
                if (job.dp * job.cp > max_tour_world)
                    sim.fail_here("a tour's world is at most " + std::to_string(max_tour_world) + " ranks, got " +
                                  std::to_string(job.dp * job.cp));
                if (auto t = Topology::make(job.dp, job.cp, job.ep); !t) sim.fail_here(t.error().message());
                step.job = job;
            }
            break;
        }
    }

    // The state the screen shows must be one core accepts.
    std::optional<Plan> plan;
    if (step.page == TourPage::planner) {
        auto made = tour::planner_plan(step.planner);
        if (!made) view.fail_here(made.error().message());
        plan = *made;
        if (step.planner.rank && *step.planner.rank >= plan->topology().world())
            view.fail("rank", "rank " + std::to_string(*step.planner.rank) + " is outside the world of " +
                                  std::to_string(plan->topology().world()) + " ranks");
    } else if (step.page == TourPage::peers) {
        if (step.peers.world > max_tour_world)
            view.fail_here("a tour's world is at most " + std::to_string(max_tour_world) + " ranks, got " +
                           std::to_string(step.peers.world));
        // Every framework must lay the shape out: the view shows all three side by side.
        for (const Framework framework : all_frameworks) {
            const auto layout = peer_layout(framework, {.world = step.peers.world,
                                                        .cp = step.peers.cp,
                                                        .ep = step.peers.ep,
                                                        .gpus_per_node = step.peers.gpus_per_node});
            if (!layout) view.fail_here(tour::framework_title(to_string(framework)) + ": " + layout.error().message());
        }
        if (step.peers.rank && *step.peers.rank >= step.peers.world)
            view.fail("rank", "rank " + std::to_string(*step.peers.rank) + " is outside the world of " +
                                  std::to_string(step.peers.world) + " ranks");
    }

    if (step_reader.has("anchor")) {
        step.anchor = step_reader.one_of("anchor", anchor_names, "anchor");
        if (step.anchor.substr(0, step.anchor.find('.')) != page)
            step_reader.fail("anchor", in_quotes(step.anchor) + " is not on the " + page + " page");
    }
    if (step_reader.has("finding_text")) {
        step.finding_text = step_reader.text("finding_text");
        if (!parse_finding_kind(step.finding_text))
            step_reader.fail("finding_text", "unknown finding kind " + in_quotes(step.finding_text));
    }
    if (step_reader.has("task")) {
        const Reader task(step_reader.object("task"), where, "task");
        task.allow_only({"prompt", "check", "hint"});
        TourTask t;
        t.prompt = task.text("prompt");
        t.hint = task.text("hint", false);
        t.check = task.object("check");
        read_check(Reader(t.check, where, "task.check"), step, plan);
        step.task = std::move(t);
    }
    return step;
}

}  // namespace

Expected<Tour> parse_tour(std::string_view json_text) {
    json value;
    try {
        value = parse_json_throwing(json_text);
    } catch (const JsonTooDeep& e) {
        return ValueError(e.what());
    } catch (const json::parse_error& e) {
        return ValueError("not JSON: syntax error at byte " + std::to_string(e.byte));
    }
    try {
        if (!value.is_object()) throw Fail("expected a JSON object");
        const Reader top(value, "", "");
        top.allow_only({"schema", "name", "title", "summary", "steps"});
        const std::string schema = top.text("schema");
        if (schema != Tour::schema)
            top.fail("schema", "expected " + in_quotes(Tour::schema) + ", got " + in_quotes(schema));
        Tour tour;
        tour.name = top.text("name");
        for (char c : tour.name)
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
                top.fail("name", in_quotes(tour.name) + " may hold only a-z, 0-9 and -");
        tour.title = top.text("title");
        tour.summary = top.text("summary");
        if (!top.has("steps")) top.fail("steps", "missing");
        const json& steps = top.at("steps");
        if (!steps.is_array() || steps.empty()) top.fail("steps", "expected a non-empty array");
        for (std::size_t i = 0; i < steps.size(); ++i)
            tour.steps.push_back(read_step(steps[i], i + 1, tour.steps.empty() ? nullptr : &tour.steps.back()));
        return tour;
    } catch (const Fail& f) {
        return ValueError(f.what());
    }
}

}  // namespace meshscope
