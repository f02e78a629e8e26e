#include "meshscope/monitor/body_result.h"

#include <algorithm>

namespace meshscope {

nlohmann::json to_json(const BodyResult& result) {
    if (result.status == 200) return {{"status", 200}, {"accepted", result.accepted}};
    nlohmann::json j = {{"status", result.status}, {"error", result.error}};
    if (result.retry_after) j["retry_after"] = *result.retry_after;
    return j;
}

Expected<BodyResult> body_result_from_json(const nlohmann::json& value) {
    const auto status = value.is_object() ? value.find("status") : value.end();
    if (!value.is_object() || status == value.end() || !status->is_number_integer())
        return ValueError(R"(field "status" must be an integer)");
    BodyResult result;
    result.status = status->get<int>();
    if (const auto it = value.find("accepted"); it != value.end() && it->is_number_integer())
        result.accepted = it->get<std::int64_t>();
    if (const auto it = value.find("error"); it != value.end() && it->is_string())
        result.error = it->get<std::string>();
    if (const auto it = value.find("retry_after"); it != value.end() && it->is_number())
        result.retry_after = std::max(1, static_cast<int>(std::clamp(it->get<double>(), 0.0, 1e9) + 0.999));
    return result;
}

}  // namespace meshscope
