#include "meshscope/cost/cluster_profile.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "cost/json_object.h"
#include "meshscope/mesh/json_limits.h"

namespace meshscope::cost {

using json = nlohmann::json;

namespace {
// The widest values a profile may hold: a calibration is the share of the kernel curves a step reaches (the presets'
// 0.60; above 1 a step ran faster than the kernels measured), a bandwidth GB/s per direction.
constexpr double max_calibration = 2.0;
constexpr double max_gbps = 10000.0;

std::string number_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

// Reads fields of one JSON object, keeping the first error with its dotted path.
class Reader {
public:
    explicit Reader(std::string source) : source_(std::move(source)) {}
    [[nodiscard]] const std::optional<ValueError>& error() const { return error_; }
    void fail(const std::string& message) {
        if (!error_) error_ = ValueError(source_ + ": " + message);
    }
    const json* field(const json& object, const std::string& path, const char* key) {
        const auto it = object.find(key);
        if (it == object.end()) {
            fail("missing field '" + path + key + "'");
            return nullptr;
        }
        return &*it;
    }
    std::string string(const json& object, const std::string& path, const char* key) {
        const json* v = field(object, path, key);
        if (v == nullptr) return {};
        if (!v->is_string()) {
            fail("field '" + path + key + "' must be a string, got " + v->dump());
            return {};
        }
        return v->get<std::string>();
    }
    std::int64_t positive(const json& object, const std::string& path, const char* key) {
        const json* v = field(object, path, key);
        if (v == nullptr) return 1;
        if (!v->is_number_integer() || v->get<std::int64_t>() < 1) {
            fail("field '" + path + key + "' must be a positive integer, got " + v->dump());
            return 1;
        }
        return v->get<std::int64_t>();
    }
    double number(const json& object, const std::string& path, const char* key, double low, double high) {
        const json* v = field(object, path, key);
        if (v == nullptr) return 0;
        if (!v->is_number() || !(v->get<double>() > low && v->get<double>() <= high)) {
            fail("field '" + path + key + "' must be a number in (" + number_text(low) + ", " + number_text(high) +
                 "], got " + v->dump());
            return 0;
        }
        return v->get<double>();
    }
    const json* object(const json& parent, const std::string& path, const char* key) {
        const json* v = field(parent, path, key);
        if (v == nullptr) return nullptr;
        if (!v->is_object()) {
            fail("field '" + path + key + "' must be an object, got " + v->dump());
            return nullptr;
        }
        return v;
    }
    const json* array(const json& parent, const std::string& path, const char* key) {
        const json* v = field(parent, path, key);
        if (v == nullptr) return nullptr;
        if (!v->is_array()) {
            fail("field '" + path + key + "' must be an array, got " + v->dump());
            return nullptr;
        }
        return v;
    }

private:
    std::string source_;
    std::optional<ValueError> error_;
};

ProfileConstant read_constant(Reader& r, const json& constants, const char* key, double high) {
    ProfileConstant c;
    const std::string path = std::string("constants.") + key;
    const json* o = r.object(constants, "constants.", key);
    if (o == nullptr) return c;
    c.value = r.number(*o, path + ".", "value", 0.0, high);
    const std::string source = r.string(*o, path + ".", "source");
    if (source == "fitted") {
        c.source = ConstantSource::fitted;
    } else if (source == "preset") {
        c.source = ConstantSource::preset;
    } else if (!r.error()) {
        r.fail("field '" + path + ".source' must be \"preset\" or \"fitted\", got " + json(source).dump());
    }
    c.basis = r.string(*o, path + ".", "basis");
    return c;
}

json constant_json(const ProfileConstant& c) {
    return json::object({{"value", c.value}, {"source", to_string(c.source)}, {"basis", c.basis}});
}
}  // namespace

std::string_view to_string(ConstantSource source) noexcept {
    return source == ConstantSource::fitted ? "fitted" : "preset";
}

nlohmann::ordered_json cluster_profile_json(const ClusterProfile& p) {
    nlohmann::ordered_json out;
    out["format"] = cluster_profile_schema;
    out["hardware"] = p.hardware;
    out["network"] = p.network;
    out["gpus_per_node"] = p.gpus_per_node;
    out["constants"] = {{"calibration", constant_json(p.calibration)},
                        {"intra_node_gbps", constant_json(p.intra_node_gbps)},
                        {"inter_node_gbps", constant_json(p.inter_node_gbps)}};
    auto layouts = nlohmann::ordered_json::array();
    for (const auto& l : p.layouts) {
        nlohmann::ordered_json o;
        o["source"] = l.source;
        o["model"] = l.model;
        o["dp"] = l.dp;
        o["cp"] = l.cp;
        o["ep"] = l.ep;
        o["gpus_per_node"] = l.gpus_per_node;
        o["seq"] = l.seq;
        o["micro_batch"] = l.micro_batch;
        o["grad_accum"] = l.grad_accum;
        o["measured_seconds"] = l.measured_seconds;
        o["preset_seconds"] = l.preset_seconds;
        o["predicted_seconds"] = l.predicted_seconds;
        o["calibration"] = l.calibration;
        layouts.push_back(std::move(o));
    }
    auto comms = nlohmann::ordered_json::array();
    for (const auto& c : p.communicators) {
        nlohmann::ordered_json o;
        o["source"] = c.source;
        o["comm"] = c.comm;
        o["collective"] = c.collective;
        o["nranks"] = c.nranks;
        o["nnodes"] = c.nnodes;
        o["samples"] = c.samples;
        o["bus_gbps"] = c.bus_gbps;
        o["link"] = c.link;
        o["placed"] = c.placed;
        o["why"] = c.why;
        comms.push_back(std::move(o));
    }
    out["evidence"] = {{"layouts", std::move(layouts)}, {"communicators", std::move(comms)}};
    return out;
}

// long: every field of meshscope.cluster-profile/1 read and checked in order, each with its exact message
Expected<ClusterProfile> cluster_profile_from_json(std::string_view json_text, std::string_view source) {
    const std::string src(source);
    auto read = detail::read_json_object(json_text, src);
    if (!read) return read.error();
    const json doc = std::move(read).value();
    Reader r(src);
    const std::string format = r.string(doc, "", "format");
    if (r.error()) return *r.error();
    if (format != cluster_profile_schema)
        return ValueError(src + ": field 'format' must be \"" + std::string(cluster_profile_schema) + "\", got " +
                          json(format).dump());
    ClusterProfile p;
    p.hardware = r.string(doc, "", "hardware");
    p.network = r.string(doc, "", "network");
    p.gpus_per_node = r.positive(doc, "", "gpus_per_node");
    if (r.error()) return *r.error();
    if (auto cluster = make_cluster(p.hardware, p.network, p.gpus_per_node); !cluster)
        return ValueError(src + ": " + cluster.error().message());
    if (const json* constants = r.object(doc, "", "constants")) {
        p.calibration = read_constant(r, *constants, "calibration", max_calibration);
        p.intra_node_gbps = read_constant(r, *constants, "intra_node_gbps", max_gbps);
        p.inter_node_gbps = read_constant(r, *constants, "inter_node_gbps", max_gbps);
    }
    if (r.error()) return *r.error();
    const json* evidence = r.object(doc, "", "evidence");
    if (evidence == nullptr) return *r.error();
    if (const json* layouts = r.array(*evidence, "evidence.", "layouts")) {
        for (std::size_t i = 0; i < layouts->size() && !r.error(); ++i) {
            const std::string path = "evidence.layouts[" + std::to_string(i) + "].";
            const json& o = (*layouts)[i];
            if (!o.is_object()) {
                r.fail("field '" + path.substr(0, path.size() - 1) + "' must be an object, got " + o.dump());
                break;
            }
            LayoutEvidence l;
            l.source = r.string(o, path, "source");
            l.model = r.string(o, path, "model");
            l.dp = r.positive(o, path, "dp");
            l.cp = r.positive(o, path, "cp");
            l.ep = r.positive(o, path, "ep");
            l.gpus_per_node = r.positive(o, path, "gpus_per_node");
            l.seq = r.positive(o, path, "seq");
            l.micro_batch = r.positive(o, path, "micro_batch");
            l.grad_accum = r.positive(o, path, "grad_accum");
            l.measured_seconds = r.number(o, path, "measured_seconds", 0.0, HUGE_VAL);
            l.preset_seconds = r.number(o, path, "preset_seconds", 0.0, HUGE_VAL);
            l.predicted_seconds = r.number(o, path, "predicted_seconds", 0.0, HUGE_VAL);
            l.calibration = r.number(o, path, "calibration", 0.0, HUGE_VAL);
            p.layouts.push_back(std::move(l));
        }
    }
    if (r.error()) return *r.error();
    if (const json* comms = r.array(*evidence, "evidence.", "communicators")) {
        for (std::size_t i = 0; i < comms->size() && !r.error(); ++i) {
            const std::string path = "evidence.communicators[" + std::to_string(i) + "].";
            const json& o = (*comms)[i];
            if (!o.is_object()) {
                r.fail("field '" + path.substr(0, path.size() - 1) + "' must be an object, got " + o.dump());
                break;
            }
            CommEvidence c;
            c.source = r.string(o, path, "source");
            c.comm = r.string(o, path, "comm");
            c.collective = r.string(o, path, "collective");
            c.nranks = r.positive(o, path, "nranks");
            c.nnodes = r.positive(o, path, "nnodes");
            c.samples = r.positive(o, path, "samples");
            c.bus_gbps = r.number(o, path, "bus_gbps", 0.0, HUGE_VAL);
            c.link = r.string(o, path, "link");
            if (!r.error() && c.link != "intra_node" && c.link != "inter_node")
                r.fail("field '" + path + "link' must be \"intra_node\" or \"inter_node\", got " + json(c.link).dump());
            c.placed = r.string(o, path, "placed");
            c.why = r.string(o, path, "why");
            p.communicators.push_back(std::move(c));
        }
    }
    if (r.error()) return *r.error();
    return p;
}

Expected<ClusterProfile> load_cluster_profile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return ValueError("cannot read cluster profile '" + path + "': " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return ValueError("cannot read cluster profile '" + path + "': " + std::strerror(errno));
    return cluster_profile_from_json(text.str(), path);
}

Expected<ClusterSpec> apply_cluster_profile(ClusterSpec cluster, const ClusterProfile& profile) {
    if (cluster.hardware != profile.hardware)
        return ValueError("the cluster profile was fitted on " + profile.hardware + "; the cluster is " +
                          cluster.hardware);
    cluster.calibration = profile.calibration.value;
    cluster.intra.bus_gbps = profile.intra_node_gbps.value;
    cluster.inter.bus_gbps = profile.inter_node_gbps.value;
    return cluster;
}

std::string profile_constants_text(const ClusterProfile& p) {
    const auto one = [](const char* name, const ProfileConstant& c, const char* unit) {
        return std::string(name) + " " + number_text(c.value) + unit + " (" + std::string(to_string(c.source)) +
               (c.basis.empty() ? "" : ": " + c.basis) + ")";
    };
    return one("calibration", p.calibration, "") + "; " + one("NVLink", p.intra_node_gbps, " GB/s") + "; " +
           one("network", p.inter_node_gbps, " GB/s");
}

ClusterProfile preset_profile(const ClusterSpec& cluster) {
    ClusterProfile p;
    p.hardware = cluster.hardware;
    p.network = cluster.network;
    p.gpus_per_node = cluster.gpus_per_node;
    p.calibration = {cluster.calibration, ConstantSource::preset, cluster.hardware + " preset"};
    p.intra_node_gbps = {cluster.intra.bus_gbps, ConstantSource::preset, cluster.hardware + " preset"};
    p.inter_node_gbps = {cluster.inter.bus_gbps, ConstantSource::preset, cluster.network + " preset"};
    return p;
}

namespace {
std::vector<ClusterConstant> constants_of(const ClusterProfile& p) {
    return {{"calibration", "compute calibration", "", p.calibration},
            {"intra_node_gbps", "NVLink bandwidth", "GB/s", p.intra_node_gbps},
            {"inter_node_gbps", "network bandwidth", "GB/s", p.inter_node_gbps}};
}
}  // namespace

ClusterConstants use_cluster_profile(ClusterSpec& cluster, const LoadedClusterProfile* profile) {
    if (!profile) return {"", "", constants_of(preset_profile(cluster))};
    auto applied = apply_cluster_profile(cluster, profile->profile);
    if (!applied) return {profile->file, applied.error().message(), constants_of(preset_profile(cluster))};
    cluster = std::move(applied).value();
    return {profile->file, "", constants_of(profile->profile)};
}

nlohmann::ordered_json cluster_constants_json(const ClusterConstants& c) {
    nlohmann::ordered_json constants = nlohmann::ordered_json::object();
    for (const auto& one : c.constants) {
        auto o = constant_json(one.constant);
        o["label"] = one.label;
        o["unit"] = one.unit;
        constants[one.name] = std::move(o);
    }
    nlohmann::ordered_json out;
    out["file"] = c.file.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.file);
    out["note"] = c.note;
    out["constants"] = std::move(constants);
    return out;
}

}  // namespace meshscope::cost
