// Where a fact read from a record came from, and how core reads bytes without doing I/O itself: the caller (the
// CLI, a test, a fuzz target) hands a reader its bytes through ByteSource, which may be a file, a gzip stream or a
// string. Every reader names the file and the line or byte offset of what it could not read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace meshscope::records {

// "nccl.log:12" (a line of a text file) or "nccl_trace_rank_3 at byte 512" (a binary or JSON file).
struct SourceRef {
    std::string file;
    std::int64_t line = 0;     // 1-based; 0 when the fact is about the whole file or a byte offset
    std::int64_t offset = -1;  // byte offset, -1 when not known
    [[nodiscard]] std::string text() const;
    friend bool operator==(const SourceRef&, const SourceRef&) = default;
};

// A stream of bytes. read() fills up to buffer.size() bytes and returns how many; 0 means the end. An I/O failure
// throws std::runtime_error with a message naming the file (the implementation's words).
class ByteSource {
public:
    virtual ~ByteSource() = default;
    [[nodiscard]] virtual const std::string& name() const = 0;
    virtual std::size_t read(std::span<char> buffer) = 0;
};

// A source over bytes in memory (tests, fuzz targets, small files read whole).
class StringSource final : public ByteSource {
public:
    StringSource(std::string name, std::string_view bytes) : name_(std::move(name)), bytes_(bytes) {}
    [[nodiscard]] const std::string& name() const override { return name_; }
    std::size_t read(std::span<char> buffer) override;

private:
    std::string name_;
    std::string_view bytes_;
    std::size_t pos_ = 0;
};

// Every byte of a source, up to `limit` bytes; longer inputs throw std::length_error naming the file.
[[nodiscard]] std::string read_all(ByteSource& source, std::size_t limit);

// A reader's complaint about one file: the message names the file and where in it. The rest of the files are read.
struct ReadProblem {
    SourceRef where;
    std::string message;  // "nccl_trace_rank_3 at byte 512: truncated pickle (STOP missing)"
    friend bool operator==(const ReadProblem&, const ReadProblem&) = default;
};

// A problem about a file (line 0) or one of its lines. Out of line: GCC 12 at -O3 reports false
// -Wmaybe-uninitialized warnings on the aggregate built in place.
[[nodiscard]] ReadProblem read_problem(std::string file, std::int64_t line, std::string message);

}  // namespace meshscope::records
