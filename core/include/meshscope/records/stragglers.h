// Stragglers over a job's whole Flight Recorder window: every rank's arrival lag at every collective its group's
// members all entered, judged per mesh dim against the dim's own spread (docs/records.md, "Stragglers").
//
// A rank's lag at a collective is the time it entered it (time_created_ns) after the group's first member, less
// what its previous collective explains: a rank that waited in its previous collective for a late peer cannot
// enter the next one before that peer let it go (the previous collective's last arrival), so only what comes after
// that is its own. Per dim, the lags of every rank at every common collective give a median and a MAD; a rank
// whose lag exceeds median + max(k * 1.4826 * MAD, floor) at any one of them is late in that dim.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace meshscope::records {

struct StragglerRule {
    double k = 5.0;                       // MADs (scaled to a normal's standard deviation) above the median
    std::int64_t floor_ns = 500'000'000;  // the least a lag must exceed the median by: noise stays below it
    static constexpr double mad_scale = 1.4826;
};

// One rank's arrival at one collective.
struct Arrival {
    std::int64_t lag_ns = 0;   // its own lag (see above), what the rule judges
    std::int64_t raw_ns = 0;   // after the group's first member, all of it
    std::int64_t time_ns = 0;  // when it entered (time_created_ns)
    std::int64_t seq = 0;
    std::string collective;  // "all_gather"
    std::string group;       // "efsdp group 2 [2, 6, 10, 14]"
};

// A rank's arrivals in one dim: how many, its median lag and its worst arrival.
struct RankLag {
    std::int64_t rank = 0;
    std::string dim;
    std::int64_t arrivals = 0;
    std::int64_t typical_ns = 0;  // the median of its lags
    Arrival worst;
    bool late = false;  // worst.lag_ns above the dim's threshold
    double score = 0;   // x / (x + T): x its worst lag over the dim's median, T the threshold over the median
};

struct DimLags {
    std::string dim;
    std::int64_t arrivals = 0;  // lags judged: every rank at every common collective of the dim's groups
    std::int64_t median_ns = 0, mad_ns = 0, threshold_ns = 0;
};

struct Stragglers {
    StragglerRule rule;
    std::vector<DimLags> dims;   // sorted by dim
    std::vector<RankLag> ranks;  // every rank's arrivals per dim, by rank then dim
    // Every rank with arrivals and its score in 0..1, the largest of its dims' (0.5 is the threshold), by rank.
    std::vector<std::pair<std::int64_t, double>> scores;
    [[nodiscard]] std::vector<const RankLag*> late() const;  // by dim, then rank
};

}  // namespace meshscope::records
