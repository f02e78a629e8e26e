// The body of GET /api/v1/jobs/{job}/ranks as the collector writes it for a 16,384-rank job (~3.4 MB of
// JSON): what the Live page's parse and apply are measured and tested with.
#pragma once

#include <QByteArray>

#include <string>

#include <nlohmann/json.hpp>

namespace meshscope::test {

// rank_5_stale: the same snapshot with rank 5 turned "stale" (a changed poll).
inline QByteArray large_ranks_body(bool rank_5_stale = false) {
    using nlohmann::json;
    static const QByteArray body = [] {  // slow to build in Debug: once per run
        json ranks = json::array();
        for (int r = 0; r < 16384; ++r)
            ranks.push_back({{"rank", r},
                             {"state", r % 97 == 0 ? "failed" : "ready"},
                             {"host", "node-" + std::to_string(r / 8)},
                             {"local_rank", r % 8},
                             {"phase", "heartbeat"},
                             {"status", "done"},
                             {"topology", {{"dp", 8192}, {"cp", 2}, {"ep", 8}}},
                             {"timings", {{"launch", {{"started", 1.0}, {"done", 2.0}}}, {"ready", {{"done", 3.0}}}}}});
        return QByteArray::fromStdString(json{{"ranks", ranks}}.dump());
    }();
    if (!rank_5_stale) return body;
    QByteArray changed = body;  // dump() sorts keys: "rank" then "state"
    changed.replace("\"rank\":5,\"state\":\"ready\"", "\"rank\":5,\"state\":\"stale\"");
    return changed;
}

}  // namespace meshscope::test
