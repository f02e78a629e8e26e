#include "meshscope/records/nccl_log.h"

#include <charconv>
#include <cstring>

namespace meshscope::records {

namespace {
constexpr std::string_view nccl_marker = " NCCL ";

bool parse_int(std::string_view text, std::int64_t& out) {
    if (text.empty()) return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

bool parse_hex(std::string_view text, std::uint64_t& out) {
    if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
    if (text.empty()) return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, 16);
    return ec == std::errc() && end == text.data() + text.size();
}

// Splits on spaces without allocating: next() gives the tokens one by one.
struct Tokens {
    std::string_view rest;
    std::string_view next() {
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        const std::size_t end = rest.find(' ');
        const std::string_view token = rest.substr(0, end);
        rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
        return token;
    }
};

std::string_view skip_spaces(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    return text;
}

// Takes a launcher's prefix off the start of a line: torchrun "[rank3]:" / "[default3]:", mpirun --tag-output
// "[1,3]<stdout>:", srun -l "3: ". Returns the rank it names.
std::optional<std::int64_t> strip_launcher(std::string_view& text) {
    text = skip_spaces(text);
    std::int64_t rank = 0;
    if (text.starts_with('[')) {
        const std::size_t close = text.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        std::string_view inside = text.substr(1, close - 1);
        std::string_view after = text.substr(close + 1);
        if (inside.starts_with("rank"))
            inside.remove_prefix(4);
        else if (inside.starts_with("default"))
            inside.remove_prefix(7);
        else if (const std::size_t comma = inside.find(','); comma != std::string_view::npos) {
            inside.remove_prefix(comma + 1);  // mpirun: [jobid,rank]
            if (after.starts_with("<stdout>") || after.starts_with("<stderr>")) after.remove_prefix(8);
        } else
            return std::nullopt;
        if (!after.starts_with(':') || !parse_int(inside, rank)) return std::nullopt;
        text = skip_spaces(after.substr(1));
        return rank;
    }
    const std::size_t colon = text.find(':');
    if (colon != std::string_view::npos && colon + 1 < text.size() && text[colon + 1] == ' ' &&
        parse_int(text.substr(0, colon), rank)) {
        text = skip_spaces(text.substr(colon + 1));
        return rank;
    }
    return std::nullopt;
}

// "host:pid:tid"
bool parse_host_token(std::string_view token, NcclProcess& process) {
    const std::size_t last = token.rfind(':');
    if (last == std::string_view::npos || last == 0) return false;
    const std::size_t mid = token.rfind(':', last - 1);
    if (mid == std::string_view::npos || mid == 0) return false;
    std::int64_t tid = 0;
    if (!parse_int(token.substr(last + 1), tid) || !parse_int(token.substr(mid + 1, last - mid - 1), process.pid))
        return false;
    process.host.assign(token.substr(0, mid));
    return true;
}

bool is_device_token(std::string_view token) {
    std::int64_t dev = 0;
    return token.size() >= 3 && token.front() == '[' && token.back() == ']' &&
           parse_int(token.substr(1, token.size() - 2), dev);
}

struct Head {
    std::optional<std::int64_t> launcher_rank;
    std::string_view timestamp;
    NcclProcess process;
    bool has_process = false;
    std::string_view after_device;  // WARN: "file.cc:123 (func)"
};

// What comes before " NCCL INFO|WARN": [launcher prefix] [timestamp] host:pid:tid [dev] [file:line [(func)]]
Head parse_head(std::string_view head) {
    Head out;
    out.launcher_rank = strip_launcher(head);
    // The host token is the one followed by "[dev]"; anything before it is a timestamp or another tool's prefix.
    Tokens tokens{head};
    const char* first = head.data();
    std::string_view previous, token;
    while (!(token = tokens.next()).empty()) {
        if (is_device_token(token) && !previous.empty() && parse_host_token(previous, out.process)) {
            out.has_process = true;
            const std::string_view before(first, static_cast<std::size_t>(previous.data() - first));
            std::string_view ts = before;
            while (!ts.empty() && ts.back() == ' ') ts.remove_suffix(1);
            const std::size_t open = ts.rfind('[');
            if (open != std::string_view::npos && ts.ends_with(']')) out.timestamp = ts.substr(open);
            out.after_device = skip_spaces(tokens.rest);
            return out;
        }
        previous = token;
    }
    return out;
}

bool set_field(NcclCommLine& line, std::string_view key, std::string_view value) {
    if (key == "rank") return parse_int(value, line.rank);
    if (key == "nranks" || key == "nRanks") return parse_int(value, line.nranks);
    if (key == "cudaDev") return parse_int(value, line.cuda_dev);
    if (key == "nvmlDev") return parse_int(value, line.nvml_dev);
    if (key == "busId") return line.bus_id.assign(value), true;
    if (key == "parent") return line.parent.assign(value), true;
    std::int64_t v = 0;
    if (key == "commId") {
        std::uint64_t id = 0;
        if (!parse_hex(value, id)) return false;
        line.comm_id = id;
        return true;
    }
    if (key == "color" || key == "key" || key == "splitCount" || key == "childCount") {
        if (!parse_int(value, v)) return false;
        (key == "color" ? line.color : key == "key" ? line.key : line.split_count) = v;
        return true;
    }
    return true;  // a field of a later NCCL: skipped
}
}  // namespace

std::string_view to_string(NcclStage stage) noexcept {
    switch (stage) {
        case NcclStage::init_start: return "Init START";
        case NcclStage::init_complete: return "Init COMPLETE";
        case NcclStage::abort_start: return "Abort START";
        case NcclStage::abort_complete: return "Abort COMPLETE";
    }
    return "";
}

void NcclLogParser::feed(std::string_view chunk) {
    log_.bytes += static_cast<std::int64_t>(chunk.size());
    while (!chunk.empty()) {
        const void* found = std::memchr(chunk.data(), '\n', chunk.size());
        if (!found) {
            if (!skipping_long_) {
                if (carry_.size() + chunk.size() > max_line) {
                    skipping_long_ = true;
                    carry_.clear();
                } else
                    carry_.append(chunk);
            }
            return;
        }
        const std::size_t n = static_cast<std::size_t>(static_cast<const char*>(found) - chunk.data());
        if (skipping_long_) {
            skip_long_line();
            skipping_long_ = false;
        } else if (!carry_.empty()) {
            if (carry_.size() + n > max_line) {
                carry_.clear();
                skipping_long_ = true;
                continue;  // counted and named by the branch above on this same newline
            }
            carry_.append(chunk.substr(0, n));
            line(carry_);
            carry_.clear();
        } else if (n > max_line) {
            skip_long_line();
        } else
            line(chunk.substr(0, n));
        chunk.remove_prefix(n + 1);
    }
}

void NcclLogParser::skip_long_line() {
    ++line_no_;
    ++log_.lines;
    log_.problems.push_back(read_problem(
        file_, line_no_,
        file_ + ":" + std::to_string(line_no_) + ": line longer than " + std::to_string(max_line) + " bytes, skipped"));
}

void NcclLogParser::finish() {
    if (skipping_long_) {
        skip_long_line();
    } else if (!carry_.empty())
        line(carry_);
    carry_.clear();
    skipping_long_ = false;
}

namespace {
// The INFO lines the reader keeps, told from the message alone: most INFO lines are about channels, rings and
// transports, and are dropped before their prefix is parsed.
struct InfoLine {
    bool comm_line = false;  // "... Init START", "... Init COMPLETE", "... Abort START", "... Abort COMPLETE"
    bool shape = false;      // "comm 0x... rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 ..."
    bool timing = false;     // "Init timings - ncclCommInitRank: rank 0 nranks 8 total 0.52 ..."
    bool version = false;    // "NCCL version 2.21.5+cuda12.4"
    explicit InfoLine(std::string_view message)
        : comm_line(message.ends_with("Init START") || message.ends_with("Init COMPLETE") ||
                    message.ends_with("Abort START") || message.ends_with("Abort COMPLETE")),
          shape(!comm_line && message.starts_with("comm ") && message.find(" nNodes ") != std::string_view::npos),
          timing(message.starts_with("Init timings - ")),
          version(message.starts_with("NCCL version ")) {}
    [[nodiscard]] bool kept() const { return comm_line || shape || timing || version; }
};

NcclInitTiming read_timing(Head& head, std::string_view message, const SourceRef& source) {
    NcclInitTiming t{head.process, {}, -1, -1, 0, source};
    Tokens tokens{message.substr(15)};
    std::string_view function = tokens.next();
    if (function.ends_with(':')) function.remove_suffix(1);
    t.function = function;
    for (std::string_view k = tokens.next(); !k.empty(); k = tokens.next()) {
        const std::string_view v = tokens.next();
        if (k == "rank") parse_int(v, t.rank);
        if (k == "nranks") parse_int(v, t.nranks);
        if (k == "total") {
            // "0.52" with std::from_chars for double (GCC 11+).
            double seconds = 0;
            if (std::from_chars(v.data(), v.data() + v.size(), seconds).ec == std::errc()) t.total_seconds = seconds;
            break;
        }
    }
    return t;
}

NcclCommShape read_shape(Head& head, std::string_view message, const SourceRef& source) {
    NcclCommShape s{head.process, {}, -1, -1, -1, -1, -1, source};
    Tokens tokens{message.substr(5)};
    s.comm = tokens.next();
    for (std::string_view k = tokens.next(); !k.empty(); k = tokens.next()) {
        const std::string_view v = tokens.next();
        if (k == "rank") parse_int(v, s.rank);
        if (k == "nRanks") parse_int(v, s.nranks);
        if (k == "nNodes") parse_int(v, s.nnodes);
        if (k == "localRanks") parse_int(v, s.local_ranks);
        if (k == "localRank") parse_int(v, s.local_rank);
    }
    return s;
}

// A communicator's init or abort line: "[Rank 3] ncclCommInitRank comm 0x... rank 3 nranks 8 ... - Init START".
// Kept in log.comm_lines, or a problem named when it lacks its comm, a number or a valid rank.
void read_comm_line(NcclLog& log, Head& head, std::string_view message, const SourceRef& source) {
    NcclCommLine c;
    c.process = std::move(head.process);
    c.launcher_rank = head.launcher_rank;
    c.timestamp = head.timestamp;
    c.source = source;
    c.stage = message.ends_with("Init START")      ? NcclStage::init_start
              : message.ends_with("Init COMPLETE") ? NcclStage::init_complete
              : message.ends_with("Abort START")   ? NcclStage::abort_start
                                                   : NcclStage::abort_complete;
    Tokens tokens{message};
    std::string_view token = tokens.next();
    if (token == "[Rank") {
        std::string_view n = tokens.next();
        std::int64_t r = 0;
        if (n.ends_with(']') && parse_int(n.substr(0, n.size() - 1), r)) c.rank_prefix = r;
        token = tokens.next();
    }
    if (token != "comm") {
        c.function = token;
        token = tokens.next();
    }
    const auto bad = [&](std::string_view why) {
        log.problems.push_back(read_problem(source.file, source.line,
                                            source.text() + ": " + std::string(why) + " in an NCCL \"" +
                                                std::string(to_string(c.stage)) + "\" line, skipped"));
    };
    if (token != "comm") return bad("no \"comm 0x...\"");
    c.comm = tokens.next();
    for (std::string_view k = tokens.next(); !k.empty(); k = tokens.next()) {
        if (k == "-" || k == "Init" || k == "Abort") break;
        std::string_view v = tokens.next();
        const bool ends = v.ends_with('-');  // "key 0- Init START" (2.23+ splits)
        if (ends) v.remove_suffix(1);
        if (!set_field(c, k, v)) return bad("the " + std::string(k) + " \"" + std::string(v) + "\" is not a number");
        if (ends) break;
    }
    if (c.rank < 0 || c.nranks <= 0 || c.rank >= c.nranks) return bad("no valid rank and nranks");
    log.comm_lines.push_back(std::move(c));
}
}  // namespace

// A line is an NCCL WARN (kept whole), one of the INFO lines InfoLine keeps, or a bare "NCCL version" line; any
// other line is counted and dropped.
void NcclLogParser::line(std::string_view text) {
    ++line_no_;
    ++log_.lines;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    const void* hit = memmem(text.data(), text.size(), nccl_marker.data(), nccl_marker.size());
    if (!hit) {
        // NCCL prints its version bare ("NCCL version 2.21.5+cuda12.4"), possibly under a launcher's prefix.
        std::string_view rest = text;
        const auto launcher = strip_launcher(rest);
        if (rest.starts_with("NCCL version "))
            log_.versions.push_back(
                {std::nullopt, launcher, std::string(Tokens{rest.substr(13)}.next()), {file_, line_no_, -1}});
        return;
    }
    const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
    const std::string_view level = text.substr(at + nccl_marker.size(), 5);
    const bool info = level == "INFO ";
    if (!info && level != "WARN ") return;
    const std::string_view message = text.substr(at + nccl_marker.size() + 5);
    const SourceRef source{file_, line_no_, -1};

    if (!info) {
        Head head = parse_head(text.substr(0, at));
        if (!head.has_process) return;
        log_.warnings.push_back({std::move(head.process), head.launcher_rank, std::string(head.after_device),
                                 std::string(message), source});
        return;
    }
    const InfoLine kind(message);
    if (!kind.kept()) return;
    Head head = parse_head(text.substr(0, at));
    if (!head.has_process) {
        if (kind.comm_line)
            log_.problems.push_back(
                read_problem(source.file, source.line,
                             source.text() + ": an NCCL init line without the host:pid:tid [dev] prefix, skipped"));
        return;
    }
    if (kind.version)
        log_.versions.push_back(
            {head.process, head.launcher_rank, std::string(Tokens{message.substr(13)}.next()), source});
    else if (kind.timing)
        log_.timings.push_back(read_timing(head, message, source));
    else if (kind.shape)
        log_.shapes.push_back(read_shape(head, message, source));
    else
        read_comm_line(log_, head, message, source);
}

void read_nccl_log(ByteSource& source, NcclLog& into) {
    NcclLogParser parser(source.name(), into);
    char buffer[1 << 16];
    for (std::size_t n; (n = source.read(buffer)) != 0;) parser.feed(std::string_view(buffer, n));
    parser.finish();
}

}  // namespace meshscope::records
