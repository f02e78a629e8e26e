// NCCL RAS's text status, line by line, as src/ras/client_support.cc (rasClientRunInit, rasClientRunComms,
// rasClientBreakDownErrors) prints it: the version lines, the job summary (skipped), "Communicators... (0.412s)",
// the communicators table, then the Errors and Warnings sections whose blocks name communicators by hash
// ("#1-0 (2b1d5e7f9a3c4e60) MISMATCH") and their outlier ranks. Every line after the job summary must be one that
// RAS prints; anything else is named with its line number.
#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <utility>

#include "meshscope/records/nccl_ras.h"

namespace meshscope::records {

namespace {

struct LineError {
    std::string what;
};

std::string quoted(std::string_view line) {
    std::string text(line.substr(0, std::min<std::size_t>(line.size(), 60)));
    if (line.size() > 60) text += "...";
    return "\"" + text + "\"";
}

// A cursor over one line: each step consumes what it matches, or leaves the line as it was and says false.
struct Cursor {
    std::string_view s;
    bool lit(std::string_view p) {
        if (!s.starts_with(p)) return false;
        s.remove_prefix(p.size());
        return true;
    }
    bool u64(std::uint64_t& out) {
        std::size_t n = 0;
        while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
        if (n == 0 || n > 19) return false;
        const auto r = std::from_chars(s.data(), s.data() + n, out);
        if (r.ec != std::errc()) return false;
        s.remove_prefix(n);
        return true;
    }
    bool i64(std::int64_t& out) {
        std::uint64_t v = 0;
        const bool negative = lit("-");
        if (!u64(v) || v > static_cast<std::uint64_t>(INT64_MAX)) return false;
        out = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
        return true;
    }
    // Up to the next space (or the end), not empty.
    bool word(std::string& out) {
        const std::size_t n = std::min(s.find(' '), s.size());
        if (n == 0) return false;
        out = std::string(s.substr(0, n));
        s.remove_prefix(n);
        return true;
    }
    [[nodiscard]] bool end() const { return s.empty(); }
};

// ncclResult_t from client_support.cc's ncclErrorToString.
std::int64_t error_code(std::string_view text) {
    static const std::map<std::string_view, std::int64_t> codes = {
        {"Unhandled CUDA error", 1},      {"System error", 2},  {"Internal error", 3},
        {"Invalid argument", 4},          {"Invalid usage", 5}, {"Remote process error", 6},
        {"NCCL operation in progress", 7}};
    const auto it = codes.find(text);
    return it == codes.end() ? 99 : it->second;  // "Unexpected error": a code RAS does not name
}

// "2" or "2 (NVML 6)" (rasGpuToString)
bool gpu(Cursor& c, std::int64_t& cuda, std::int64_t& nvml) {
    if (!c.i64(cuda)) return false;
    nvml = cuda;
    if (c.lit(" (NVML ")) return c.i64(nvml) && c.lit(")");
    return true;
}

// What a rank line says about its rank, besides who it is.
struct RankLine {
    std::int64_t rank = -1;
    std::optional<std::string> status;   // "has status INIT"
    std::optional<std::uint64_t> count;  // "has launched up to operation 56", "has not launched any operations"
    std::optional<std::string> error;    // "reported System error"
    bool known = false;                  // GPU, process and node given
    std::int64_t cuda = -1, nvml = -1, pid = 0;
    std::string host;
};

// "  Rank R[ has status S| has launched up to operation X| has not launched any operations| reported E] -- GPU G
// managed by process P on node H" or "... -- [process information not found]".
std::optional<RankLine> rank_line(std::string_view text) {
    Cursor c{text};
    RankLine r;
    if (!c.lit("  Rank ") || !c.i64(r.rank)) return std::nullopt;
    const std::size_t dashes = c.s.find(" -- ");
    if (dashes == std::string_view::npos) return std::nullopt;
    Cursor what{c.s.substr(0, dashes)};
    c.s.remove_prefix(dashes + 4);
    if (!what.end()) {
        std::uint64_t n = 0;
        std::string word;
        if (what.lit(" has status ") && what.word(word) && what.end())
            r.status = word;
        else if (what.lit(" has launched up to operation ") && what.u64(n) && what.end())
            r.count = n;
        else if (what.lit(" has not launched any operations") && what.end())
            r.count = 0;
        else if (what.lit(" reported ") && !what.end())
            r.error = std::string(what.s);
        else
            return std::nullopt;
    }
    if (c.lit("[process information not found]") && c.end()) return r;
    if (!c.lit("GPU ") || !gpu(c, r.cuda, r.nvml) || !c.lit(" managed by process ") || !c.i64(r.pid) ||
        !c.lit(" on node ") || c.end())
        return std::nullopt;
    r.host = std::string(c.s);
    r.known = true;
    return r;
}

// "  Process P on node H managing GPU[s] LIST"
std::optional<RasProcess> process_line(std::string_view text) {
    Cursor c{text};
    RasProcess p;
    if (!c.lit("  Process ") || !c.i64(p.pid) || !c.lit(" on node ") || !c.word(p.host) || !c.lit(" managing GPU"))
        return std::nullopt;
    c.lit("s");
    if (!c.lit(" ") || c.end()) return std::nullopt;
    p.gpus = std::string(c.s);
    return p;
}

// "1,3,6": the rank lists of NCCL 2.24 and 2.25 ("The missing ranks: 1,3", "Rank 6 has status UNKNOWN").
bool rank_list(Cursor& c, std::vector<std::int64_t>& out) {
    do {
        std::int64_t r = 0;
        if (!c.i64(r)) return false;
        out.push_back(r);
    } while (c.lit(","));
    return true;
}

// "N thing" or "N things" (RAS's plurals: "rank%s", "process%s" with "es").
bool counted(Cursor& c, std::int64_t& n, std::string_view noun, std::string_view plural) {
    if (!c.i64(n) || !c.lit(" ") || !c.lit(noun)) return false;
    c.lit(plural);
    return true;
}

struct TableRow {
    std::int64_t size = 0;
    std::string status, errors;
};

class Reader {
public:
    explicit Reader(std::string file) {
        out_.file = std::move(file);
        out_.text_form = true;
    }

    Expected<RasStatus> read(std::string_view bytes) {
        std::size_t line_no = 0;
        try {
            while (!bytes.empty()) {
                const std::size_t nl = bytes.find('\n');
                std::string_view line = bytes.substr(0, nl);
                bytes.remove_prefix(nl == std::string_view::npos ? bytes.size() : nl + 1);
                ++line_no;
                if (line.ends_with('\r')) line.remove_suffix(1);
                take(line);
            }
        } catch (const LineError& e) {
            return Error(ErrorType::value_error, out_.file + ":" + std::to_string(line_no) + ": " + e.what);
        }
        if (state_ == State::start) return Error(ErrorType::value_error, out_.file + ": empty, not NCCL RAS status");
        if (state_ < State::errors)
            return Error(ErrorType::value_error, out_.file + ": ends before its Errors section (" +
                                                     std::to_string(line_no) + " lines): the status was cut short");
        if (state_ < State::warnings)
            return Error(ErrorType::value_error, out_.file + ": ends before its Warnings section (" +
                                                     std::to_string(line_no) + " lines): the status was cut short");
        finish();
        return std::move(out_);
    }

private:
    enum class State {
        start,
        summary,
        comms_rule,
        comms_blank,
        table_head,
        table_head2,
        table,
        errors_head,
        errors_rule,
        errors,
        warnings_rule,
        warnings
    };
    // Inside a communicator's block: what its indented lines are about.
    enum class Mode { none, incomplete, init_errors, async_errors, status, counts };

    void take(std::string_view line) {
        switch (state_) {
            case State::start:
                if (line.find_first_not_of(" \t") == std::string_view::npos) return;
                if (!line.starts_with("NCCL version "))
                    throw LineError{"not NCCL RAS status: it starts with " + quoted(line) + ", not \"NCCL version\""};
                {
                    std::string_view v = line.substr(13);
                    v = v.substr(0, v.find(" compiled with CUDA "));
                    out_.nccl_version = std::string(v);
                }
                state_ = State::summary;
                return;
            case State::summary:
                // The job summary's tables change shape with the job; only "Communicators..." ends it.
                if (line.starts_with("Communicators...")) {
                    Cursor c{line.substr(16)};
                    std::string seconds;
                    if (c.lit(" (") && c.s.ends_with("s)")) {
                        const std::string_view num = c.s.substr(0, c.s.size() - 2);
                        double v = 0;
                        const auto r = std::from_chars(num.data(), num.data() + num.size(), v);
                        if (r.ec == std::errc() && r.ptr == num.data() + num.size()) out_.collection_time_sec = v;
                    }
                    state_ = State::comms_rule;
                }
                return;
            case State::comms_rule:
                expect(line, "=============");
                state_ = State::comms_blank;
                return;
            case State::comms_blank:
                expect(line, "");
                state_ = State::table_head;
                return;
            case State::table_head:
                if (line == "No communicator data collected!") {
                    state_ = State::table;
                    return;
                }
                expect(line, "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors");
                state_ = State::table_head2;
                return;
            case State::table_head2:
                expect(line, "    #  in group  per comm  per node  per comm  in group");
                state_ = State::table;
                return;
            case State::table:
                if (line.empty()) {
                    state_ = State::errors_head;
                    return;
                }
                table_row(line);
                return;
            case State::errors_head:
                expect(line, "Errors");
                state_ = State::errors_rule;
                return;
            case State::errors_rule:
                expect(line, "======");
                state_ = State::errors;
                return;
            case State::errors:
                if (line == "Warnings") {
                    close_set();
                    state_ = State::warnings_rule;
                    comm_ = nullptr;
                    mode_ = Mode::none;
                    list_ = nullptr;
                    return;
                }
                block_line(line, false);
                return;
            case State::warnings_rule:
                expect(line, "========");
                state_ = State::warnings;
                return;
            case State::warnings: block_line(line, true); return;
        }
    }

    static void expect(std::string_view line, std::string_view want) {
        if (line != want) throw LineError{"expected \"" + std::string(want) + "\", got " + quoted(line)};
    }

    // "%5d  %8d  %8d  %8s  %8d  %8d  %8s  %6s": group, comms, nodes, ranks per node ("3-4"), ranks per comm,
    // ranks in group, status, errors.
    void table_row(std::string_view line) {
        std::vector<std::string> words;
        Cursor c{line};
        while (!c.end()) {
            while (c.lit(" ")) {
            }
            std::string w;
            if (c.word(w)) words.push_back(std::move(w));
        }
        std::int64_t numbers[5] = {};
        const int at[5] = {0, 1, 2, 4, 5};
        bool ok = words.size() == 8;
        for (int i = 0; ok && i < 5; ++i) {
            Cursor n{words[static_cast<std::size_t>(at[i])]};
            ok = n.i64(numbers[i]) && n.end();
        }
        if (!ok || numbers[0] != static_cast<std::int64_t>(rows_.size()))
            throw LineError{"not a row of the communicators table: " + quoted(line)};
        rows_.push_back({numbers[3], words[6], words[7]});
        out_.largest_comm_size = std::max(out_.largest_comm_size, numbers[3]);
    }

    RasCommunicator& communicator(std::int64_t group, std::string_view hex) {
        std::string hash = "0x" + std::string(hex.substr(std::min(hex.find_first_not_of('0'), hex.size() - 1)));
        for (auto& c : out_.communicators)
            if (c.hash == hash) return c;
        RasCommunicator c;
        c.hash = std::move(hash);
        const auto& row = rows_[static_cast<std::size_t>(group)];
        c.size = row.size;
        c.status = row.status;
        c.errors = row.errors;
        out_.communicators.push_back(std::move(c));
        return out_.communicators.back();
    }

    // long: one branch per line shape of an Errors or Warnings block of RAS's text status, tried in order
    void block_line(std::string_view line, bool warnings) {
        if (line.empty()) {
            close_set();
            list_ = nullptr;
            return;
        }
        if (!line.starts_with("  ")) {
            close_set();
            comm_ = nullptr;
            mode_ = Mode::none;
            list_ = nullptr;
            await_ = Await::none;
            header(line, warnings);
            return;
        }
        Cursor c{line};
        std::int64_t n = 0;
        if (await_ != Await::none) {
            const Await a = std::exchange(await_, Await::none);
            bool ok = false;
            if (a == Await::silent)
                ok = c.lit("  Missing communicator data from ") && counted(c, n, "job process", "es") && c.end();
            else if (a == Await::dead)
                ok = c.lit("  ") && c.i64(n) && c.lit(" job process") && (c.lit("es are") || c.lit(" is")) &&
                     c.lit(" considered dead (unreachable via the RAS network)") && c.end();
            else
                ok = c.lit("  Encountered ") && counted(c, n, "communication timeout", "s") &&
                     c.lit(" while gathering communicator data") && c.end();
            if (!ok) throw LineError{"not a line of NCCL RAS's text status: " + quoted(line)};
            if (a == Await::timeout) out_.timeouts_count = n;
            return;
        }
        if (list_) {
            if (auto p = process_line(line)) {
                list_->push_back(std::move(*p));
                return;
            }
            if (line.starts_with("  [could not find information on ")) return;
            throw LineError{"not a process line: " + quoted(line)};
        }
        if (!comm_) throw LineError{"an indented line outside a block: " + quoted(line)};
        std::uint64_t count = 0;
        std::string word;
        const auto again = [&] {
            c = Cursor{line};
            return true;
        };
        if (mode_ == Mode::incomplete && c.lit("  Missing communicator data from ") && counted(c, n, "rank", "s") &&
            c.end()) {
            open_set("", 0, n);
            return;
        }
        // NCCL 2.24 and 2.25 list missing and unknown ranks by number only.
        std::vector<std::int64_t> listed;
        if (mode_ == Mode::incomplete && again() && c.lit("  The missing rank") && (c.lit("s"), c.lit(": ")) &&
            rank_list(c, listed) && c.end()) {
            for (const auto r : listed) numbered_missing(r, true);
            return;
        }
        if (mode_ == Mode::status && again() && c.lit("  The unknown ranks: ") && rank_list(c, listed) && c.end()) {
            if (set_) set_named_ += static_cast<std::int64_t>(listed.size());
            for (const auto r : listed) numbered_missing(r, false);
            return;
        }
        if (mode_ == Mode::status && again() && c.lit("  Rank ") && rank_list(c, listed) &&
            c.lit(" has status UNKNOWN") && c.end()) {
            close_set();
            for (const auto r : listed) numbered_missing(r, false);
            return;
        }
        if (!warnings && again() && c.lit("  Initialization error") && (c.lit("s"), c.lit(" on ")) &&
            counted(c, n, "rank", "s") && c.end()) {
            close_set();
            mode_ = Mode::init_errors;
            return;
        }
        if (!warnings && again() && c.lit("  Asynchronous error") && (c.lit("s"), c.lit(" on ")) &&
            counted(c, n, "rank", "s") && c.end()) {
            close_set();
            mode_ = Mode::async_errors;
            return;
        }
        if ((mode_ == Mode::init_errors || mode_ == Mode::async_errors) && again() && c.lit("  ") && c.i64(n) &&
            c.lit(" ranks reported ") && !c.end()) {
            error_ = std::string(c.s);
            return;
        }
        if (warnings && line == "  Communicator ranks have different status") {
            close_set();
            mode_ = Mode::status;
            return;
        }
        if (warnings && again() && c.lit("  Communicator ranks have different ") && c.word(word) &&
            c.lit(" operation counts") && c.end()) {
            close_set();
            mode_ = Mode::counts;
            op_ = word;
            comm_->mismatched_ops.push_back(word);
            return;
        }
        if (mode_ == Mode::status && again() && c.lit("  ") && c.i64(n) && c.lit(" ranks have status ") &&
            c.word(word) && c.end()) {
            open_set("", 0, n);
            status_ = word;
            return;
        }
        if (mode_ == Mode::counts && again() && c.lit("  ") && c.i64(n) &&
            c.lit(" ranks have launched up to operation ") && c.u64(count) && c.end()) {
            open_set(op_, count, n);
            return;
        }
        if (mode_ == Mode::counts && again() && c.lit("  ") && c.i64(n) &&
            c.lit(" ranks have not launched any operations") && c.end()) {
            open_set(op_, 0, n);
            return;
        }
        if (auto r = rank_line(line)) {
            rank(*r);
            return;
        }
        throw LineError{"not a line of NCCL RAS's text status: " + quoted(line)};
    }

    // A missing rank known by its number only (NCCL 2.24, 2.25); unresponsive when RAS got no data from it.
    void numbered_missing(std::int64_t rank, bool unresponsive) {
        RasMissingRank m;
        m.rank = rank;
        m.unresponsive = unresponsive;
        comm_->missing_ranks.push_back(std::move(m));
        if (set_ && unresponsive) ++set_named_;
    }

    // A set line ("2 ranks have launched up to operation 57"): the rank lines after it, if any, name its ranks.
    void open_set(std::string op, std::uint64_t count, std::int64_t n) {
        close_set();
        set_ = RasUnnamedRanks{std::move(op), count, n};
        set_named_ = 0;
    }

    // The ranks of a set that no rank line named are counted (RasCommunicator::unnamed); a status set's are not.
    void close_set() {
        if (set_ && comm_ && mode_ != Mode::status && set_->ranks > set_named_) {
            set_->ranks -= set_named_;
            comm_->unnamed.push_back(*set_);
        }
        set_.reset();
    }

    void header(std::string_view line, bool warnings) {
        if (!warnings && line == "INCOMPLETE") {
            await_ = Await::silent;
            list_ = &out_.silent_processes;
            return;
        }
        if (!warnings && line == "DEAD") {
            await_ = Await::dead;
            list_ = &out_.dead_processes;
            return;
        }
        if (warnings && line == "TIMEOUT") {
            await_ = Await::timeout;
            return;
        }
        Cursor c{line};
        std::int64_t group = 0, index = 0;
        std::string hex, kind;
        if (c.lit("#") && c.i64(group) && c.lit("-") && c.i64(index) && c.lit(" (") && c.word(hex) &&
            hex.ends_with(')') && c.lit(" ") && c.word(kind) && c.end()) {
            hex.pop_back();
            const bool hex_ok = hex.size() == 16 && hex.find_first_not_of("0123456789abcdef") == std::string::npos;
            if (!hex_ok || group < 0 || group >= static_cast<std::int64_t>(rows_.size()))
                throw LineError{"a communicator block for no row of the table: " + quoted(line)};
            if ((!warnings && kind != "INCOMPLETE" && kind != "ERROR") || (warnings && kind != "MISMATCH"))
                throw LineError{"not a line of NCCL RAS's text status: " + quoted(line)};
            comm_ = &communicator(group, hex);
            mode_ = kind == "INCOMPLETE" ? Mode::incomplete : Mode::none;
            error_.clear();
            return;
        }
        throw LineError{"not a line of NCCL RAS's text status: " + quoted(line)};
    }

    void rank(const RankLine& r) {
        // A rank line that says its own status, count or error is a set of one: the set line before it is done.
        if (r.status || r.count || r.error) close_set();
        const bool in_set = set_.has_value();
        if (in_set) ++set_named_;
        const std::string said = r.status ? *r.status : status_;
        if (mode_ == Mode::incomplete || (mode_ == Mode::status && (said == "NOCOMM" || said == "UNKNOWN"))) {
            if (mode_ == Mode::status && !r.status && !in_set) throw LineError{"a rank line with no status before it"};
            RasMissingRank m;
            m.rank = r.rank;
            m.host = r.host;
            m.pid = r.pid;
            m.cuda_dev = r.cuda;
            m.nvml_dev = r.nvml;
            m.unresponsive = mode_ == Mode::incomplete;
            comm_->missing_ranks.push_back(std::move(m));
            return;
        }
        RasRank* rank = nullptr;
        for (auto& x : comm_->ranks)
            if (x.rank == r.rank) rank = &x;
        if (!rank) {
            comm_->ranks.emplace_back();
            rank = &comm_->ranks.back();
            rank->rank = r.rank;
            rank->host = r.host;
            rank->pid = r.pid;
            rank->cuda_dev = r.cuda;
            rank->nvml_dev = r.nvml;
        }
        switch (mode_) {
            case Mode::init_errors:
            case Mode::async_errors: {
                if (!r.error && error_.empty()) throw LineError{"a rank line with no error before it"};
                const std::int64_t code = error_code(r.error ? *r.error : error_);
                (mode_ == Mode::init_errors ? rank->init_state : rank->async_error) = code;
                return;
            }
            case Mode::status: {
                if (!r.status && !in_set) throw LineError{"a rank line with no status before it"};
                const std::string s = r.status ? *r.status : status_;
                if (s == "INIT")
                    rank->init_state = 7;  // ncclInProgress: not yet a member
                else if (s == "FINALIZE")
                    rank->finalize_called = true;
                else if (s == "ABORT")
                    rank->abort_flag = true;
                else if (s != "RUNNING")
                    throw LineError{"unknown communicator status \"" + s + "\""};
                return;
            }
            case Mode::counts:
                if (!r.count && !in_set) throw LineError{"a rank line with no operation count before it"};
                rank->collective_counts[op_] = r.count ? *r.count : set_->count;
                return;
            default: throw LineError{"a rank line in no list of ranks"};
        }
    }

    void finish() {
        close_set();
        // A rank missing from a communicator whose process RAS calls dead is dead (JSON: considered_dead).
        for (auto& c : out_.communicators)
            for (auto& m : c.missing_ranks)
                for (const auto& p : out_.dead_processes)
                    if (p.host == m.host && p.pid == m.pid) m.considered_dead = true;
    }

    enum class Await { none, silent, dead, timeout };  // a block header's count line comes next

    RasStatus out_;
    State state_ = State::start;
    std::vector<TableRow> rows_;
    RasCommunicator* comm_ = nullptr;
    Mode mode_ = Mode::none;
    Await await_ = Await::none;
    std::string op_, status_, error_;
    std::optional<RasUnnamedRanks> set_;
    std::int64_t set_named_ = 0;
    std::vector<RasProcess>* list_ = nullptr;
};

}  // namespace

Expected<RasStatus> read_ras_text(std::string_view bytes, std::string file) {
    return Reader(std::move(file)).read(bytes);
}

bool looks_like_ras_text(std::string_view head) {
    const std::size_t first = head.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return false;
    std::string_view line = head.substr(first);
    line = line.substr(0, line.find('\n'));
    // An NCCL log may start with rank 0's banner, "NCCL version 2.19.3+cuda12.3"; RAS names the CUDA it was built
    // with in words.
    return line.starts_with("NCCL version ") && line.find(" compiled with CUDA ") != std::string_view::npos;
}

}  // namespace meshscope::records
