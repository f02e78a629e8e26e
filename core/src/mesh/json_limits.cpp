#include "meshscope/mesh/json_limits.h"

#include <stdexcept>

namespace meshscope {

namespace {
using json = nlohmann::json;

// nlohmann's own DOM builder with a depth count in front: the parser is iterative and calls start_* once per
// level, so the count is exact and the refused text costs no more than the levels read before the limit.
class DepthBoundedBuilder {
public:
    // `throwing`: a syntax error throws json::parse's exception (else the parse just stops).
    DepthBoundedBuilder(json& root, bool throwing) : dom_(root, throwing) {}
    bool too_deep = false;

    bool null() { return dom_.null(); }
    bool boolean(bool v) { return dom_.boolean(v); }
    bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
    bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
    bool number_float(json::number_float_t v, const json::string_t& s) { return dom_.number_float(v, s); }
    bool string(json::string_t& v) { return dom_.string(v); }
    bool binary(json::binary_t& v) { return dom_.binary(v); }
    bool start_object(std::size_t n) { return enter() && dom_.start_object(n); }
    bool key(json::string_t& k) { return dom_.key(k); }
    bool end_object() {
        --depth_;
        return dom_.end_object();
    }
    bool start_array(std::size_t n) { return enter() && dom_.start_array(n); }
    bool end_array() {
        --depth_;
        return dom_.end_array();
    }
    // A template, as nlohmann's own: the DOM parser throws the exception's own type (parse_error, out_of_range).
    template <typename Exception>
    bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
        return dom_.parse_error(position, token, e);
    }

private:
    bool enter() {
        if (++depth_ <= max_json_depth) return true;
        too_deep = true;
        return false;
    }
    nlohmann::detail::json_sax_dom_parser<json> dom_;
    std::size_t depth_ = 0;
};
}  // namespace

std::string json_depth_text() {
    return "invalid JSON: nested deeper than " + std::to_string(max_json_depth) + " levels";
}

void refuse_nul_byte(std::string_view text) {
    const auto nul = text.find('\0');
    if (nul != std::string_view::npos)
        throw json::parse_error::create(101, nul + 1, "a NUL byte, which JSON text never holds", nullptr);
}

json parse_json_bounded(std::string_view text, bool* too_deep) {
    if (too_deep) *too_deep = false;
    if (text.find('\0') != std::string_view::npos) return json(json::value_t::discarded);
    json out;
    DepthBoundedBuilder builder(out, false);
    const bool ok = json::sax_parse(text.begin(), text.end(), &builder);
    if (too_deep) *too_deep = builder.too_deep;
    if (!ok) return json(json::value_t::discarded);
    return out;
}

json parse_json_throwing(std::string_view text) {
    refuse_nul_byte(text);
    json out;
    DepthBoundedBuilder builder(out, true);
    const bool ok = json::sax_parse(text.begin(), text.end(), &builder);
    if (builder.too_deep) throw JsonTooDeep();
    if (!ok) throw std::logic_error("parse_json_throwing: the parser stopped without an error");  // errors throw
    return out;
}

}  // namespace meshscope
