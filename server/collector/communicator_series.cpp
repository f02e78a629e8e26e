#include "communicator_series.h"

#include <algorithm>

namespace meshscope::server {

JobCommunicators communicator_series(const std::string& job, const nlohmann::json& communicators) {
    JobCommunicators out{job, {}, 0};
    auto& series = out.series;
    const auto add = [&](std::string name, std::int64_t nranks, std::string dim, std::int64_t index, std::string source,
                         std::int64_t ranks, std::string state) {
        series.push_back({std::move(name), std::to_string(nranks), std::move(dim),
                          index >= 0 ? std::to_string(index) : std::string(), std::move(source), ranks,
                          std::move(state)});
    };
    // meshscope-probe's groups (named "<dim> group <index>", as NCCL Inspector's own example names a group) and those
    // of the job's last import of records (named by NCCL's commHash as Inspector spells it, where the records give it).
    for (const auto& g : communicators.value("groups", nlohmann::json::array())) {
        const std::string dim = g.value("dim", "");
        const std::int64_t index = g.value("index", std::int64_t{0});
        add(dim + " group " + std::to_string(index),
            static_cast<std::int64_t>(g.value("members", nlohmann::json::array()).size()), dim, index,
            "meshscope-probe", g.value("reported", std::int64_t{0}), g.value("state", "formed"));
    }
    for (const auto& c : communicators.value("records", nlohmann::json::array()))
        add(c.value("name", ""), c.value("nranks", std::int64_t{0}), c.value("dim", ""),
            c.value("index", std::int64_t{-1}), c.value("source", "records"), c.value("seen", std::int64_t{0}),
            c.value("state", "formed"));
    // Those in trouble first, so that the cap never hides one.
    std::stable_partition(series.begin(), series.end(),
                          [](const CommunicatorSeries& c) { return c.state != "formed"; });
    if (series.size() > communicator_series_cap) {
        out.omitted = series.size() - communicator_series_cap;
        series.resize(communicator_series_cap);
    }
    return out;
}

}  // namespace meshscope::server
