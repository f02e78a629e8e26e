#include "stream_protocol.h"

#include <charconv>
#include <random>

#include <nlohmann/json.hpp>

namespace meshscope::server {

StreamMessage hello_message(std::string_view epoch, std::uint64_t seq) {
    std::string text = R"({"type":"hello","protocol":"meshscope.stream/1","epoch":")";
    text += epoch;  // hex digits: nothing to escape
    text += R"(","seq":)";
    text += std::to_string(seq);
    text += '}';
    return std::make_shared<const std::string>(std::move(text));
}

StreamMessage reload_message() {
    static const auto message = std::make_shared<const std::string>(R"({"type":"reload"})");
    return message;
}

StreamMessage auth_error_message() {
    static const auto message =
        std::make_shared<const std::string>(R"({"type":"error","error":"missing or wrong bearer token"})");
    return message;
}

bool is_auth_message(std::string_view text, std::string_view token) {
    const auto message = nlohmann::json::parse(text, nullptr, false);
    if (!message.is_object()) return false;
    const auto type = message.find("type");
    const auto given = message.find("token");
    if (type == message.end() || *type != "auth" || given == message.end() || !given->is_string()) return false;
    const auto& value = given->get_ref<const std::string&>();
    // Constant time in the token's content: a guesser learns nothing from how long a refusal takes.
    unsigned difference = value.size() == token.size() ? 0 : 1;
    for (std::size_t i = 0; i < value.size(); ++i)
        difference |= static_cast<unsigned char>(value[i]) ^
                      static_cast<unsigned char>(token.empty() ? 0 : token[i % token.size()]);
    return difference == 0;
}

std::string new_stream_epoch() {
    std::random_device device;
    std::uint64_t value = (std::uint64_t{device()} << 32) ^ device();
    static constexpr char digits[] = "0123456789abcdef";
    std::string text(16, '0');
    for (auto it = text.rbegin(); it != text.rend(); ++it, value >>= 4) *it = digits[value & 15];
    return text;
}

std::optional<std::uint64_t> parse_since(std::string_view text) {
    std::uint64_t value = 0;
    if (text.empty() || text.size() > 19) return std::nullopt;
    for (const char c : text)
        if (c < '0' || c > '9') return std::nullopt;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc()) return std::nullopt;
    return value;
}

void StreamRing::push(std::uint64_t seq, StreamMessage message) {
    if (!kept_.empty() && seq != kept_.back().first + 1) clear();  // never a hole inside the ring
    bytes_ += message->size();
    kept_.emplace_back(seq, std::move(message));
    while (!kept_.empty() && (kept_.size() > max_messages_ || bytes_ > max_bytes_)) {
        bytes_ -= kept_.front().second->size();
        kept_.pop_front();
    }
}

std::optional<std::vector<StreamMessage>> StreamRing::after(std::uint64_t since, std::uint64_t last) const {
    if (since > last) return std::nullopt;
    std::vector<StreamMessage> missed;
    if (since == last) return missed;
    if (kept_.empty() || kept_.back().first != last || kept_.front().first > since + 1) return std::nullopt;
    missed.reserve(last - since);
    for (auto it = kept_.begin() + static_cast<std::ptrdiff_t>(since + 1 - kept_.front().first); it != kept_.end();
         ++it)
        missed.push_back(it->second);
    return missed;
}

void StreamRing::clear() {
    kept_.clear();
    bytes_ = 0;
}

}  // namespace meshscope::server
