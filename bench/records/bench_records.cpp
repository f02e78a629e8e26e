// The NCCL INFO log reader on a log shaped like a real start-up: per rank the version, the world init, topology,
// channel and transport lines (most of a real log, skipped at the cost of one search), the splits of a plan's
// groups, and timings; 8 ranks per host, interleaved as one file for the job. Reported as bytes per second.
//
// Flight Recorder: dumps shaped as torch 2.x writes them for a rank of a large NCCL job (see make_fr_dump), read
// from memory (entries/s), and a whole job written to disk for `meshscope diagnose` to read:
//   bench_records --write-fr-job DIR RANKS ENTRIES pickle|json [CULPRIT]   (then: meshscope diagnose DIR --dp RANKS
//   --ep 8); with CULPRIT, a hung job whose root cause is that rank (FrJob::culprit)
// and a whole job's NCCL log as one plain file (about 5 KB per rank; 60,000 ranks make 300 MB):
//   bench_records --write-nccl-log FILE RANKS                    (then: meshscope diagnose FILE)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "meshscope/records/diagnose.h"
#include "meshscope/records/nccl_log.h"

#include <nlohmann/json.hpp>

namespace {
std::string make_log(int world) {
    std::string out;
    for (int r = 0; r < world; ++r) {
        const std::string p = "[rank" + std::to_string(r) + "]:node" + std::to_string(r / 8) + ":" +
                              std::to_string(40000 + r) + ":" + std::to_string(40100 + r) + " [" +
                              std::to_string(r % 8) + "] NCCL INFO ";
        const std::string comm = "0x55" + std::to_string(100000 + r) + "a0";
        out += p + "NCCL version 2.26.2+cuda12.8\n";
        out += p + "ncclCommInitRankConfig comm " + comm + " rank " + std::to_string(r) + " nranks " +
               std::to_string(world) + " cudaDev 0 nvmlDev 0 busId 1b000 commId 0x7c0ffee0d15ea5e1 - Init START\n";
        for (int c = 0; c < 32; ++c)
            out += p + "Channel " + std::to_string(c) + "/32 : 0[0] -> 1[1] via P2P/CUMEM/read\n";
        for (int c = 0; c < 8; ++c) out += p + "Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1\n";
        out += p + "comm " + comm + " rank " + std::to_string(r) + " nRanks " + std::to_string(world) +
               " nNodes 2 localRanks 8 localRank 0 MNNVL 0\n";
        out += p + "ncclCommInitRankConfig comm " + comm + " rank " + std::to_string(r) + " nranks " +
               std::to_string(world) + " cudaDev 0 nvmlDev 0 busId 1b000 commId 0x7c0ffee0d15ea5e1 - Init COMPLETE\n";
        for (int s = 1; s <= 4; ++s)
            out += p + "ncclCommSplit comm 0x66" + std::to_string(r) +
                   " rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 1b000 parent " + comm + " splitCount " +
                   std::to_string(s) + " color 0 key " + std::to_string(r) + "- Init START\n";
    }
    return out;
}

void BM_NcclLog(benchmark::State& state) {
    const std::string log = make_log(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        meshscope::records::NcclLog parsed;
        meshscope::records::NcclLogParser parser("bench.log", parsed);
        for (std::size_t i = 0; i < log.size(); i += 1 << 20) parser.feed(std::string_view(log).substr(i, 1 << 20));
        parser.finish();
        benchmark::DoNotOptimize(parsed.comm_lines.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(log.size()));
    state.counters["MB"] = static_cast<double>(log.size()) / 1e6;
}
BENCHMARK(BM_NcclLog)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond);

// One rank's Flight Recorder dump as torch 2.x writes it for an NCCL job of `world` ranks (dp = world, ep 8: the
// layout of tests/records/fixtures/fr, where rank r's efsdp group is named 1 + r % 8 and its ep group 9 + r / 8):
// version "2.10", pg_config with each of the rank's three groups and its ranks as torch writes them (a string,
// the world's every rank), pg_status, and `entries` records (TORCH_FR_BUFFER_SIZE, 2,000 by default) cycling
// over the world, efsdp and ep groups, each with the fields of torch 2.15's entries and a stack of `depth`
// Python frames (torch records them unless told not to). The pickle is written the way torch's C++ pickler
// writes it: protocol 2, every string stored once in the memo and fetched after (BINGET), a frame shared by
// entries written once and fetched after, lists as EMPTY_LIST MARK ... APPENDS, dicts as EMPTY_DICT MARK ...
// SETITEMS, (name, desc) as TUPLE2. The JSON form is _dump_fr_trace_json's: compact, keys sorted, pg_status
// counters as strings.
struct FrJob {
    int world = 16384;
    int entries = 2000;
    int depth = 24;  // frames per entry
    // A hang (the verdict's and the hang map's work): this rank skips its ep group's last all_to_all and goes on to
    // the world's all_reduce; its ep peers wait in the all_to_all, every other rank in the all_reduce (NCCL's
    // states: "started", nothing after). -1: a healthy job, every entry completed.
    int culprit = -1;
};

// Which of a rank's entries its dump holds, and whether each completed: all of them in a healthy job; in a hang, up
// to the last ep all_to_all followed by a world all_reduce (FrJob::culprit).
struct EntryPlan {
    int count = 0;  // entries 0..count-1, but `skipped`
    int skipped = -1;
    int started = -1;  // the one not completed
};
EntryPlan entry_plan(const FrJob& job, int rank) {
    if (job.culprit < 0) return {job.entries, -1, -1};
    int ep = job.entries - 2;  // the last index i with i % 3 == 2 (ep) and i + 1 < entries (the world's next)
    while (ep % 3 != 2) --ep;
    if (rank == job.culprit) return {ep + 2, ep, ep + 1};
    if (rank / 8 == job.culprit / 8) return {ep + 1, -1, ep};
    return {ep + 2, -1, ep + 1};
}

struct Frame {
    std::string name, filename;
    int line;
};

// Six call paths (forward and backward of each group's collective) over 16 frames of the training loop.
std::vector<std::vector<Frame>> call_paths(int depth) {
    std::vector<Frame> loop = {
        {"<module>", "/workspace/LlamaFactory/src/llamafactory/launcher.py", 23},
        {"run_exp", "/workspace/LlamaFactory/src/llamafactory/train/tuner.py", 110},
        {"_training_function", "/workspace/LlamaFactory/src/llamafactory/train/tuner.py", 72},
        {"run_sft", "/workspace/LlamaFactory/src/llamafactory/train/sft/workflow.py", 96},
        {"train", "/opt/conda/lib/python3.11/site-packages/transformers/trainer.py", 2245},
        {"_inner_training_loop", "/opt/conda/lib/python3.11/site-packages/transformers/trainer.py", 2560},
        {"training_step", "/opt/conda/lib/python3.11/site-packages/transformers/trainer.py", 3736},
        {"compute_loss", "/opt/conda/lib/python3.11/site-packages/transformers/trainer.py", 3801},
        {"_wrapped_call_impl", "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", 1773},
        {"_call_impl", "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", 1784},
        {"forward", "/opt/conda/lib/python3.11/site-packages/transformers/models/qwen3_moe/modeling_qwen3_moe.py", 661},
        {"forward", "/opt/conda/lib/python3.11/site-packages/transformers/models/qwen3_moe/modeling_qwen3_moe.py", 402},
        {"_wrapped_call_impl", "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", 1773},
        {"_call_impl", "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", 1784},
        {"forward", "/workspace/LlamaFactory/src/llamafactory/model/model_utils/fsdp_turbo.py", 318},
        {"_pre_forward", "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/_fully_shard/_fsdp_state.py",
         241},
    };
    std::vector<std::vector<Frame>> out;
    for (int path = 0; path < 6; ++path) {
        std::vector<Frame> frames(loop.begin(), loop.end());
        for (int k = static_cast<int>(frames.size()); k < depth; ++k)
            frames.push_back(
                {path % 2 ? "backward_hook_" + std::to_string(k) : "all_to_all_dispatch_" + std::to_string(k),
                 "/opt/conda/lib/python3.11/site-packages/torch/distributed/_functional_collectives_" +
                     std::to_string(path) + ".py",
                 100 + 7 * k + path});
        frames.resize(static_cast<std::size_t>(depth));
        std::reverse(frames.begin(), frames.end());  // innermost first, as torch lists them
        out.push_back(std::move(frames));
    }
    return out;
}

struct FrRecord {
    std::int64_t record_id, pg_id, seq, time;
    std::string pg_name, pg_desc, profiling_name;
    std::int64_t in_size, out_size;
    int path;
};

FrRecord fr_record(const FrJob& job, int rank, int i) {
    const int g = i % 3;
    const std::int64_t base = 120000;  // the ring buffer keeps the last entries of a long job
    FrRecord r;
    r.record_id = base + i;
    r.pg_id = g;
    r.seq = base / 3 + i / 3 + 1;
    r.time = 1796308171945793676LL + static_cast<std::int64_t>(i) * 1000000 + rank * 1000;
    const bool second = (i / 3) % 2;
    if (g == 0) {
        r.pg_name = "0";
        r.pg_desc = "default_pg";
        r.profiling_name = "nccl:all_reduce";
        r.in_size = r.out_size = 1;
    } else if (g == 1) {
        r.pg_name = std::to_string(1 + rank % 8);
        r.pg_desc = "mesh_efsdp";
        r.profiling_name = second ? "nccl:_reduce_scatter_base" : "nccl:_allgather_base";
        r.in_size = second ? 16777216 : 8192;
        r.out_size = second ? 8192 : 16777216;
    } else {
        r.pg_name = std::to_string(9 + rank / 8);
        r.pg_desc = "mesh_ep";
        r.profiling_name = "nccl:all_to_all";
        r.in_size = r.out_size = 2097152;
    }
    r.path = g * 2 + (second ? 1 : 0);
    (void)job;
    return r;
}

std::string ranks_text(int first, int count, int stride) {
    std::string out = "[";
    for (int k = 0; k < count; ++k) out += (k ? ", " : "") + std::to_string(first + k * stride);
    return out + "]";
}

// torch's pickler, as far as a dump needs it.
class Pickler {
public:
    std::string out = std::string("\x80\x02", 2);

    void put() {
        const std::uint32_t index = next_++;
        if (index < 256) {
            out += 'q';
            out += static_cast<char>(index);
        } else {
            out += 'r';
            le(index, 4);
        }
    }
    void get(std::uint32_t index) {
        if (index < 256) {
            out += 'h';
            out += static_cast<char>(index);
        } else {
            out += 'j';
            le(index, 4);
        }
    }
    void str(const std::string& s) {
        if (const auto it = strings_.find(s); it != strings_.end()) return get(it->second);
        out += 'X';
        le(s.size(), 4);
        out += s;
        strings_.emplace(s, next_);
        put();
    }
    void integer(std::int64_t v) {
        if (v >= 0 && v < 256) {
            out += 'K';
            le(static_cast<std::uint64_t>(v), 1);
        } else if (v >= 0 && v < 65536) {
            out += 'M';
            le(static_cast<std::uint64_t>(v), 2);
        } else if (v >= INT32_MIN && v <= INT32_MAX) {
            out += 'J';
            le(static_cast<std::uint64_t>(v), 4);
        } else {
            out += "\x8a\x08";
            le(static_cast<std::uint64_t>(v), 8);
        }
    }
    void boolean(bool v) { out += v ? '\x88' : '\x89'; }
    void real(double v) {
        std::uint64_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        out += 'G';
        for (int k = 7; k >= 0; --k) out += static_cast<char>((bits >> (8 * k)) & 0xff);
    }
    void none() { out += 'N'; }
    void begin_dict() { out += "}("; }
    void end_dict() { out += 'u'; }
    void begin_list() { out += "]("; }
    void end_list() { out += 'e'; }
    void tuple2() { out += '\x86'; }
    // A shared value (a frame): written the first time, then fetched from the memo.
    template <class F>
    void shared(const void* key, F&& write) {
        if (const auto it = shared_.find(key); it != shared_.end()) return get(it->second);
        write();
        shared_.emplace(key, next_);
        put();
    }
    void stop() { out += '.'; }

private:
    void le(std::uint64_t v, int n) {
        for (int k = 0; k < n; ++k) out += static_cast<char>((v >> (8 * k)) & 0xff);
    }
    std::uint32_t next_ = 0;
    std::unordered_map<std::string, std::uint32_t> strings_;
    std::unordered_map<const void*, std::uint32_t> shared_;
};

std::string fr_pickle(const FrJob& job, int rank, const std::vector<std::vector<Frame>>& paths) {
    Pickler p;
    p.begin_dict();
    p.str("version");
    p.str("2.10");
    p.str("pg_config");
    p.begin_dict();
    const std::string efsdp = std::to_string(1 + rank % 8), ep = std::to_string(9 + rank / 8);
    for (const auto& [name, desc, ranks] : {std::tuple{std::string("0"), "default_pg", ranks_text(0, job.world, 1)},
                                            std::tuple{efsdp, "mesh_efsdp", ranks_text(rank % 8, job.world / 8, 8)},
                                            std::tuple{ep, "mesh_ep", ranks_text(rank / 8 * 8, 8, 1)}}) {
        p.str(name);
        p.begin_dict();
        p.str("name");
        p.str(name);
        p.str("desc");
        p.str(desc);
        p.str("ranks");
        p.str(ranks);
        p.end_dict();
    }
    p.end_dict();
    p.str("comm_lib_version");
    p.str("2.27.5");
    p.str("pg_status");
    p.begin_dict();
    const std::int64_t last = fr_record(job, rank, job.entries - 1).seq;
    for (const auto* id : {"0", "1", "2"}) {
        p.str(id);
        p.begin_dict();
        for (const auto* key : {"last_enqueued_collective", "last_started_collective", "last_completed_collective"}) {
            p.str(key);
            p.integer(last);
        }
        p.end_dict();
    }
    p.end_dict();
    p.str("entries");
    p.begin_list();
    const EntryPlan plan = entry_plan(job, rank);
    for (int i = 0; i < plan.count; ++i) {
        if (i == plan.skipped) continue;
        const FrRecord r = fr_record(job, rank, i);
        p.begin_dict();
        p.str("record_id");
        p.integer(r.record_id);
        p.str("pg_id");
        p.integer(r.pg_id);
        p.str("process_group");
        p.str(r.pg_name);
        p.str(r.pg_desc);
        p.tuple2();
        p.str("thread_name");
        p.str("pt_main_thread");
        p.str("thread_id");
        p.str("140403720768384");
        p.str("collective_seq_id");
        p.integer(r.seq);
        p.str("p2p_seq_id");
        p.integer(0);
        p.str("op_id");
        p.integer(r.seq);
        p.str("profiling_name");
        p.str(r.profiling_name);
        p.str("time_created_ns");
        p.integer(r.time);
        for (const auto* key : {"input_sizes", "input_dtypes", "output_sizes", "output_dtypes"}) {
            p.str(key);
            p.begin_list();
            if (std::string_view(key).ends_with("sizes")) {
                p.begin_list();
                p.integer(key[0] == 'i' ? r.in_size : r.out_size);
                p.end_list();
            } else
                p.str("BFloat16");
            p.end_list();
        }
        p.str("state");
        p.str(i == plan.started ? "started" : "completed");
        p.str("time_discovered_started_ns");
        p.integer(r.time + 20000);
        p.str("time_discovered_completed_ns");
        p.integer(r.time + 900000);
        p.str("retired");
        p.boolean(true);
        p.str("timeout_ms");
        p.integer(600000);
        p.str("is_p2p");
        p.boolean(false);
        p.str("duration_ms");
        p.real(0.875);
        p.str("frames");
        p.begin_list();
        for (const Frame& f : paths[static_cast<std::size_t>(r.path)])
            p.shared(&f, [&] {
                p.begin_dict();
                p.str("name");
                p.str(f.name);
                p.str("filename");
                p.str(f.filename);
                p.str("line");
                p.integer(f.line);
                p.end_dict();
            });
        p.end_list();
        p.end_dict();
    }
    p.end_list();
    p.end_dict();
    p.stop();
    return std::move(p.out);
}

std::string fr_json(const FrJob& job, int rank, const std::vector<std::vector<Frame>>& paths) {
    nlohmann::json d;
    d["version"] = "2.10";
    d["comm_lib_version"] = "2.27.5";
    const std::string efsdp = std::to_string(1 + rank % 8), ep = std::to_string(9 + rank / 8);
    d["pg_config"]["0"] = {{"name", "0"}, {"desc", "default_pg"}, {"ranks", ranks_text(0, job.world, 1)}};
    d["pg_config"][efsdp] = {
        {"name", efsdp}, {"desc", "mesh_efsdp"}, {"ranks", ranks_text(rank % 8, job.world / 8, 8)}};
    d["pg_config"][ep] = {{"name", ep}, {"desc", "mesh_ep"}, {"ranks", ranks_text(rank / 8 * 8, 8, 1)}};
    const std::string last = std::to_string(fr_record(job, rank, job.entries - 1).seq);
    for (const auto* id : {"0", "1", "2"})
        d["pg_status"][id] = {
            {"last_enqueued_collective", last}, {"last_started_collective", last}, {"last_completed_collective", last}};
    nlohmann::json list = nlohmann::json::array();
    const EntryPlan plan = entry_plan(job, rank);
    for (int i = 0; i < plan.count; ++i) {
        if (i == plan.skipped) continue;
        const FrRecord r = fr_record(job, rank, i);
        nlohmann::json frames = nlohmann::json::array();
        for (const Frame& f : paths[static_cast<std::size_t>(r.path)])
            frames.push_back({{"name", f.name}, {"filename", f.filename}, {"line", f.line}});
        list.push_back({{"record_id", r.record_id},
                        {"pg_id", r.pg_id},
                        {"process_group", {r.pg_name, r.pg_desc}},
                        {"collective_seq_id", r.seq},
                        {"p2p_seq_id", 0},
                        {"op_id", r.seq},
                        {"profiling_name", r.profiling_name},
                        {"time_created_ns", r.time},
                        {"input_sizes", {{r.in_size}}},
                        {"input_dtypes", {"BFloat16"}},
                        {"output_sizes", {{r.out_size}}},
                        {"output_dtypes", {"BFloat16"}},
                        {"state", i == plan.started ? "started" : "completed"},
                        {"time_discovered_started_ns", r.time + 20000},
                        {"time_discovered_completed_ns", r.time + 900000},
                        {"retired", true},
                        {"timeout_ms", 600000},
                        {"is_p2p", false},
                        {"duration_ms", 0.875},
                        {"frames", std::move(frames)},
                        {"thread_id", "140403720768384"},
                        {"thread_name", "pt_main_thread"}});
    }
    d["entries"] = std::move(list);
    return d.dump();
}

std::string make_fr_dump(const FrJob& job, int rank, bool json) {
    static const auto paths = call_paths(job.depth);
    return json ? fr_json(job, rank, paths) : fr_pickle(job, rank, paths);
}

// One rank's dump of a 16,384-rank job, read from memory by `read` (read_fr_dump, or its generic reader alone).
template <class Read>
void fr_read(benchmark::State& state, bool json, Read&& read) {
    FrJob job;
    job.entries = static_cast<int>(state.range(0));
    const std::string dump = make_fr_dump(job, 3, json);
    for (auto _ : state) {
        auto d = read(dump);
        if (!d) {
            state.SkipWithError(d.error().message().c_str());
            break;
        }
        benchmark::DoNotOptimize(d->entries.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(dump.size()));
    state.counters["entries/s"] = benchmark::Counter(
        static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["MB"] = static_cast<double>(dump.size()) / 1e6;
}
void BM_FrDumpPickle(benchmark::State& state) {
    fr_read(state, false, [](std::string_view d) { return meshscope::records::read_fr_dump(d, "nccl_trace_rank_3"); });
}
// The same pickle through the generic reader (a tree of its values, then the records): what a pickle that is not
// in torch's shape costs.
void BM_FrDumpPickleGeneric(benchmark::State& state) {
    fr_read(state, false, [](std::string_view d) {
        return meshscope::records::detail::read_fr_dump_generic(d, "nccl_trace_rank_3");
    });
}
void BM_FrDumpJson(benchmark::State& state) {
    fr_read(state, true, [](std::string_view d) { return meshscope::records::read_fr_dump(d, "nccl_trace_rank_3"); });
}
BENCHMARK(BM_FrDumpPickle)->Arg(2000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FrDumpPickleGeneric)->Arg(2000)->Unit(benchmark::kMillisecond);

// The least a reader on nlohmann's SAX interface would cost on the same JSON dump: the parse alone, every event
// ignored (what docs/libraries.md compares the hand-written cursor with).
struct IgnoreEvents : nlohmann::json_sax<nlohmann::json> {
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};
void BM_FrJsonNlohmannSax(benchmark::State& state) {
    FrJob job;
    job.entries = static_cast<int>(state.range(0));
    const std::string dump = make_fr_dump(job, 3, true);
    for (auto _ : state) {
        IgnoreEvents events;
        benchmark::DoNotOptimize(nlohmann::json::sax_parse(dump, &events));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(dump.size()));
    state.counters["entries/s"] = benchmark::Counter(
        static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FrJsonNlohmannSax)->Arg(2000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FrDumpJson)->Arg(2000)->Unit(benchmark::kMillisecond);

// The diagnosis of `ranks` dumps already read (dp = ranks, ep 8), each with `entries` entries; with a culprit, the
// job hangs on it (FrJob::culprit) and the diagnosis must name it.
void diagnose_fr_job(benchmark::State& state, int culprit) {
    FrJob job;
    job.world = static_cast<int>(state.range(0));
    job.entries = static_cast<int>(state.range(1));
    job.culprit = culprit;
    meshscope::records::RecordSet set;
    meshscope::records::FrShared shared;
    for (int r = 0; r < job.world; ++r)
        set.dumps.push_back(meshscope::records::read_fr_dump(make_fr_dump(job, r, false),
                                                             "nccl_trace_rank_" + std::to_string(r), &shared)
                                .value());
    const auto plan = meshscope::Plan::make(meshscope::Topology::make(job.world, 1, 8).value(), 8).value();
    for (auto _ : state) {
        auto diagnosis = meshscope::records::diagnose(set, &plan);
        if (culprit >= 0 &&
            (diagnosis.verdicts.empty() || diagnosis.verdicts.front().ranks != std::vector<std::int64_t>{culprit}))
            state.SkipWithError("the verdict does not name the culprit");
        benchmark::DoNotOptimize(diagnosis.positions.data());
    }
}
void BM_DiagnoseFr(benchmark::State& state) {
    diagnose_fr_job(state, -1);
}
BENCHMARK(BM_DiagnoseFr)->Args({1024, 200})->Args({1024, 2000})->Unit(benchmark::kMillisecond)->UseRealTime();

// The same with a hang on rank 13: the verdict follows who waits on whom and every rank gets its place on the hang
// map; run beside BM_DiagnoseFr, the ratio is the root cause's cost.
void BM_DiagnoseFrHang(benchmark::State& state) {
    diagnose_fr_job(state, 13);
}
BENCHMARK(BM_DiagnoseFrHang)->Args({1024, 200})->Args({1024, 2000})->Unit(benchmark::kMillisecond)->UseRealTime();

// Writes a job's dumps as torch names them (TORCH_FR_DUMP_TEMP_FILE's default prefix + rank).
int write_fr_job(const std::string& dir, int world, int entries, bool json, int culprit) {
    FrJob job;
    job.world = world;
    job.entries = entries;
    job.culprit = culprit;
    std::filesystem::create_directories(dir);
    std::uint64_t bytes = 0;
    for (int r = 0; r < world; ++r) {
        const std::string dump = make_fr_dump(job, r, json);
        std::ofstream out(dir + "/nccl_trace_rank_" + std::to_string(r) + (json ? ".json" : ""), std::ios::binary);
        out.write(dump.data(), static_cast<std::streamsize>(dump.size()));
        if (!out) {
            std::fprintf(stderr, "bench_records: cannot write into %s\n", dir.c_str());
            return 1;
        }
        bytes += dump.size();
    }
    std::printf("wrote %d dumps of %d entries (%s), %.2f GB, in %s\n", world, entries, json ? "json" : "pickle",
                static_cast<double>(bytes) / 1e9, dir.c_str());
    return 0;
}
}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::strcmp(argv[1], "--write-nccl-log") == 0) {
        std::ofstream out(argv[2], std::ios::binary);
        out << make_log(std::atoi(argv[3]));
        out.close();
        if (!out) std::fprintf(stderr, "bench_records: cannot write %s\n", argv[2]);
        return out ? 0 : 1;
    }
    if ((argc == 6 || argc == 7) && std::strcmp(argv[1], "--write-fr-job") == 0)
        return write_fr_job(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), std::strcmp(argv[5], "json") == 0,
                            argc == 7 ? std::atoi(argv[6]) : -1);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
