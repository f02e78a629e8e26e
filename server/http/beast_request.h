// The Beast side of one request, shared by HttpSession (http_server.cpp) and the fuzz target
// (fuzz/fuzz_http_request.cpp), so that both read and answer requests with the same code: the parser's
// limits, the request the router sees, the answer to a request that could not be read, and the bytes
// written for a reply. Only Beast translation units include it: Beast is slow to compile.
#pragma once

#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "http_exchange.h"
#include "http_options.h"
#include "http_wire.h"

namespace meshscope::server {

using RequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;

// The server's limits on a fresh parser: Beast checks Content-Length against the body limit before the body.
inline void limit_parser(RequestParser& parser, const ConnectionLimits& limits) {
    parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(limits.max_header_bytes, UINT32_MAX)));
    parser.body_limit(limits.max_body_bytes);
}

// The most bytes a session's read buffer holds (ConnectionLimits::read_buffer_bytes, http_wire.h): past it, a
// chunk-size line or the trailers still incomplete are refused (buffer_overflow) instead of buffered without end.
inline std::size_t read_buffer_limit(const ConnectionLimits& limits) {
    return std::max(limits.max_header_bytes, limits.read_buffer_bytes);
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
    request.body = std::move(message.body());
    return request;
}

// The answer to a request the parser refused (not a timeout): 413, 431 or 400; nullopt when the client went
// away or the read was cancelled (nobody to tell: close).
inline std::optional<HttpReply> refusal_reply(boost::beast::error_code error, const ConnectionLimits& limits) {
    namespace http = boost::beast::http;
    namespace asio = boost::asio;
    if (error == http::error::body_limit)
        return error_reply(413, "request body larger than " + std::to_string(limits.max_body_bytes) + " bytes");
    if (error == http::error::header_limit) return error_reply(431, net::header_overflow_text(limits.max_header_bytes));
    if (error == http::error::buffer_overflow)
        return error_reply(400, net::chunk_overflow_text(read_buffer_limit(limits)));
    if (error == http::error::end_of_stream || error == asio::error::eof || error == asio::error::connection_reset ||
        error == asio::error::operation_aborted)
        return std::nullopt;
    return error_reply(400, "bad HTTP request: " + error.message());
}

// The HTTP/1.1 response written for a reply (not for accept_stream), as the bytes that go on the wire.
inline std::string wire_response(const HttpReply& reply) {
    net::WireResponse out(reply.status, reply.body.size());
    out.header("Content-Type", reply.content_type)
        .header("Content-Security-Policy", content_security_policy)
        .header("X-Content-Type-Options", content_type_options);
    for (const auto& [name, value] : reply.headers) out.header(name, value);
    return std::move(out).finish(reply.close, reply.body, reply.head);
}

}  // namespace meshscope::server
