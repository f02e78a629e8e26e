// The fault jobs MeshScope ships (resources/hang-jobs: each a real torch job's Flight Recorder dumps and its
// facts.json), compiled in by cmake/embed_files.cmake, for the "read a hang" tour: the desktop's collector and
// `meshscope serve` diagnose these same bytes into the tour's job. Qt-free, so the collector can link it.
//
//   for (const auto& file : meshscope::shipped_hang_job("skip")) read(file.name, file.bytes);
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace meshscope {

struct ShippedHangFile {
    std::string_view job;    // "skip"
    std::string_view name;   // "nccl_trace_rank_13", "facts.json"
    std::string_view bytes;  // the file's bytes
};

// Every file of every shipped job, by job then name.
[[nodiscard]] std::span<const ShippedHangFile> shipped_hang_files() noexcept;
// The files of the job of that name (empty for an unknown one).
[[nodiscard]] std::vector<ShippedHangFile> shipped_hang_job(std::string_view job);
// "skip", "die", "host", "healthy"
[[nodiscard]] std::vector<std::string_view> shipped_hang_job_names();

}  // namespace meshscope
