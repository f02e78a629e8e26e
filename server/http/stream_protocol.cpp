#include "stream_protocol.h"

#include <charconv>
#include <random>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/json_limits.h"

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

bool tokens_equal(std::string_view a, std::string_view b) noexcept {
    // Constant time in the content: a guesser learns nothing from how long a refusal takes.
    unsigned difference = a.size() == b.size() ? 0 : 1;
    for (std::size_t i = 0; i < a.size(); ++i)
        difference |= static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b.empty() ? 0 : b[i % b.size()]);
    return difference == 0;
}

bool is_auth_message(std::string_view text, std::string_view token) {
    const auto message = parse_json_bounded(text);
    if (!message.is_object()) return false;
    const auto type = message.find("type");
    const auto given = message.find("token");
    if (type == message.end() || *type != "auth" || given == message.end() || !given->is_string()) return false;
    return tokens_equal(given->get_ref<const std::string&>(), token);
}

std::optional<std::string> decode_base64url(std::string_view text) {
    if (text.size() % 4 == 1) return std::nullopt;
    const auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '-') return 62;
        if (c == '_') return 63;
        return -1;
    };
    std::string out;
    out.reserve(text.size() * 3 / 4);
    std::uint32_t bits = 0;
    int count = 0;
    for (const char c : text) {
        const int v = value(c);
        if (v < 0) return std::nullopt;
        bits = (bits << 6) | static_cast<std::uint32_t>(v);
        count += 6;
        if (count >= 8) {
            count -= 8;
            out += static_cast<char>((bits >> count) & 0xff);
        }
    }
    // The bits left over are padding: zero in a canonical encoding.
    if ((bits & ((1u << count) - 1)) != 0) return std::nullopt;
    return out;
}

SubprotocolOffer parse_subprotocols(std::string_view header) {
    SubprotocolOffer offer;
    while (!header.empty()) {
        const auto comma = header.find(',');
        std::string_view item = header.substr(0, comma);
        header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
        if (item == stream_subprotocol) {
            offer.v1 = true;
        } else if (item.starts_with(bearer_subprotocol_prefix)) {
            // Two bearers: neither is trusted.
            offer.token = offer.bearer ? std::nullopt : decode_base64url(item.substr(bearer_subprotocol_prefix.size()));
            offer.bearer = true;
        }
    }
    return offer;
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
