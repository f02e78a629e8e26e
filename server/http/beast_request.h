// The Beast side of one collector request, shared by the collector's handler of the HTTP engine (http_server.cpp,
// net/http_engine.h) and the fuzz target (fuzz/fuzz_http_request.cpp), so that both read and answer requests with
// the same code: the parser's limits, the request the router sees, the answer to a request that could not be read,
// and the bytes written for a reply. Only Beast translation units include it: Beast is slow to compile.
#pragma once

#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "http_engine.h"
#include "http_exchange.h"
#include "http_options.h"

namespace meshscope::server {

using RequestParser = net::RequestParser;

// The server's limits on a fresh parser: Beast checks Content-Length against the body limit before the body.
inline void limit_parser(RequestParser& parser, const ConnectionLimits& limits) {
    net::limit_parser(parser, limits.max_header_bytes, limits.max_body_bytes);
}

// The most bytes a session's read buffer holds (ConnectionLimits::read_buffer_bytes, http_wire.h): past it, a
// chunk-size line or the trailers still incomplete are refused (buffer_overflow) instead of buffered without end.
inline std::size_t read_buffer_limit(const ConnectionLimits& limits) {
    return net::read_buffer_limit(limits.max_header_bytes, limits.read_buffer_bytes);
}

// The answer to a request whose header was read but whose body must not be (501 for a Transfer-Encoding other
// than "chunked"), or nullopt to read on.
inline std::optional<HttpReply> header_refusal(const RequestParser& parser) {
    if (net::unsupported_transfer_coding(parser.get())) return error_reply(501, net::transfer_coding_text);
    return std::nullopt;
}

// What the router sees of a complete message (its body is moved out). HEAD is routed as GET; the session
// writes that answer's headers without its body.
inline HttpRequest router_request(boost::beast::http::request<boost::beast::http::string_body>& message) {
    namespace http = boost::beast::http;
    HttpRequest request;
    request.method = message.method() == http::verb::head ? std::string("GET") : std::string(message.method_string());
    request.target = std::string(message.target());
    request.authorization = std::string(message[http::field::authorization]);
    request.upgrade_websocket = boost::beast::websocket::is_upgrade(message);
    request.websocket_protocols = std::string(message[http::field::sec_websocket_protocol]);
    if (const auto it = message.find(http::field::host); it != message.end()) request.host = std::string(it->value());
    if (const auto it = message.find(http::field::origin); it != message.end())
        request.origin = std::string(it->value());
    request.content_type = std::string(message[http::field::content_type]);
    request.content_encoding = std::string(message[http::field::content_encoding]);
    request.body = std::move(message.body());
    return request;
}

// The answer to a request the parser refused (not a timeout): 413, 431 or 400; nullopt when the client went
// away or the read was cancelled (nobody to tell: close).
inline std::optional<HttpReply> refusal_reply(boost::beast::error_code error, const ConnectionLimits& limits) {
    auto refusal = net::read_refusal(error, limits.max_body_bytes, limits.max_header_bytes, read_buffer_limit(limits));
    if (!refusal) return std::nullopt;
    return error_reply(refusal->status, refusal->message);
}

// The headers every answer of the collector carries after its Content-Type (http_exchange.h).
inline const net::Headers& security_headers() {
    static const net::Headers headers = {{"Content-Security-Policy", std::string(content_security_policy)},
                                         {"X-Content-Type-Options", std::string(content_type_options)}};
    return headers;
}

// The HTTP/1.1 response written for a reply (not for accept_stream), as the bytes that go on the wire.
inline std::string wire_response(const HttpReply& reply) {
    return net::wire_reply(reply, security_headers());
}

}  // namespace meshscope::server
