#include "record_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "meshscope/mesh/json_limits.h"
#include "meshscope/mesh/parallel_for.h"
#include "meshscope/mesh/plan_json.h"
#include "meshscope/mesh/plan_request.h"

namespace meshscope::app {

namespace {
namespace fs = std::filesystem;

// A file read as it is, or through zlib when it starts with gzip's magic bytes (NCCL logs are often kept as
// .gz; gzread reads a plain file as it is too, so one reader serves both).
class FileSource final : public records::ByteSource {
public:
    explicit FileSource(std::string path) : name_(std::move(path)) {
        file_ = gzopen(name_.c_str(), "rb");
        if (!file_) throw std::runtime_error(name_ + ": cannot open (" + std::strerror(errno) + ")");
        gzbuffer(file_, 1 << 17);
    }
    ~FileSource() override {
        if (file_) gzclose(file_);
    }
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;
    [[nodiscard]] const std::string& name() const override { return name_; }
    std::size_t read(std::span<char> buffer) override {
        const int n =
            gzread(file_, buffer.data(), static_cast<unsigned>(std::min<std::size_t>(buffer.size(), 1u << 30)));
        if (n < 0) {
            int code = 0;
            const char* message = gzerror(file_, &code);
            throw std::runtime_error(name_ + ": cannot read (" + (code == Z_ERRNO ? std::strerror(errno) : message) +
                                     ")");
        }
        return static_cast<std::size_t>(n);
    }

private:
    std::string name_;
    gzFile file_ = nullptr;
};

void add_problem(records::RecordSet& into, const std::string& file, const std::string& message) {
    into.problems.push_back(records::read_problem(file, 0, message));
}

// What one file turned out to be. Documents (Flight Recorder dumps, RAS status) are read on any thread; an NCCL
// log is left to the caller, which reads logs in file order into the one NcclLog they share.
struct Outcome {
    bool log = false;
    std::optional<records::FrDump> dump;
    std::optional<records::RasStatus> ras;
    std::string problem;
};

// The first bytes decide what a file is: a pickle starts with PROTO (0x80), a JSON document with '{' (after white
// space), RAS's text status with "NCCL version "; anything else is an NCCL log.
constexpr std::size_t head_size = 4096;
bool is_document(std::string_view head) {
    std::size_t first = 0;
    while (first < head.size() && std::strchr(" \t\r\n", head[first])) ++first;
    return (!head.empty() && static_cast<unsigned char>(head[0]) == 0x80) ||
           (first < head.size() && head[first] == '{') || records::looks_like_ras_text(head);
}

// A plain file of at most `limit` bytes read into `buffer`, whose capacity stays with the thread (a job's dumps are
// thousands of files of about one size): its head first, then, when the head says it is a document, the rest with
// one read(); an NCCL log is left after its head (`log` set, `bytes` the head), for read_log to stream: memory is
// the job's records, not a log's bytes. False for anything else (a gzip file, one larger than the limit, one that
// cannot be opened or read), which FileSource then reads, with its errors.
bool read_plain(const std::string& path, std::size_t limit, std::string& buffer, std::string_view& bytes, bool& log) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat info {};
    std::size_t size = 0;
    bool ok = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_size) <= limit;
    if (ok) {
        // One byte past the size, to see a file that grew since.
        const std::size_t want = static_cast<std::size_t>(info.st_size) + 1;
        const auto read_up_to = [&](std::size_t end) {
            if (buffer.size() < end) buffer.resize(end);
            while (size < end) {
                const ssize_t n = ::read(fd, buffer.data() + size, end - size);
                if (n == 0) return true;
                if (n < 0) {
                    if (errno == EINTR) continue;
                    return false;
                }
                size += static_cast<std::size_t>(n);
            }
            return true;
        };
        ok = read_up_to(std::min(want, head_size));
        const bool gzip =
            size >= 2 && static_cast<unsigned char>(buffer[0]) == 0x1f && static_cast<unsigned char>(buffer[1]) == 0x8b;
        if (ok && !gzip && !is_document(std::string_view(buffer.data(), size))) {
            ::close(fd);
            log = true;
            bytes = std::string_view(buffer.data(), size);
            return true;
        }
        ok = ok && !gzip && read_up_to(want) && size < want;
    }
    ::close(fd);
    if (!ok ||
        (size >= 2 && static_cast<unsigned char>(buffer[0]) == 0x1f && static_cast<unsigned char>(buffer[1]) == 0x8b))
        return false;
    bytes = std::string_view(buffer.data(), size);
    return true;
}

Outcome read_document(const std::string& path, const RecordLimits& limits, records::FrShared& shared) {
    Outcome out;
    // The first bytes decide: a pickle starts with PROTO (0x80), a JSON document with '{', RAS's text status with
    // "NCCL version "; anything else is a log.
    thread_local std::string buffer;
    std::string_view whole;
    std::optional<FileSource> source;
    std::string head_read;
    bool plain_log = false;
    const bool plain = read_plain(path, limits.max_document, buffer, whole, plain_log);
    if (plain && plain_log) {
        out.log = true;
        return out;
    }
    if (!plain) {
        source.emplace(path);
        head_read.resize(head_size);
        std::size_t got = 0;
        while (got < head_read.size()) {
            const std::size_t n = source->read(std::span<char>(head_read.data() + got, head_read.size() - got));
            if (n == 0) break;
            got += n;
        }
        head_read.resize(got);
    }
    const std::string_view head = source ? std::string_view(head_read) : whole.substr(0, head_size);
    const std::size_t got = head.size();
    // The whole file: read already, or the rest read through zlib after the head.
    std::string rest;
    const auto all = [&]() -> std::string_view {
        if (!source) return whole;
        rest = head_read;
        rest += records::read_all(*source, limits.max_document - std::min(got, limits.max_document));
        return rest;
    };
    std::size_t first = 0;
    while (first < got && std::strchr(" \t\r\n", head[first])) ++first;
    const bool pickle = got > 0 && static_cast<unsigned char>(head[0]) == 0x80;
    const bool document = first < got && head[first] == '{';
    if (!pickle && !document && records::looks_like_ras_text(head)) {
        // `ncclras -v` (RAS's text status) starts with its version line, which no NCCL log line does (they start
        // with host:pid:tid).
        auto status = records::read_ras_text(all(), path);
        if (status)
            out.ras = std::move(status).value();
        else
            out.problem = status.error().message();
        return out;
    }
    if (!pickle && !document) {
        out.log = true;
        return out;
    }
    const std::string_view bytes = all();
    if (document && bytes.find("\"communicators\"") != std::string::npos &&
        bytes.find("\"nccl_version\"") != std::string::npos) {
        auto status = records::read_ras_json(bytes, path);
        if (status)
            out.ras = std::move(status).value();
        else
            out.problem = status.error().message();
        return out;
    }
    if (document && bytes.find("\"entries\"") == std::string::npos &&
        bytes.find("\"pg_config\"") == std::string::npos) {
        out.problem = path +
                      ": a JSON document that is neither a Flight Recorder dump (entries, pg_config) nor NCCL RAS "
                      "status (communicators, nccl_version), skipped";
        return out;
    }
    auto dump = records::read_fr_dump(bytes, path, &shared);
    if (buffer.capacity() > (std::size_t{64} << 20)) std::string().swap(buffer);  // one unusually large file
    if (!dump)
        out.problem = dump.error().message();
    else if (dump->rank < 0)
        out.problem = path + ": no rank at the end of the file name (Flight Recorder names its dumps prefix + rank)";
    else
        out.dump = std::move(dump).value();
    return out;
}

void read_log(const std::string& path, records::RecordSet& into) {
    FileSource source(path);
    records::NcclLogParser parser(path, into.nccl);
    char buffer[1 << 16];
    for (std::size_t n; (n = source.read(buffer)) != 0;) parser.feed(std::string_view(buffer, n));
    parser.finish();
}
}  // namespace

void load_records(const std::vector<std::string>& paths, records::RecordSet& into, const RecordLimits& limits) {
    std::vector<std::string> files;
    for (const auto& path : paths) {
        std::error_code ec;
        const auto status = fs::status(path, ec);
        if (ec || !fs::exists(status)) {
            add_problem(into, path, path + ": no such file or directory");
            continue;
        }
        if (!fs::is_directory(status)) {
            files.push_back(path);
            continue;
        }
        std::vector<std::string> found;
        for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
            if (it->is_regular_file(ec)) found.push_back(it->path().string());
        if (ec) add_problem(into, path, path + ": cannot list (" + ec.message() + ")");
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    }
    if (files.size() > limits.max_files) {
        add_problem(into, paths.front(),
                    "more than " + std::to_string(limits.max_files) + " files given; the first " +
                        std::to_string(limits.max_files) + " are read");
        files.resize(limits.max_files);
    }
    // Documents are read by a few threads, each taking the next file: a job's dumps are thousands of files, and
    // only one file's bytes per thread are held at a time (the dumps kept are compact). Results are taken in file
    // order, so what is read and every problem come out as a single thread would give them.
    std::vector<Outcome> outcomes(files.size());
    records::FrShared shared;
    parallel_for(files.size(), parallel_threads(files.size() + 1, 8), [&](std::size_t i) {
        try {
            outcomes[i] = read_document(files[i], limits, shared);
        } catch (const std::exception& e) {
            outcomes[i] = Outcome{};
            outcomes[i].problem = e.what();
        }
    });
    for (std::size_t i = 0; i < files.size(); ++i) {
        Outcome& o = outcomes[i];
        if (o.log) {
            try {
                read_log(files[i], into);
            } catch (const std::exception& e) {
                add_problem(into, files[i], e.what());
            }
        } else if (o.dump)
            into.dumps.push_back(std::move(*o.dump));
        else if (o.ras)
            into.ras.push_back(std::move(*o.ras));
        else if (!o.problem.empty())
            add_problem(into, files[i], o.problem);
        o = Outcome{};
    }
}

bool load_usable_records(const std::string& command, const std::vector<std::string>& paths, records::RecordSet& into,
                         const std::string& nothing_done) {
    load_records(paths, into);
    for (const auto& problem : into.problems)
        std::cerr << "meshscope " << command << ": " << records::printable(problem.message) << "\n";
    if (!into.nccl.comm_lines.empty() || !into.dumps.empty() || !into.ras.empty()) return true;
    std::cerr << "meshscope " << command << ": no NCCL init line, Flight Recorder dump or RAS status found in "
              << paths.size() << (paths.size() == 1 ? " path" : " paths") << nothing_done << "\n"
              << "hint: give NCCL_DEBUG=INFO logs, TORCH_FR_DUMP_TEMP_FILE dumps or `ncclras -f json` output\n";
    return false;
}

namespace {
Expected<Plan> plan_from_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error(ErrorType::value_error, path + ": cannot open the plan");
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json document;
    try {
        document = parse_json_throwing(text.str());
    } catch (const JsonTooDeep& e) {
        return Error(ErrorType::value_error, path + ": " + e.what());
    } catch (const nlohmann::json::parse_error& e) {
        return Error(ErrorType::value_error,
                     path + " at byte " + std::to_string(e.byte > 0 ? e.byte - 1 : 0) + ": the plan is not valid JSON");
    }
    auto plan = plan_from_json(document);
    if (!plan) return Error(ErrorType::value_error, path + ": " + plan.error().message());
    return plan;
}
}  // namespace

void PlanOptions::add_to(CLI::App& cli, const std::string& help_prefix) {
    auto* plan_opt = cli.add_option("--plan", file, help_prefix + "a plan as `meshscope plan --format json` writes it");
    auto* dp_opt = cli.add_option("--dp", dp, help_prefix + "data-parallel size (world = dp * cp)")->type_name("INT");
    auto* cp_opt = cli.add_option("--cp", cp, help_prefix + "context-parallel size")->type_name("INT");
    auto* ep_opt = cli.add_option("--ep", ep, help_prefix + "expert-parallel size")->type_name("INT");
    plan_opt->excludes(dp_opt)->excludes(cp_opt)->excludes(ep_opt);
    cp_opt->needs(dp_opt);
    ep_opt->needs(dp_opt);
}

std::optional<int> plan_from_options(const std::string& command, const std::string& hint, const PlanOptions& options,
                                     std::optional<Plan>& plan) {
    const std::string& plan_file = options.file;
    const std::string& dp_text = options.dp;
    const std::string& cp_text = options.cp;
    const std::string& ep_text = options.ep;
    const auto usage_error = [&](const std::string& message) {
        std::cerr << "meshscope " << command << ": " << message << "\n" << hint << "\n";
        return exit_usage;
    };
    if (!plan_file.empty()) {
        auto made = plan_from_file(plan_file);
        if (!made) return usage_error(made.error().message());
        plan.emplace(std::move(made).value());
    } else if (!dp_text.empty()) {
        PlanRequest request;
        std::int64_t dp = 0;
        for (const auto& [flag, text, value] :
             {std::tuple{"--dp", &dp_text, &dp}, std::tuple{"--cp", &cp_text, &request.cp},
              std::tuple{"--ep", &ep_text, &request.ep}})
            if (auto error = parse_plan_integer(flag, *text, *value)) return usage_error(*error);
        request.dp = dp;
        bool too_large = false;  // this command's own bound, refused as a usage error
        const auto bound = [&](const Topology& topology) -> std::optional<PlanRejection> {
            if (topology.world() <= (1 << 20)) return std::nullopt;
            too_large = true;
            return PlanRejection{
                ValueError("a world of " + std::to_string(topology.world()) + " ranks is larger than 1048576",
                           Input::dp, Rule::maximum),
                {"dp", hint, {}}};
        };
        const auto answer = plan_answer(request, bound);
        if (too_large) return usage_error(answer.rejection->error.message());
        if (answer.rejection) {
            std::cerr << answer.rejection->error.message() << "\n" << answer.rejection->advice.hint << "\n";
            return exit_usage;
        }
        plan.emplace(*answer.plan);
    }

    return std::nullopt;
}

}  // namespace meshscope::app
