// The bytes of one HTTP/1.1 response, built as one string: the collector (wire_response, http/beast_request.h)
// and the relay answer every request of their ranks, thousands a second, and Beast's serializer was a visible
// share of their network threads (docs/benchmarks.md, "Collector steady state, a third time"). Names and values
// come from the server's own code (no CR or LF in them).
#pragma once

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/status.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace meshscope::net {

class WireResponse {
public:
    WireResponse(int status, std::size_t body_size) {
        out_.reserve(384 + body_size);
        out_.append("HTTP/1.1 ").append(std::to_string(status)).append(" ");
        out_.append(boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status)));
        out_.append("\r\n");
    }
    WireResponse& header(std::string_view name, std::string_view value) {
        out_.append(name).append(": ").append(value).append("\r\n");
        return *this;
    }
    // `Connection: close` when the connection ends after this answer, then Content-Length and the body (not
    // the body when answering HEAD: its Content-Length is the GET answer's).
    [[nodiscard]] std::string finish(bool close, std::string_view body, bool head = false) && {
        if (close) header("Connection", "close");
        header("Content-Length", std::to_string(body.size()));
        out_.append("\r\n");
        if (!head) out_.append(body);
        return std::move(out_);
    }

private:
    std::string out_;
};

// The most bytes a connection's read buffer holds (at least; the collector's --max-header bytes when larger):
// a request line and its headers, one chunk-size line with its extensions, or a chunked body's trailers must fit
// in it. Bodies pass through it into the request. Without a bound, a chunk extension or a trailer that never
// ends would be buffered until the request timeout, gigabytes on one connection.
inline constexpr std::size_t read_buffer_bytes = 64 * 1024;

// What a request whose request line and headers pass `limit` bytes is told (431).
inline std::string header_overflow_text(std::size_t limit) {
    return "request headers larger than " + std::to_string(limit) + " bytes";
}

// What a request whose chunk-size line or trailers do not fit in `limit` bytes is told (400).
inline std::string chunk_overflow_text(std::size_t limit) {
    return "chunk extensions or trailers larger than " + std::to_string(limit) + " bytes";
}

// What a request with a Transfer-Encoding other than exactly "chunked" is told (501): Beast reads "xchunked" or
// "gzip, chunked" as no body at all and the body as the next request, which a proxy in front would read
// otherwise (request smuggling).
inline constexpr std::string_view transfer_coding_text =
    "Transfer-Encoding other than \"chunked\" is not supported: send chunked or Content-Length";

// Whether a request's headers (Beast's fields) carry a Transfer-Encoding other than one "chunked".
template <typename Fields>
[[nodiscard]] bool unsupported_transfer_coding(const Fields& fields) {
    std::size_t count = 0;
    bool chunked = true;
    for (const auto& field : fields) {
        if (field.name() != boost::beast::http::field::transfer_encoding) continue;
        ++count;
        std::string_view value = field.value();
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
        while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
        static constexpr std::string_view name = "chunked";
        bool same = value.size() == name.size();
        for (std::size_t i = 0; same && i < name.size(); ++i)
            same = (value[i] | 0x20) == name[i];  // case-insensitive: the name holds letters only
        chunked = chunked && same;
    }
    return count > 1 || !chunked;
}

}  // namespace meshscope::net
