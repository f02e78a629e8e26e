// A parsed tour as JSON for the web page: the file's own fields plus what core resolved for every step (the
// planner, peers and job state in effect, the finding text), so the page carries nothing over by itself.
#include "meshscope/tour/tour.h"

namespace meshscope {

namespace {
using json = nlohmann::json;

json planner_json(const TourPlannerState& p) {
    json out = {{"cp", p.cp},
                {"ep", p.ep},
                {"gpus_per_node", p.gpus_per_node},
                {"order", std::string(to_string(p.order))},
                {"mesh", p.mesh}};
    if (p.dp) out["dp"] = *p.dp;
    if (p.world) out["world"] = *p.world;
    if (p.rank) out["rank"] = *p.rank;
    return out;
}

json peers_json(const TourPeersState& p) {
    json out = {{"world", p.world}, {"cp", p.cp}, {"ep", p.ep}, {"gpus_per_node", p.gpus_per_node}};
    if (p.rank) out["rank"] = *p.rank;
    return out;
}
}  // namespace

nlohmann::json to_json(const Tour& tour) {
    json steps = json::array();
    for (const TourStep& step : tour.steps) {
        json s = {{"title", step.title},
                  {"text", step.text},
                  {"page", std::string(to_string(step.page))},
                  {"view", step.view},
                  {"planner", planner_json(step.planner)},
                  {"peers", peers_json(step.peers)}};
        if (!step.anchor.empty()) s["anchor"] = step.anchor;
        if (step.task)
            s["task"] = {{"prompt", step.task->prompt}, {"hint", step.task->hint}, {"check", step.task->check}};
        if (step.job)
            s["job"] = {{"dp", step.job->dp},
                        {"cp", step.job->cp},
                        {"ep", step.job->ep},
                        {"gpus_per_node", step.job->gpus_per_node},
                        {"faults", step.job->faults}};
        if (step.job && !step.job->records.empty()) s["job"]["records"] = step.job->records;
        if (!step.finding_text.empty()) {
            s["finding_text"] = step.finding_text;
            if (const auto example = tour_finding(step)) s["finding"] = to_json(*example);
        }
        steps.push_back(std::move(s));
    }
    return {{"schema", std::string(Tour::schema)},
            {"name", tour.name},
            {"title", tour.title},
            {"summary", tour.summary},
            {"steps", std::move(steps)}};
}

}  // namespace meshscope
