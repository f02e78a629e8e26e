// NCCL's NCCL_DEBUG=INFO output: the lines that say which communicators each process started, completed and
// aborted, read from NCCL 2.18 to 2.30 (src/init.cc at each tag; docs/records.md lists every shape):
//   host:pid:tid [dev] NCCL INFO comm 0x.. rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 1b000 commId 0x.. - Init START
//   host:pid:tid [dev] NCCL INFO ncclCommInitRank comm 0x.. rank .. commId 0x.. - Init COMPLETE          (2.21+)
//   host:pid:tid [dev] NCCL INFO ncclCommSplit comm 0x.. rank .. parent 0x.. color 1 key 0 commId 0x.. - Init START
//   host:pid:tid [dev] NCCL INFO ncclCommSplit comm 0x.. parent 0x.. splitCount 2 color 1 key 0- Init START (2.26+)
//   host:pid:tid [dev] NCCL INFO [Rank 3] ncclCommInitRank comm 0x.. ... - Init START                    (2.29+)
//   ... comm 0x.. rank 3 nRanks 8 nNodes 1 localRanks 8 localRank 3 MNNVL 0
//   ... Init timings - ncclCommInitRank: rank 3 nranks 8 total 0.52 (...)
//   ... comm 0x.. rank 3 nRanks 8 cudaDev 3 busId 1b000 - Abort START
//   host:pid:tid [dev] file.cc:123 (func) NCCL WARN message
// under a launcher's prefix (torchrun "[rank3]:" or "[default3]:", mpirun "[1,3]<stdout>:", srun -l "3: ") and an
// optional NCCL timestamp ("[2026-12-03 14:00:01] "), lines of many processes interleaved, one file per process or
// one for the whole job. Other lines are skipped at the cost of one search for " NCCL ".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/records/source.h"

namespace meshscope::records {

// The process that printed a line: NCCL's host and pid, and the launcher's rank when a prefix gives one.
struct NcclProcess {
    std::string host;
    std::int64_t pid = 0;
    friend bool operator==(const NcclProcess&, const NcclProcess&) = default;
    friend auto operator<=>(const NcclProcess&, const NcclProcess&) = default;
};

enum class NcclStage { init_start, init_complete, abort_start, abort_complete };
[[nodiscard]] std::string_view to_string(NcclStage stage) noexcept;

// One "Init START|COMPLETE" or "Abort START|COMPLETE" line.
struct NcclCommLine {
    NcclProcess process;
    std::optional<std::int64_t> launcher_rank;  // from the launcher's prefix
    std::string timestamp;                      // NCCL's own, as printed, when there is one
    NcclStage stage = NcclStage::init_start;
    std::string function;  // "ncclCommInitRank", "ncclCommSplit", ...; empty before NCCL 2.21
    std::string comm;      // the communicator's address in this process: "0x557fe785f7a0"
    std::int64_t rank = -1;
    std::int64_t nranks = -1;
    std::int64_t cuda_dev = -1;
    std::int64_t nvml_dev = -1;
    std::string bus_id;
    std::optional<std::uint64_t> comm_id;  // commId: the same for every member (RAS's communicator hash)
    std::string parent;                    // a split's parent communicator address in this process
    std::optional<std::int64_t> color, key;
    std::optional<std::int64_t> split_count;  // splitCount (2.26-2.28) or childCount (2.29+)
    std::optional<std::int64_t> rank_prefix;  // "[Rank N]" (2.29+)
    SourceRef source;
};

// "comm 0x.. rank 3 nRanks 8 nNodes 1 localRanks 8 localRank 3 MNNVL 0"
struct NcclCommShape {
    NcclProcess process;
    std::string comm;
    std::int64_t rank = -1, nranks = -1, nnodes = -1, local_ranks = -1, local_rank = -1;
    SourceRef source;
};

// "Init timings - ncclCommInitRank: rank 3 nranks 8 total 0.52 (...)"
struct NcclInitTiming {
    NcclProcess process;
    std::string function;
    std::int64_t rank = -1, nranks = -1;
    double total_seconds = 0;
    SourceRef source;
};

struct NcclWarn {
    NcclProcess process;
    std::optional<std::int64_t> launcher_rank;
    std::string where;    // "transport/net_ib.cc:1287" as NCCL prints it
    std::string message;  // the text after "NCCL WARN "
    SourceRef source;
};

struct NcclVersion {
    std::optional<NcclProcess> process;  // none for the bare "NCCL version 2.x.y+cudaX.Y" line
    std::optional<std::int64_t> launcher_rank;
    std::string version;  // "2.21.5+cuda12.4"
    SourceRef source;
};

struct NcclLog {
    std::vector<NcclCommLine> comm_lines;
    std::vector<NcclCommShape> shapes;
    std::vector<NcclInitTiming> timings;
    std::vector<NcclWarn> warnings;
    std::vector<NcclVersion> versions;
    std::vector<ReadProblem> problems;  // lines that look like NCCL's but could not be read
    // launcher rank -> process, when a prefix names it
    std::vector<std::pair<std::int64_t, NcclProcess>> launcher_ranks;
    std::int64_t lines = 0;
    std::int64_t bytes = 0;
};

// Streaming: feed() any chunks (lines may straddle them), then finish(). Memory grows with the NCCL lines kept,
// not with the bytes read. Lines longer than max_line bytes are skipped with a problem named.
class NcclLogParser {
public:
    static constexpr std::size_t max_line = 1 << 16;
    explicit NcclLogParser(std::string file, NcclLog& into) : file_(std::move(file)), log_(into) {}
    void feed(std::string_view chunk);
    void finish();
    // One line without its newline (tests, and feed() for every whole line).
    void line(std::string_view text);

private:
    void skip_long_line();
    std::string file_;
    NcclLog& log_;
    std::string carry_;
    bool skipping_long_ = false;
    std::int64_t line_no_ = 0;
};

// Reads a whole source into `into` (several files may go into one NcclLog).
void read_nccl_log(ByteSource& source, NcclLog& into);

}  // namespace meshscope::records
