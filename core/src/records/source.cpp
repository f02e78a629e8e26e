#include "meshscope/records/source.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace meshscope::records {

std::string SourceRef::text() const {
    if (line > 0) return file + ":" + std::to_string(line);
    if (offset >= 0) return file + " at byte " + std::to_string(offset);
    return file;
}

ReadProblem read_problem(std::string file, std::int64_t line, std::string message) {
    ReadProblem problem;
    problem.where.file = std::move(file);
    problem.where.line = line;
    problem.message = std::move(message);
    return problem;
}

std::size_t StringSource::read(std::span<char> buffer) {
    const std::size_t n = std::min(buffer.size(), bytes_.size() - pos_);
    if (n) std::memcpy(buffer.data(), bytes_.data() + pos_, n);
    pos_ += n;
    return n;
}

std::string read_all(ByteSource& source, std::size_t limit) {
    std::string out;
    char buffer[1 << 16];
    for (;;) {
        const std::size_t n = source.read(buffer);
        if (n == 0) return out;
        if (out.size() + n > limit)
            throw std::length_error(source.name() + ": larger than " + std::to_string(limit) + " bytes");
        out.append(buffer, n);
    }
}

}  // namespace meshscope::records
