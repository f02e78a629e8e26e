#include "batch_codec.h"

#include "meshscope/mesh/json_limits.h"

namespace meshscope::relay {

namespace {
std::string dump(const nlohmann::json& value) {
    // Bodies are what ranks sent: invalid UTF-8 is replaced, and the collector judges what remains.
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace

std::string encode_batch(const std::vector<const std::string*>& bodies, const SeenRanks& seen, const SeenRanks& held) {
    nlohmann::json array = nlohmann::json::array();
    for (const std::string* body : bodies) array.push_back(*body);
    nlohmann::json batch{{"bodies", std::move(array)}};
    if (!seen.empty()) batch["seen"] = to_json(seen);
    if (!held.empty()) batch["held"] = to_json(held);
    return dump(batch);
}

Expected<BatchRequest> decode_batch(std::string_view text) {
    const auto bad = [] { return ValueError(R"(the body must be {"bodies": ["<request body>", ...]})"); };
    bool too_deep = false;
    const auto value = parse_json_bounded(text, &too_deep);
    if (too_deep) return ValueError(json_depth_text());
    if (!value.is_object() || !value.contains("bodies") || !value["bodies"].is_array()) return bad();
    BatchRequest batch;
    batch.bodies.reserve(value["bodies"].size());
    for (const auto& body : value["bodies"]) {
        if (!body.is_string()) return bad();
        batch.bodies.push_back(body.get<std::string>());
    }
    for (auto [field, into] : {std::pair{"seen", &batch.seen}, std::pair{"held", &batch.held}}) {
        if (const auto it = value.find(field); it != value.end()) {
            auto ranks = seen_ranks_from_json(*it, field);
            if (!ranks) return ranks.error();
            *into = std::move(ranks).value();
        }
    }
    return batch;
}

namespace {
constexpr std::string_view no_status = R"(upstream answer has a result without an integer "status")";
}  // namespace

Expected<std::vector<BodyResult>> decode_results(std::string_view text, std::size_t count) {
    const auto value = parse_json_bounded(text);
    if (!value.is_object() || !value.contains("results") || !value["results"].is_array())
        return ValueError(R"(upstream answer is not {"results": [...]})");
    const auto& results = value["results"];
    if (results.size() != count)
        return ValueError("upstream answer has " + std::to_string(results.size()) + " results for " +
                          std::to_string(count) + " bodies");
    std::vector<BodyResult> out;
    out.reserve(count);
    for (const auto& result : results) {
        auto read = body_result_from_json(result);
        if (!read) return ValueError(std::string(no_status));  // the reader refuses nothing else
        out.push_back(std::move(read).value());
    }
    return out;
}

std::string encode_results(const std::vector<BodyResult>& results) {
    nlohmann::json list = nlohmann::json::array();
    for (const BodyResult& result : results) list.push_back(to_json(result));
    return dump(nlohmann::json{{"results", std::move(list)}});
}

BodyResult make_result(int status, const std::string& message, std::optional<int> retry_after) {
    BodyResult result;
    result.status = status;
    result.error = message;
    result.retry_after = retry_after;
    return result;
}

RankAnswer rank_answer(const BodyResult& result) {
    RankAnswer answer;
    answer.status = result.status;
    if (result.retry_after) answer.retry_after = std::max(1, *result.retry_after);
    // A 503 always tells the reporter when to come back, so it keeps its events and retries.
    if (answer.status == 503 && !answer.retry_after) answer.retry_after = 1;
    answer.body = result.status == 200 ? dump(nlohmann::json{{"accepted", result.accepted}}) : error_json(result.error);
    return answer;
}

RankAnswer rank_answer(const nlohmann::json& result) {
    const auto read = body_result_from_json(result);
    if (!read) return RankAnswer{502, error_json(no_status), std::nullopt};
    return rank_answer(*read);
}

std::string error_json(std::string_view message) {
    return dump(nlohmann::json{{"error", message}});
}

std::string error_text(std::string_view body) {
    const auto value = parse_json_bounded(body);
    return value.is_object() && value.contains("error") && value["error"].is_string()
               ? value["error"].get<std::string>()
               : "";
}

}  // namespace meshscope::relay
