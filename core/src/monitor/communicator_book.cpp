#include "monitor/communicator_book.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/dim_collectives.h"

namespace meshscope::monitor {

namespace {
double median_of(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The median taken on the logarithm, as slow_group judges (for an odd count, the plain median).
double log_median(std::vector<double> values) {
    for (double& v : values) v = std::log(std::max(v, 1e-12));
    return std::exp(median_of(values));
}

// The collectives a dim's groups were measured with, in the dim's training order when the table knows it.
std::vector<std::string> collectives_measured(const CommunicatorBook& book, const std::string& dim) {
    std::vector<std::string> found;
    for (const auto& [key, group] : book.groups) {
        if (key.first != dim) continue;
        for (const auto& [rank, report] : group.reports)
            for (const auto& r : report.results)
                if (std::find(found.begin(), found.end(), r.collective) == found.end()) found.push_back(r.collective);
    }
    std::vector<std::string> ordered;
    for (const Collective c : collectives_of(dim))
        if (std::find(found.begin(), found.end(), to_string(c)) != found.end()) ordered.emplace_back(to_string(c));
    for (const auto& c : found)
        if (std::find(ordered.begin(), ordered.end(), c) == ordered.end()) ordered.push_back(c);
    return ordered;
}

std::int64_t largest_size(const CommunicatorBook& book, const std::string& dim, const std::string& collective) {
    std::int64_t largest = 0;
    for (const auto& [key, group] : book.groups)
        if (key.first == dim)
            for (const auto& [rank, report] : group.reports)
                for (const auto& r : report.results)
                    if (r.collective == collective) largest = std::max(largest, r.bytes);
    return largest;
}

std::vector<std::string> dims_of(const CommunicatorBook& book) {
    std::vector<std::string> dims;
    for (const auto& [key, group] : book.groups)
        if (dims.empty() || dims.back() != key.first) dims.push_back(key.first);
    return dims;
}
}  // namespace

std::optional<CollectiveResult> GroupMeasure::figure(const std::string& collective, std::int64_t bytes) const {
    std::optional<CollectiveResult> slowest;
    for (const auto& [rank, report] : reports)
        for (const auto& r : report.results)
            if (r.collective == collective && r.bytes == bytes && (!slowest || r.busbw < slowest->busbw)) slowest = r;
    return slowest;
}

bool GroupMeasure::formed() const {
    return std::none_of(reports.begin(), reports.end(),
                        [](const auto& entry) { return entry.second.state == CommunicatorState::not_formed; });
}

std::vector<std::int64_t> GroupMeasure::missing() const {
    std::set<std::int64_t> all;
    for (const auto& [rank, report] : reports) all.insert(report.missing.begin(), report.missing.end());
    return {all.begin(), all.end()};
}

void CommunicatorBook::record(std::int64_t rank, const ReportedCommunicator& report) {
    auto it = groups.find({report.dim, report.index});
    if (it == groups.end()) {
        if (groups.size() >= max_groups) return;
        GroupMeasure group;
        group.dim = report.dim;
        group.index = report.index;
        group.members = report.members;
        it = groups.emplace(std::pair{report.dim, report.index}, std::move(group)).first;
    }
    it->second.reports[rank] = report;
    dirty = true;
}

std::vector<SlowGroup> slow_groups(const CommunicatorBook& book, const SlowGroupOptions& options) {
    std::vector<SlowGroup> slow;
    for (const auto& dim : dims_of(book)) {
        for (const auto& collective : collectives_measured(book, dim)) {
            const std::int64_t bytes = largest_size(book, dim, collective);
            std::vector<std::pair<const GroupMeasure*, double>> sample;
            for (const auto& [key, group] : book.groups)
                if (key.first == dim)
                    if (const auto f = group.figure(collective, bytes)) sample.emplace_back(&group, f->busbw);
            if (sample.size() < std::max<std::size_t>(options.min_groups, 1)) continue;
            // On the logarithm: bandwidths spread by factors, and a group 50x slower must not move the scale.
            std::vector<double> logs;
            for (const auto& s : sample) logs.push_back(std::log(std::max(s.second, 1e-12)));
            const double median = median_of(logs);
            for (double& v : logs) v = std::abs(v - median);
            const double mad = median_of(logs);
            const double threshold =
                median - std::max(options.mads * 1.4826 * mad, std::log(1.0 / std::max(options.floor_ratio, 1e-9)));
            for (const auto& [group, busbw] : sample) {
                if (std::log(std::max(busbw, 1e-12)) >= threshold) continue;
                const bool named =
                    std::any_of(slow.begin(), slow.end(), [g = group](const SlowGroup& s) { return s.group == g; });
                if (!named) slow.push_back({group, collective, bytes, busbw, std::exp(median), sample.size()});
            }
        }
    }
    return slow;
}

nlohmann::json communicators_json(const CommunicatorBook& book, const SlowGroupOptions& options) {
    using nlohmann::json;
    const auto slow = slow_groups(book, options);
    json dims = json::array();
    for (const auto& dim : dims_of(book)) {
        std::int64_t count = 0;
        for (const auto& [key, group] : book.groups) count += key.first == dim;
        for (const auto& collective : collectives_measured(book, dim)) {
            const std::int64_t bytes = largest_size(book, dim, collective);
            std::vector<double> values;
            for (const auto& [key, group] : book.groups)
                if (key.first == dim)
                    if (const auto f = group.figure(collective, bytes)) values.push_back(f->busbw);
            json entry = {{"dim", dim},
                          {"collective", collective},
                          {"groups", count},
                          {"measured", values.size()},
                          {"bytes", bytes}};
            if (!values.empty()) {
                entry["median_busbw"] = log_median(values);
                entry["min_busbw"] = *std::min_element(values.begin(), values.end());
                entry["max_busbw"] = *std::max_element(values.begin(), values.end());
            }
            dims.push_back(std::move(entry));
        }
    }
    json groups = json::array();
    for (const auto& [key, group] : book.groups) {
        json results = json::array();
        for (const auto& collective : collectives_measured(book, group.dim)) {
            std::set<std::int64_t> sizes;
            for (const auto& [rank, report] : group.reports)
                for (const auto& r : report.results)
                    if (r.collective == collective) sizes.insert(r.bytes);
            for (const auto bytes : sizes)
                if (const auto f = group.figure(collective, bytes))
                    results.push_back({{"collective", f->collective},
                                       {"bytes", f->bytes},
                                       {"seconds", f->seconds},
                                       {"algbw", f->algbw},
                                       {"busbw", f->busbw}});
        }
        std::optional<double> create;
        for (const auto& [rank, report] : group.reports)
            if (report.create_seconds) create = std::max(create.value_or(0.0), *report.create_seconds);
        // An init-capture, not [&]: clang 14 cannot capture a structured binding (P1091).
        const bool is_slow =
            std::any_of(slow.begin(), slow.end(), [g = &group](const SlowGroup& s) { return s.group == g; });
        json entry = {{"dim", group.dim},
                      {"index", group.index},
                      {"members", group.members},
                      {"reported", group.reports.size()},
                      {"state", group.formed() ? "formed" : "not_formed"},
                      {"slow", is_slow},
                      {"results", std::move(results)}};
        // The worst state a member reported: not_formed, then failed, then wrong_result.
        for (const auto state : {CommunicatorState::wrong_result, CommunicatorState::failed})
            for (const auto& [rank, report] : group.reports)
                if (group.formed() && report.state == state) entry["state"] = to_string(state);
        if (create) entry["create_seconds"] = *create;
        if (const auto missing = group.missing(); !missing.empty()) entry["missing"] = missing;
        groups.push_back(std::move(entry));
    }
    return {{"dims", std::move(dims)}, {"groups", std::move(groups)}};
}

}  // namespace meshscope::monitor
