// The formats read here and where they are defined: docs/calibrate.md, "What calibrate reads".
#include "meshscope/cost/calibrate.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "meshscope/mesh/json_limits.h"

namespace meshscope::cost {

using json = nlohmann::json;

namespace {
std::string read_file(const std::string& path, const char* what, std::optional<ValueError>& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = ValueError(std::string("cannot read ") + what + " '" + path + "': " + std::strerror(errno));
        return {};
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) error = ValueError(std::string("cannot read ") + what + " '" + path + "': " + std::strerror(errno));
    return text.str();
}

std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const auto end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return lines;
}

// The number after `'key': ` or `"key": ` in a Python dict's repr or a JSON object on this line.
std::optional<double> keyed_number(std::string_view line, std::string_view key) {
    for (const char quote : {'\'', '"'}) {
        const std::string needle = std::string(1, quote) + std::string(key) + std::string(1, quote);
        auto at = line.find(needle);
        if (at == std::string_view::npos) continue;
        at += needle.size();
        while (at < line.size() && (line[at] == ' ' || line[at] == ':')) ++at;
        const std::string rest(line.substr(at, 40));
        char* end = nullptr;
        const double value = std::strtod(rest.c_str(), &end);
        if (end != rest.c_str() && std::isfinite(value)) return value;
    }
    return std::nullopt;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// "[INFO|2026-01-02 10:00:05] name:67 >> epoch: 0, step: 10, loss: ...": seconds since the epoch and the step.
std::optional<std::pair<double, std::int64_t>> llamafactory_step(std::string_view line) {
    const auto bar = line.find('|');
    if (line.empty() || line.front() != '[' || bar == std::string_view::npos || bar > 16) return std::nullopt;
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    const std::string stamp(line.substr(bar + 1, 19));
    if (std::sscanf(stamp.c_str(), "%4d-%2d-%2d %2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6) return std::nullopt;
    const auto body = line.find(">> ");
    if (body == std::string_view::npos) return std::nullopt;
    const std::string_view message = line.substr(body + 3);
    std::size_t at = std::string_view::npos;
    if (message.rfind("step: ", 0) == 0)
        at = 0;
    else if (const auto found = message.find(", step: "); found != std::string_view::npos)
        at = found + 2;
    if (at == std::string_view::npos || message.find("loss: ") == std::string_view::npos) return std::nullopt;
    const std::string digits(message.substr(at + 6, 20));
    char* end = nullptr;
    const long long step = std::strtoll(digits.c_str(), &end, 10);
    if (end == digits.c_str()) return std::nullopt;
    const double seconds =
        static_cast<double>(days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d))) * 86400.0 +
        h * 3600.0 + mi * 60.0 + s;
    return std::pair{seconds, static_cast<std::int64_t>(step)};
}

std::string fixed(double value, int decimals) {
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}
std::string general(double value) {
    char text[48];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

// Prometheus text format: `name{k="v",...} value`. False when the line is not of that shape.
bool prometheus_line(std::string_view line, std::string& name, std::map<std::string, std::string>& labels,
                     std::string& label_text, double& value) {
    const auto brace = line.find('{');
    const auto close = line.rfind('}');
    if (brace == std::string_view::npos || close == std::string_view::npos || close < brace) return false;
    name = std::string(line.substr(0, brace));
    label_text = std::string(line.substr(brace + 1, close - brace - 1));
    labels.clear();
    std::size_t i = 0;
    const std::string& t = label_text;
    while (i < t.size()) {
        const auto eq = t.find('=', i);
        if (eq == std::string::npos || eq + 1 >= t.size() || t[eq + 1] != '"') return false;
        std::string key = t.substr(i, eq - i);
        std::string val;
        std::size_t j = eq + 2;
        for (; j < t.size() && t[j] != '"'; ++j) {
            if (t[j] == '\\' && j + 1 < t.size()) {
                ++j;
                val += t[j] == 'n' ? '\n' : t[j];
            } else {
                val += t[j];
            }
        }
        if (j >= t.size()) return false;
        labels[key] = val;
        i = j + 1;
        if (i < t.size() && t[i] == ',') ++i;
    }
    const std::string rest(line.substr(close + 1));
    char* end = nullptr;
    value = std::strtod(rest.c_str(), &end);
    return end != rest.c_str();
}

std::optional<Collective> priced_collective(std::string_view nccl_name) {
    if (nccl_name == "AllReduce") return Collective::all_reduce;
    if (nccl_name == "AllGather") return Collective::all_gather;
    if (nccl_name == "ReduceScatter") return Collective::reduce_scatter;
    return std::nullopt;
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

// Whether `name` holds `word` as a token (split at anything not a letter or digit).
bool names_token(const std::string& name, const std::string& word) {
    const std::string n = lower(name);
    std::size_t at = 0;
    while ((at = n.find(word, at)) != std::string::npos) {
        const bool left = at == 0 || !std::isalnum(static_cast<unsigned char>(n[at - 1]));
        const std::size_t after = at + word.size();
        const bool right = after >= n.size() || !std::isalnum(static_cast<unsigned char>(n[after]));
        if (left && right) return true;
        at = after;
    }
    return false;
}

std::string layout_name(const Topology& t) {
    return "dp " + std::to_string(t.dp) + ", cp " + std::to_string(t.cp) + ", ep " + std::to_string(t.ep);
}

// Which dim of the layout a communicator of nranks ranks over nnodes nodes is.
void place(CommEvidence& c, const std::optional<RunLayout>& layout) {
    if (!layout) {
        c.why = "no layout given";
        return;
    }
    const Topology& t = layout->topology;
    const bool world = c.nranks == t.world();
    std::vector<const MeshDim*> fits;
    for (const auto& d : layout->dims) {
        if (d.size != c.nranks || d.size <= 1) continue;
        const bool crosses = c.nnodes > 1;
        if (crosses != d.crosses_node) continue;
        if (crosses && d.nodes != c.nnodes) continue;
        fits.push_back(&d);
    }
    // A name that says which dim decides among those of the right size and span (the world's size included).
    std::vector<const MeshDim*> named;
    for (const MeshDim* d : fits)
        if (names_token(c.comm, d->dim)) named.push_back(d);
    if (named.size() == 1) {
        fits = named;
    } else if (world) {
        c.placed = "world";  // the default process group, or a dim as large as the world: the name does not say
        return;
    }
    const std::string span =
        std::to_string(c.nranks) + " ranks over " + std::to_string(c.nnodes) + (c.nnodes == 1 ? " node" : " nodes");
    if (fits.empty()) {
        c.why = "no dim of " + layout_name(t) + " has " + span;
        return;
    }
    if (fits.size() > 1) {
        std::string dims;
        for (std::size_t i = 0; i < fits.size(); ++i)
            dims += (i == 0 ? "" : i + 1 == fits.size() ? " or " : ", ") + fits[i]->mesh + "." + fits[i]->dim;
        c.why = dims + ": each has " + span + " and the communicator's name does not say which";
        return;
    }
    c.placed = fits.front()->mesh + "." + fits.front()->dim;
}
}  // namespace

Expected<StepTime> read_training_log(std::string_view text, std::string_view source) {
    const std::string src(source);
    StepTime out;
    std::optional<double> runtime, steps_per_second;
    std::optional<std::pair<double, std::int64_t>> first, last;
    for (const auto line : lines_of(text)) {
        const auto r = keyed_number(line, "train_runtime");
        const auto sps = keyed_number(line, "train_steps_per_second");
        if (r && sps) {
            runtime = r;
            steps_per_second = sps;  // the last run's final metrics
        }
        if (const auto step = llamafactory_step(line)) {
            ++out.loss_lines;
            if (!first) first = step;
            if (step->second != first->second) last = step;
        } else if (keyed_number(line, "loss") && !keyed_number(line, "train_loss")) {
            ++out.loss_lines;
        }
    }
    if (runtime && steps_per_second) {
        const auto steps = static_cast<std::int64_t>(std::llround(*runtime * *steps_per_second));
        if (steps < 1)
            return ValueError(src + ": train_steps_per_second " + general(*steps_per_second) + " gives no steps");
        if (!(*runtime > 0)) return ValueError(src + ": train_runtime " + general(*runtime) + " is not positive");
        out.steps = steps;
        out.seconds = *runtime / static_cast<double>(steps);
        out.how = "train_runtime " + general(*runtime) + " s over " + std::to_string(steps) +
                  " steps (Hugging Face Trainer's final metrics)";
        return out;
    }
    if (first && last && last->second > first->second && last->first > first->first) {
        out.steps = last->second - first->second;
        out.seconds = (last->first - first->first) / static_cast<double>(out.steps);
        out.how = fixed(last->first - first->first, 0) + " s from step " + std::to_string(first->second) + " to step " +
                  std::to_string(last->second) + " (LlamaFactory's log timestamps)";
        return out;
    }
    return ValueError(src +
                      ": no step time: expected Hugging Face Trainer's final {'train_runtime': ..., "
                      "'train_steps_per_second': ...} or two LlamaFactory step lines with timestamps");
}

Expected<StepTime> load_training_log(const std::string& path) {
    std::optional<ValueError> error;
    const std::string text = read_file(path, "training log", error);
    if (error) return *error;
    return read_training_log(text, path);
}

// long: one pass over NCCL Inspector's lines collecting each metric by label, then the bandwidth samples in the order
// first seen; not yet split into stages
Expected<InspectorRead> read_nccl_inspector(std::string_view text, std::string_view source) {
    const std::string src(source);
    InspectorRead out;
    struct Metric {
        std::size_t line = 0;
        std::map<std::string, std::string> labels;
        double value = 0;
    };
    std::map<std::string, Metric> bandwidths, times;  // by label text
    std::vector<std::string> bandwidth_order;
    std::size_t number = 0;
    for (const auto line : lines_of(text)) {
        ++number;
        const std::string at = src + " line " + std::to_string(number);
        if (line.rfind("{\"", 0) == 0) {  // Inspector's records; a Python dict's repr starts "{'"
            out.format = "json";
            json doc;
            try {
                doc = parse_json_throwing(line);
            } catch (const JsonTooDeep& e) {
                return ValueError(at + ": " + e.what());
            } catch (const json::parse_error& e) {
                return ValueError(at + " is not valid JSON (byte " + std::to_string(e.byte) + ").");
            }
            if (!doc.is_object()) continue;
            if (doc.contains("p2p_perf")) {
                ++out.p2p;
                continue;
            }
            if (!doc.contains("coll_perf")) continue;
            for (const auto& [object, key, is_text] :
                 {std::tuple{"header", "n_ranks", false}, std::tuple{"header", "nnodes", false},
                  std::tuple{"coll_perf", "coll", true}, std::tuple{"coll_perf", "coll_exec_time_us", false},
                  std::tuple{"coll_perf", "coll_busbw_gbs", false}}) {
                const auto o = doc.find(object);
                if (o == doc.end() || !o->is_object() || !o->contains(key))
                    return ValueError(at + ": missing field '" + object + "." + key + "'");
                const json& v = (*o)[key];
                if (is_text ? !v.is_string() : !v.is_number())
                    return ValueError(at + ": field '" + object + "." + key + "' must be a " +
                                      (is_text ? "string" : "number") + ", got " + v.dump());
            }
            InspectorSample s;
            s.nranks = doc["header"]["n_ranks"].get<std::int64_t>();
            s.nnodes = doc["header"]["nnodes"].get<std::int64_t>();
            if (s.nranks < 1 || s.nnodes < 1)
                return ValueError(at + ": header n_ranks and nnodes must be positive, got " + std::to_string(s.nranks) +
                                  " and " + std::to_string(s.nnodes));
            s.collective = doc["coll_perf"]["coll"].get<std::string>();
            s.exec_us = doc["coll_perf"]["coll_exec_time_us"].get<double>();
            s.bus_gbps = doc["coll_perf"]["coll_busbw_gbs"].get<double>();
            const json& header = doc["header"];
            if (const auto name = header.find("comm_name"); name != header.end() && name->is_string() &&
                                                            !name->get<std::string>().empty() &&
                                                            name->get<std::string>() != "unknown")
                s.comm = name->get<std::string>();
            else if (const auto id = header.find("id"); id != header.end() && id->is_string())
                s.comm = id->get<std::string>();
            out.samples.push_back(std::move(s));
            continue;
        }
        if (line.rfind("nccl_", 0) != 0) continue;  // comments, blank lines, other metrics
        out.format = "prometheus";
        Metric m;
        std::string name, label_text;
        if (!prometheus_line(line, name, m.labels, label_text, m.value))
            return ValueError(at + " is not a Prometheus sample (name{label=\"value\",...} number)");
        m.line = number;
        if (name == "nccl_p2p_bus_bandwidth_gbs") {
            ++out.p2p;
        } else if (name == "nccl_bus_bandwidth_gbs") {
            if (!bandwidths.count(label_text)) bandwidth_order.push_back(label_text);
            bandwidths[label_text] = std::move(m);
        } else if (name == "nccl_collective_exec_time_microseconds") {
            times[label_text] = std::move(m);
        }
    }
    for (const auto& key : bandwidth_order) {
        const Metric& bw = bandwidths[key];
        const std::string at = src + " line " + std::to_string(bw.line);
        const auto time = times.find(key);
        if (time == times.end())
            return ValueError(at +
                              ": nccl_bus_bandwidth_gbs has no nccl_collective_exec_time_microseconds with the same "
                              "labels");
        InspectorSample s;
        for (const auto& [label, target] : {std::pair{"nranks", &s.nranks}, std::pair{"n_nodes", &s.nnodes}}) {
            const auto v = bw.labels.find(label);
            if (v == bw.labels.end()) return ValueError(at + ": missing label '" + label + "'");
            char* end = nullptr;
            const long long n = std::strtoll(v->second.c_str(), &end, 10);
            if (end == v->second.c_str() || *end != '\0' || n < 1)
                return ValueError(at + ": label '" + label + "' must be a positive integer, got " +
                                  json(v->second).dump());
            *target = n;
        }
        const auto coll = bw.labels.find("collective");
        if (coll == bw.labels.end()) return ValueError(at + ": missing label 'collective'");
        s.collective = coll->second;
        const auto comm = bw.labels.find("comm_name");
        s.comm = comm == bw.labels.end() ? "unknown" : comm->second;
        s.bus_gbps = bw.value;
        s.exec_us = time->second.value;
        out.samples.push_back(std::move(s));
    }
    if (out.samples.empty())
        return ValueError(src +
                          ": no NCCL Inspector collective records (JSON lines with \"coll_perf\" or "
                          "nccl_bus_bandwidth_gbs lines)");
    return out;
}

Expected<InspectorRead> load_nccl_inspector(const std::string& path) {
    std::optional<ValueError> error;
    const std::string text = read_file(path, "NCCL Inspector output", error);
    if (error) return *error;
    return read_nccl_inspector(text, path);
}

BandwidthFit fit_bandwidths(const std::vector<std::pair<std::string, InspectorRead>>& reads, const ClusterSpec& cluster,
                            const std::optional<RunLayout>& layout) {
    BandwidthFit out;
    struct Sum {
        double bytes = 0, seconds = 0;
        std::int64_t samples = 0;
    };
    Sum intra, inter;
    for (const auto& [source, read] : reads) {
        std::map<std::tuple<std::string, std::string, std::int64_t, std::int64_t>, std::pair<CommEvidence, Sum>> comms;
        std::vector<std::tuple<std::string, std::string, std::int64_t, std::int64_t>> order;
        for (const auto& s : read.samples) {
            const auto key = std::tuple{s.comm, s.collective, s.nranks, s.nnodes};
            auto [it, added] = comms.try_emplace(key);
            if (added) {
                order.push_back(key);
                auto& c = it->second.first;
                c.source = source;
                c.comm = s.comm;
                c.collective = s.collective;
                c.nranks = s.nranks;
                c.nnodes = s.nnodes;
                c.link = s.nnodes > 1 ? "inter_node" : "intra_node";
            }
            auto& [c, sum] = it->second;
            ++c.samples;
            const auto collective = priced_collective(s.collective);
            if (!collective) continue;
            const double seconds = s.exec_us * 1e-6;
            const double latency = collective_seconds(*collective, s.nranks, s.nnodes, 0.0, 1, cluster);
            if (!(seconds > latency) || !(s.bus_gbps > 0)) {
                ++out.latency_bound;
                continue;
            }
            const double bytes = s.bus_gbps * 1e9 * seconds;
            sum.bytes += bytes;
            sum.seconds += seconds - latency;
            ++sum.samples;
            Sum& link = s.nnodes > 1 ? inter : intra;
            link.bytes += bytes;
            link.seconds += seconds - latency;
            ++link.samples;
        }
        for (const auto& key : order) {
            auto& [c, sum] = comms[key];
            if (sum.samples > 0) c.bus_gbps = sum.bytes / sum.seconds / 1e9;
            place(c, layout);
            if (!priced_collective(c.collective))
                c.why = (c.why.empty() ? "" : c.why + "; ") + "not fitted: the model prices no " + c.collective;
            else if (sum.samples == 0)
                c.why = (c.why.empty() ? "" : c.why + "; ") + "not fitted: every sample within the model's latency";
            out.communicators.push_back(std::move(c));
        }
    }
    if (intra.samples > 0) out.intra_gbps = intra.bytes / intra.seconds / 1e9;
    if (inter.samples > 0) out.inter_gbps = inter.bytes / inter.seconds / 1e9;
    out.intra_samples = intra.samples;
    out.inter_samples = inter.samples;
    return out;
}

Expected<CalibrationFit> fit_calibration(const CostInputs& in, const RunLayout& layout, double measured_seconds) {
    constexpr double low = 1e-4, high = 2.0;
    CalibrationFit out;
    out.preset = cost_layout(in, layout.topology, layout.dims);
    CostInputs at = in;
    const auto step = [&](double calibration) {
        at.cluster.calibration = calibration;
        return cost_layout(at, layout.topology, layout.dims);
    };
    const LayoutCost fastest = step(high);
    if (fastest.step.seconds > measured_seconds)
        return ValueError(layout_name(layout.topology) + ": a step of " + fixed(measured_seconds, 3) +
                          " s is shorter than the model's " + fixed(fastest.step.seconds, 3) +
                          " s at calibration 2: its communication alone takes longer (fit the bandwidths from NCCL "
                          "Inspector output)");
    if (const LayoutCost slowest = step(low); slowest.step.seconds < measured_seconds)
        return ValueError(layout_name(layout.topology) + ": a step of " + fixed(measured_seconds, 3) +
                          " s is longer than the model's " + fixed(slowest.step.seconds, 3) +
                          " s at calibration 0.0001: check the run's model, batch and layout");
    // The step time falls as the calibration rises; bisect in log space.
    double lo = std::log(low), hi = std::log(high);
    for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (step(std::exp(mid)).step.seconds > measured_seconds)
            lo = mid;
        else
            hi = mid;
    }
    out.calibration = std::exp(hi);
    out.fitted = step(out.calibration);
    return out;
}

}  // namespace meshscope::cost
