// The WebSocket stream's messages and its resume ring (meshscope.stream/1, docs/collector.md), without the
// HTTP engine: hello with the collector's epoch and last seq, {"type":"reload"}, the first-message
// authentication of a browser, and StreamRing, the recent messages a reconnecting subscriber resumes from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace meshscope::server {

using StreamMessage = std::shared_ptr<const std::string>;

// {"type":"hello","protocol":"meshscope.stream/1","epoch":"<epoch>","seq":<seq>}
[[nodiscard]] StreamMessage hello_message(std::string_view epoch, std::uint64_t seq);
// {"type":"reload"}: what the subscriber missed is gone; re-read the snapshots, then apply what follows.
[[nodiscard]] StreamMessage reload_message();
// {"type":"error","error":"missing or wrong bearer token"}, sent before closing with 1008.
[[nodiscard]] StreamMessage auth_error_message();
// True when `text` is {"type":"auth","token":"<token>"} (other fields ignored), token compared in
// constant time.
[[nodiscard]] bool is_auth_message(std::string_view text, std::string_view token);
// a == b in time that depends on their lengths only, not on where they differ.
[[nodiscard]] bool tokens_equal(std::string_view a, std::string_view b) noexcept;

// The stream's subprotocols (Sec-WebSocket-Protocol, comma-separated): a browser cannot set Authorization
// on a WebSocket, but it can offer subprotocols, so the bearer may come as meshscope.bearer.<base64url of the
// token, no padding> (a subprotocol must be an RFC 7230 token: no '=', '/', ' '...) beside meshscope.v1,
// which the upgrade echoes (the bearer one never is). docs/collector.md, "Security defaults".
inline constexpr std::string_view stream_subprotocol = "meshscope.v1";
inline constexpr std::string_view bearer_subprotocol_prefix = "meshscope.bearer.";
struct SubprotocolOffer {
    bool v1 = false;                   // meshscope.v1 offered
    bool bearer = false;               // a meshscope.bearer.* offered ...
    std::optional<std::string> token;  // ... and its token, when it decodes
};
[[nodiscard]] SubprotocolOffer parse_subprotocols(std::string_view header);
// RFC 4648 section 5 without padding; nullopt for any other character or an impossible length.
[[nodiscard]] std::optional<std::string> decode_base64url(std::string_view text);

// A new epoch: 16 random hex digits, different for every collector process.
[[nodiscard]] std::string new_stream_epoch();
// ?since=N: a whole number (digits only); nullopt otherwise.
[[nodiscard]] std::optional<std::uint64_t> parse_since(std::string_view text);

// The latest changes messages with their seq (consecutive), bounded by count and bytes: the oldest leave
// first. Network thread only.
class StreamRing {
public:
    StreamRing(std::size_t max_messages, std::size_t max_bytes) : max_messages_(max_messages), max_bytes_(max_bytes) {}
    // `seq` is the previous one + 1 (after clear(): any).
    void push(std::uint64_t seq, StreamMessage message);
    // Every message after `since` up to `last` (the seq of the last message sent), oldest first; nullopt
    // when one of them is no longer kept or `since` is past `last`.
    [[nodiscard]] std::optional<std::vector<StreamMessage>> after(std::uint64_t since, std::uint64_t last) const;
    void clear();
    [[nodiscard]] std::size_t size() const noexcept { return kept_.size(); }
    [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

private:
    std::size_t max_messages_;
    std::size_t max_bytes_;
    std::deque<std::pair<std::uint64_t, StreamMessage>> kept_;
    std::size_t bytes_ = 0;
};

}  // namespace meshscope::server
