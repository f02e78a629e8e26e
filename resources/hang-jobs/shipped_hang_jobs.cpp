#include "shipped_hang_jobs.h"

#include <algorithm>

namespace meshscope {

std::vector<ShippedHangFile> shipped_hang_job(std::string_view job) {
    std::vector<ShippedHangFile> out;
    for (const ShippedHangFile& f : shipped_hang_files())
        if (f.job == job) out.push_back(f);
    return out;
}

std::vector<std::string_view> shipped_hang_job_names() {
    std::vector<std::string_view> names;
    for (const ShippedHangFile& f : shipped_hang_files())
        if (std::find(names.begin(), names.end(), f.job) == names.end()) names.push_back(f.job);
    return names;
}

}  // namespace meshscope
