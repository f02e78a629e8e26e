#include "change_batch.h"

namespace meshscope::server {

std::string change_text(const Change& change) {
    return to_json(change).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void ChangeBatch::add(const Change& change, std::string text) {
    if (change.kind == ChangeKind::rank_changed) {
        const auto [it, first] = last_rank_change_.try_emplace({change.job, change.rank}, texts_.size());
        if (!first) {
            std::string& replaced = texts_[it->second];
            bytes_ -= replaced.size();
            replaced.clear();
            replaced.shrink_to_fit();
            --kept_;
            it->second = texts_.size();
        }
    }
    bytes_ += text.size();
    texts_.push_back(std::move(text));
    ++kept_;
}

std::shared_ptr<const std::string> ChangeBatch::take_message(std::uint64_t seq) {
    std::shared_ptr<const std::string> message;
    if (kept_ > 0) {
        std::string text = R"({"type":"changes","seq":)" + std::to_string(seq) + R"(,"changes":[)";
        text.reserve(text.size() + bytes_ + kept_ + 2);
        bool first = true;
        for (const std::string& change : texts_) {
            if (change.empty()) continue;
            if (!first) text += ',';
            first = false;
            text += change;
        }
        text += "]}";
        message = std::make_shared<const std::string>(std::move(text));
    }
    texts_.clear();
    last_rank_change_.clear();
    kept_ = 0;
    bytes_ = 0;
    return message;
}

}  // namespace meshscope::server
