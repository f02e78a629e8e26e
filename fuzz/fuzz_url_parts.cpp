// libFuzzer target: server/http/url_parts.h on its own (the router's path splitting, percent-decoding and
// query values), checked against a reference written here from RFC 3986's rules: "%" and two hex digits is
// one byte, anything else (a malformed escape included) stays as it is, and "+" is a space in queries only.
// The whole input is the request target.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "http/url_parts.h"

namespace {
using namespace meshscope::server;

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "fuzz_url_parts: invariant broken: %s\n", what);
    std::abort();
}
void check(bool ok, const char* what) {
    if (!ok) fail(what);
}

bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int hex_value(char c) {
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

std::string reference_decode(std::string_view text, bool plus_is_space) {
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        if (text[i] == '%' && text.size() - i >= 3 && is_hex(text[i + 1]) && is_hex(text[i + 2])) {
            out.push_back(static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2])));
            i += 3;
        } else {
            out.push_back(plus_is_space && text[i] == '+' ? ' ' : text[i]);
            ++i;
        }
    }
    return out;
}

std::string encode_every_byte(std::string_view text) {
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        out += '%';
        out += digits[byte >> 4];
        out += digits[byte & 15];
    }
    return out;
}

std::optional<std::string> reference_query_value(std::string_view query, std::string_view name) {
    std::size_t start = 0;
    while (start <= query.size()) {
        std::size_t end = query.find('&', start);
        if (end == std::string_view::npos) end = query.size();
        const std::string_view item = query.substr(start, end - start);
        const std::size_t eq = item.find('=');
        const std::string_view key = eq == std::string_view::npos ? item : item.substr(0, eq);
        if (reference_decode(key, true) == name)
            return eq == std::string_view::npos ? std::string() : reference_decode(item.substr(eq + 1), true);
        if (end == query.size()) break;
        start = end + 1;
    }
    return std::nullopt;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view target(reinterpret_cast<const char*>(data), size);

    check(percent_decode(target) == reference_decode(target, false), "percent_decode (path)");
    check(percent_decode(target, true) == reference_decode(target, true), "percent_decode (query)");
    check(percent_decode(encode_every_byte(target)) == target, "decode(encode(x)) == x");

    const UrlParts parts = split_target(target);
    const std::size_t question = target.find('?');
    check(parts.path == target.substr(0, question), "the path ends at the first '?'");
    check(parts.query == (question == std::string_view::npos ? std::string_view() : target.substr(question + 1)),
          "the query is what follows it");
    std::string_view rest = parts.path;
    if (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
    std::size_t index = 0;
    while (true) {
        const std::size_t slash = rest.find('/');
        check(index < parts.segments.size(), "a segment per '/'");
        check(parts.segments[index] == reference_decode(rest.substr(0, slash), false), "a segment is decoded");
        ++index;
        if (slash == std::string_view::npos) break;
        rest.remove_prefix(slash + 1);
    }
    check(index == parts.segments.size(), "no segment more");

    // The router's names, and the first item's own (decoded) name, which must then be found.
    for (const std::string_view name : {"offset", "limit", "token"})
        check(query_value(parts.query, name) == reference_query_value(parts.query, name), "query_value");
    const std::string_view first = std::string_view(parts.query).substr(0, parts.query.find('&'));
    const std::string first_name = reference_decode(first.substr(0, first.find('=')), true);
    if (!first_name.empty())  // an empty name (from "&" or "=x") is no question the router asks
        check(query_value(parts.query, first_name) == reference_query_value(parts.query, first_name) &&
                  query_value(parts.query, first_name).has_value(),
              "query_value of the first name");
    return 0;
}
