// The bytes of one HTTP/1.1 response, built as one string: the collector (wire_response, http/beast_request.h)
// and the relay answer every request of their ranks, thousands a second, and Beast's serializer was a visible
// share of their network threads (docs/benchmarks.md, "Collector steady state, a third time"). Names and values
// come from the server's own code (no CR or LF in them).
#pragma once

#include <boost/beast/http/status.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace meshscope::server {

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
    // `Connection: close` when the connection ends after this answer, then Content-Length and the body.
    [[nodiscard]] std::string finish(bool close, std::string_view body) && {
        if (close) header("Connection", "close");
        header("Content-Length", std::to_string(body.size()));
        out_.append("\r\n").append(body);
        return std::move(out_);
    }

private:
    std::string out_;
};

}  // namespace meshscope::server
