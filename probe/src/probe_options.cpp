#include "probe_options.h"

#include <charconv>

namespace meshscope::probe {

const char* const probe_usage = R"(usage: meshscope-probe [--dp N --cp N --ep N | --plan FILE] [options]

Builds the plan's communicators on every rank, in the plan's creation order, runs the collective each
mesh dim carries, checks it and measures bandwidth. One process per rank (torchrun, srun, mpirun), or
--local N to start N ranks here. Reports to the collector, which is also the rendezvous.

  --dp N --cp N --ep N     the topology (dp defaults to world / cp; cp and ep to 1)
  --plan FILE              a meshscope.plan/1 document instead (meshscope plan --json)
  --order torch29|torch28  group creation order (default torch29; a plan file brings its own)
  --gpus-per-node N        placement for the plan (default LOCAL_WORLD_SIZE, else 8)
  --backend gloo|nccl      collective library (default gloo)
  --sizes A:B              each rank's input buffer, powers of two, K/M/G = 1024^n (default 1K:1M)
  --iters N                timed calls per size (default 20), after --warmup N (default 2)
  --timeout S              seconds for the rendezvous and for each communicator to form (default 60)
  --collector URL          the collector (default MESHSCOPE_URL); --token T (default MESHSCOPE_TOKEN)
  --job ID                 the probe's job (default MESHSCOPE_JOB or the launcher's job id, plus "-probe")
  --local N                start N ranks on this host (loopback)
  --bind ADDR              the address gloo listens on (default 127.0.0.1 with --local, else the host name)
  --one-group-at-a-time    measure the groups one after another, each alone on the fabric, instead of every
                           group of a dim at once as training runs them: tells a slow link from contention
)";

namespace {
std::optional<std::int64_t> whole(const std::string& text) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<std::int64_t> one_size(const std::string& text) {
    if (text.empty()) return std::nullopt;
    std::int64_t unit = 1;
    std::string digits = text;
    switch (text.back()) {
        case 'K': unit = 1 << 10; break;
        case 'M': unit = 1 << 20; break;
        case 'G': unit = 1 << 30; break;
        default: break;
    }
    if (unit > 1) digits.pop_back();
    const auto n = whole(digits);
    if (!n || *n < 1 || *n > (std::int64_t{1} << 40) / unit) return std::nullopt;
    return *n * unit;
}

bool power_of_two(std::int64_t n) {
    return n > 0 && (n & (n - 1)) == 0;
}
}  // namespace

Expected<std::vector<std::int64_t>> parse_sizes(const std::string& text) {
    const auto colon = text.find(':');
    const auto low = one_size(text.substr(0, colon));
    const auto high = colon == std::string::npos ? low : one_size(text.substr(colon + 1));
    const std::string shape =
        "--sizes must be a power of two or a range of them (64K, 1K:256M; K = 1024), got \"" + text + "\"";
    if (!low || !high || !power_of_two(*low) || !power_of_two(*high) || *low < 4) return ValueError(shape);
    if (*high < *low) return ValueError("--sizes must go from small to large, got \"" + text + "\"");
    std::vector<std::int64_t> sizes;
    for (std::int64_t s = *low; s <= *high; s *= 2) sizes.push_back(s);
    return sizes;
}

namespace {
// Who this process is from its launcher's variables (torchrun, then Slurm, then Open MPI), the collector and
// token from MESHSCOPE_URL / MESHSCOPE_TOKEN. Returns the launcher's job id ("" when none).
std::string read_launcher(ProbeOptions& o, const Environment& env) {
    const auto env_int = [&](const char* name) -> std::optional<std::int64_t> {
        const auto v = env(name);
        return v ? whole(*v) : std::nullopt;
    };
    for (const auto& [r, w, l] :
         {std::tuple{"RANK", "WORLD_SIZE", "LOCAL_RANK"}, std::tuple{"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
          std::tuple{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"}}) {
        if (env_int(r) && env_int(w)) {
            o.rank = *env_int(r);
            o.world = *env_int(w);
            o.local_rank = env_int(l).value_or(0);
            break;
        }
    }
    if (const auto n = env_int("LOCAL_WORLD_SIZE"); n && *n > 0) o.gpus_per_node = *n;
    o.collector = env("MESHSCOPE_URL").value_or("");
    o.token = env("MESHSCOPE_TOKEN").value_or("");
    std::string launcher_job = env("MESHSCOPE_JOB").value_or("");
    for (const char* name : {"TORCHELASTIC_RUN_ID", "SLURM_JOB_ID", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid"}) {
        if (!launcher_job.empty()) break;
        const auto v = env(name);
        if (v && !v->empty() && *v != "none") launcher_job = *v;
    }
    return launcher_job;
}

// --inject-slow-group, a test hook: "ep:1" or "ep:1:200" (milliseconds before every collective of that group).
std::optional<Error> read_slow_group(ProbeOptions& o, const std::string& v) {
    const auto first = v.find(':');
    const auto second = first == std::string::npos ? std::string::npos : v.find(':', first + 1);
    const auto index = first == std::string::npos ? std::nullopt : whole(v.substr(first + 1, second - first - 1));
    const auto delay = second == std::string::npos ? std::optional<std::int64_t>(50) : whole(v.substr(second + 1));
    if (!index || !delay || *index < 0 || *delay < 0)
        return ValueError("--inject-slow-group must be DIM:INDEX[:MILLISECONDS], got \"" + v + "\"");
    o.slow_dim = v.substr(0, first);
    o.slow_index = *index;
    o.slow_delay = std::chrono::milliseconds{*delay};
    return std::nullopt;
}

// One option `a` with its value `v`; the error when the option is unknown or its value is not one it takes.
std::optional<Error> read_option(ProbeOptions& o, const std::string& a, const std::string& v, bool& gpus_given) {
    if (a == "--dp" || a == "--cp" || a == "--ep" || a == "--gpus-per-node" || a == "--iters" || a == "--local" ||
        a == "--timeout") {
        const auto n = whole(v);
        if (!n || *n < 1) return ValueError(a + " must be a positive whole number, got \"" + v + "\"");
        if (a == "--dp") o.dp = *n;
        if (a == "--cp") o.cp = *n;
        if (a == "--ep") o.ep = *n;
        if (a == "--gpus-per-node") o.gpus_per_node = *n, gpus_given = true;
        if (a == "--iters") o.iters = static_cast<int>(std::min<std::int64_t>(*n, 100000));
        if (a == "--local") o.local = static_cast<int>(std::min<std::int64_t>(*n, 4096));
        if (a == "--timeout") o.timeout = std::chrono::milliseconds{std::min<std::int64_t>(*n, 86400) * 1000};
    } else if (a == "--warmup") {
        const auto n = whole(v);
        if (!n || *n < 0) return ValueError("--warmup must be a whole number, got \"" + v + "\"");
        o.warmup = static_cast<int>(std::min<std::int64_t>(*n, 1000));
    } else if (a == "--plan") {
        o.plan_file = v;
    } else if (a == "--order") {
        if (v != "torch29" && v != "torch28")
            return ValueError("--order must be torch29 or torch28, got \"" + v + "\"");
        o.order = v;
    } else if (a == "--backend") {
        if (v != "gloo" && v != "nccl") return ValueError("--backend must be gloo or nccl, got \"" + v + "\"");
        o.backend = v;
    } else if (a == "--sizes") {
        auto s = parse_sizes(v);
        if (!s) return s.error();
        o.sizes = *s;
    } else if (a == "--collector") {
        o.collector = v;
    } else if (a == "--token") {
        o.token = v;
    } else if (a == "--job") {
        o.job = v;
    } else if (a == "--bind") {
        o.bind_address = v;
    } else if (a == "--inject-slow-group") {
        return read_slow_group(o, v);
    } else if (a == "--inject-absent") {
        o.absent_dim = v;
    } else if (a == "--dump-results") {
        // Test hook: every collective's input and output, for a check against another library's.
        o.dump_dir = v;
    } else {
        return ValueError("unknown option \"" + a + "\"");
    }
    return std::nullopt;
}

// What the options mean together: --local's world, the rank inside the world, a collector, the job's name.
Expected<ProbeOptions> complete_options(ProbeOptions o, bool gpus_given, const std::string& launcher_job) {
    if (!o.plan_file.empty() && (o.dp || o.cp || o.ep))
        return ValueError("give either --plan or --dp/--cp/--ep, not both");
    if (o.local > 0) {
        o.world = o.local;
        if (!gpus_given) o.gpus_per_node = o.local;
        if (o.bind_address.empty()) o.bind_address = "127.0.0.1";
    }
    if (o.rank < 0 || o.world < 1 || o.rank >= o.world)
        return ValueError("the launcher's rank " + std::to_string(o.rank) + " is not below its world size " +
                          std::to_string(o.world));
    if (o.collector.empty())
        return ValueError(
            "meshscope-probe needs a collector, which is also its rendezvous: pass --collector URL or "
            "set MESHSCOPE_URL (start one with meshscope serve)");
    if (o.job.empty() && !launcher_job.empty()) o.job = launcher_job.substr(0, 122) + "-probe";
    return o;
}
}  // namespace

Expected<ProbeOptions> parse_probe_options(const std::vector<std::string>& args, const Environment& env) {
    ProbeOptions o;
    o.sizes = *parse_sizes("1K:1M");
    const std::string launcher_job = read_launcher(o, env);
    bool gpus_given = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            o.help = true;
            return o;
        }
        if (a == "--version") {
            o.version = true;
            return o;
        }
        if (a == "--one-group-at-a-time") {
            o.one_group_at_a_time = true;
            continue;
        }
        if (i + 1 >= args.size())
            return ValueError(a.rfind("--", 0) == 0 ? a + " needs a value" : "unknown argument \"" + a + "\"");
        if (auto error = read_option(o, a, args[++i], gpus_given)) return *error;
    }
    return complete_options(std::move(o), gpus_given, launcher_job);
}

}  // namespace meshscope::probe
