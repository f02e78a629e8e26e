#include "records/value_tree.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "meshscope/mesh/json_limits.h"

namespace meshscope::records::detail {

std::uint32_t ValueTree::add_string(std::string_view text) {
    Node n;
    n.kind = Node::Kind::string;
    n.s = text.data();
    n.length = static_cast<std::uint32_t>(text.size());
    return add(n);
}

std::uint32_t ValueTree::add_owned(std::string text) {
    owned.push_back(std::move(text));
    return add_string(owned.back());
}

std::uint32_t ValueTree::add_container(Node::Kind kind) {
    Node n;
    n.kind = kind;
    return add(n);
}

void ValueTree::append(std::uint32_t container, std::uint32_t child) {
    Node& c = nodes[container];
    if (c.count > 0 && cells[c.tail].next != no_cell) {
        // Another head shares this chain and went on past its end: this one continues on a copy.
        std::uint32_t from = c.head, head = no_cell, tail = no_cell;
        for (std::uint32_t k = 0; k < c.count; ++k) {
            cells.push_back({cells[from].node, no_cell});
            const auto made = static_cast<std::uint32_t>(cells.size() - 1);
            if (tail == no_cell)
                head = made;
            else
                cells[tail].next = made;
            tail = made;
            from = cells[from].next;
        }
        c.head = head;
        c.tail = tail;
    }
    cells.push_back({child, no_cell});
    const auto made = static_cast<std::uint32_t>(cells.size() - 1);
    if (c.count == 0)
        c.head = made;
    else
        cells[c.tail].next = made;
    c.tail = made;
    ++c.count;
}

const Node* ValueTree::member(const Node& dict, std::string_view key) const {
    const Node* found = nullptr;
    bool is_key = true, match = false;
    each(dict, [&](std::uint32_t child) {
        const Node& n = nodes[child];
        if (is_key)
            match = n.kind == Node::Kind::string && n.text() == key;
        else if (match)
            found = &n;
        is_key = !is_key;
    });
    return found && found->kind != Node::Kind::null ? found : nullptr;
}

nlohmann::json ValueTree::to_json(const Node& node, std::size_t budget, std::size_t depth) const {
    using nlohmann::json;
    switch (node.kind) {
        case Node::Kind::null: return json(nullptr);
        case Node::Kind::boolean: return json(node.flag);
        case Node::Kind::integer: return json(node.i);
        case Node::Kind::unsigned_integer: return json(node.u);
        case Node::Kind::real: return json(node.d);
        case Node::Kind::string: return json(std::string(node.text()));
        case Node::Kind::list: {
            json out = json::array();
            // Each child or nesting level takes at least one character of the text: past the budget none shows.
            if (depth > budget) return out;
            std::size_t k = 0;
            each(node, [&](std::uint32_t child) {
                if (k++ <= budget) out.push_back(to_json(nodes[child], budget, depth + 1));
            });
            return out;
        }
        case Node::Kind::dict: {
            json out = json::object();
            if (depth > budget) return out;
            const Node* key = nullptr;
            each(node, [&](std::uint32_t child) {
                if (!key) {
                    key = &nodes[child];
                    return;
                }
                // Every key is taken: the text lists them sorted, so any of them may come first.
                out[std::string(key->text())] = to_json(nodes[child], budget, depth + 1);
                key = nullptr;
            });
            return out;
        }
    }
    return json(nullptr);
}

bool valid_utf8(std::string_view bytes) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    const auto* end = p + bytes.size();
    while (p < end) {
        // ASCII eight bytes at a time: pg_config's rank lists are tens of kilobytes of digits in every dump.
        while (end - p >= 8) {
            std::uint64_t word;
            std::memcpy(&word, p, sizeof word);
            if (word & 0x8080808080808080ull) break;
            p += 8;
        }
        if (p == end) break;
        const unsigned char c = *p;
        if (c < 0x80) {
            ++p;
            continue;
        }
        std::size_t n = 0;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf)
            n = 1;
        else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            if (c == 0xe0) lo = 0xa0;
            if (c == 0xed) hi = 0x9f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            if (c == 0xf0) lo = 0x90;
            if (c == 0xf4) hi = 0x8f;
        } else
            return false;
        if (static_cast<std::size_t>(end - p) <= n) return false;
        if (p[1] < lo || p[1] > hi) return false;
        for (std::size_t k = 2; k <= n; ++k)
            if (p[k] < 0x80 || p[k] > 0xbf) return false;
        p += n + 1;
    }
    return true;
}

namespace {
// A cursor over JSON text that takes what RFC 8259 allows and gives up (false) on anything else.
class JsonCursor {
public:
    JsonCursor(std::string_view text, ValueTree& tree)
        : p_(text.data()), end_(text.data() + text.size()), tree_(tree) {}

    bool document(std::uint32_t& root) {
        // An explicit stack of open containers: no recursion, however deep the text nests.
        struct Open {
            std::uint32_t node;
            bool dict;
        };
        std::vector<Open> open;
        skip_space();
        bool have_root = false;
        for (;;) {
            // A value is expected here (after '[', ',', ':' or at the start).
            std::uint32_t value = 0;
            if (p_ == end_) return false;
            const char c = *p_;
            if (c == '{' || c == '[') {
                // Deeper than any dump nests: left to the slow path, which refuses it with json_depth_text().
                if (open.size() >= max_json_depth) return false;
                ++p_;
                const bool dict = c == '{';
                const std::uint32_t node = tree_.add_container(dict ? Node::Kind::dict : Node::Kind::list);
                attach(open, have_root, root, node);
                open.push_back({node, dict});
                skip_space();
                if (p_ < end_ && *p_ == (dict ? '}' : ']')) {
                    ++p_;
                    open.pop_back();
                } else {
                    if (dict && !key(open.back().node)) return false;
                    continue;
                }
            } else {
                if (!scalar(value)) return false;
                attach(open, have_root, root, value);
            }
            // After a value: ',' goes on, a closer ends its container (and maybe the ones around it).
            for (;;) {
                skip_space();
                if (open.empty()) return p_ == end_;
                if (p_ == end_) return false;
                const bool dict = open.back().dict;
                if (*p_ == ',') {
                    ++p_;
                    skip_space();
                    if (dict && !key(open.back().node)) return false;
                    break;
                }
                if (*p_ != (dict ? '}' : ']')) return false;
                ++p_;
                open.pop_back();
            }
        }
    }

private:
    void attach(const auto& open, bool& have_root, std::uint32_t& root, std::uint32_t node) {
        if (open.empty()) {
            root = node;
            have_root = true;
        } else
            tree_.append(open.back().node, node);
    }

    // A dict's key and its ':', the key appended as a child.
    bool key(std::uint32_t dict) {
        if (p_ == end_ || *p_ != '"') return false;
        std::uint32_t k = 0;
        if (!string(k)) return false;
        tree_.append(dict, k);
        skip_space();
        if (p_ == end_ || *p_ != ':') return false;
        ++p_;
        skip_space();
        return true;
    }

    void skip_space() {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    }

    bool literal(const char* word, std::size_t n) {
        if (static_cast<std::size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
        p_ += n;
        return true;
    }

    bool scalar(std::uint32_t& out) {
        Node n;
        switch (*p_) {
            case '"': return string(out);
            case 't':
                if (!literal("true", 4)) return false;
                n.kind = Node::Kind::boolean;
                n.flag = true;
                break;
            case 'f':
                if (!literal("false", 5)) return false;
                n.kind = Node::Kind::boolean;
                break;
            case 'n':
                if (!literal("null", 4)) return false;
                break;
            default:
                if (!number(n)) return false;
        }
        out = tree_.add(n);
        return true;
    }

    bool number(Node& n) {
        const char* start = p_;
        const char* q = p_;
        if (q < end_ && *q == '-') ++q;
        if (q == end_ || *q < '0' || *q > '9') return false;
        if (*q == '0')
            ++q;
        else
            while (q < end_ && *q >= '0' && *q <= '9') ++q;
        bool real = false;
        if (q < end_ && *q == '.') {
            real = true;
            ++q;
            if (q == end_ || *q < '0' || *q > '9') return false;
            while (q < end_ && *q >= '0' && *q <= '9') ++q;
        }
        if (q < end_ && (*q == 'e' || *q == 'E')) {
            real = true;
            ++q;
            if (q < end_ && (*q == '+' || *q == '-')) ++q;
            if (q == end_ || *q < '0' || *q > '9') return false;
            while (q < end_ && *q >= '0' && *q <= '9') ++q;
        }
        if (!real) {
            // As nlohmann reads integers: int64, else (not negative) uint64, else a double.
            if (const auto [at, ec] = std::from_chars(start, q, n.i); ec == std::errc() && at == q) {
                n.kind = Node::Kind::integer;
                p_ = q;
                return true;
            }
            if (*start != '-')
                if (const auto [at, ec] = std::from_chars(start, q, n.u); ec == std::errc() && at == q) {
                    n.kind = Node::Kind::unsigned_integer;
                    p_ = q;
                    return true;
                }
        }
        {
            const auto [at, ec] = std::from_chars(start, q, n.d);
            if (ec != std::errc() || at != q || !std::isfinite(n.d)) return false;
            n.kind = Node::Kind::real;
        }
        p_ = q;
        return true;
    }

    static int hex(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }
    bool code_unit(const char*& q, std::uint32_t& out) const {
        if (end_ - q < 4) return false;
        out = 0;
        for (int k = 0; k < 4; ++k) {
            const int h = hex(q[k]);
            if (h < 0) return false;
            out = out * 16 + static_cast<std::uint32_t>(h);
        }
        q += 4;
        return true;
    }

    bool string(std::uint32_t& out) {
        const char* start = ++p_;
        const char* q = start;
        bool ascii = true;
        while (q < end_ && *q != '"' && *q != '\\') {
            const auto b = static_cast<unsigned char>(*q);
            if (b < 0x20) return false;
            if (b >= 0x80) ascii = false;
            ++q;
        }
        if (q == end_) return false;
        if (*q == '"') {
            const std::string_view text(start, static_cast<std::size_t>(q - start));
            if (!ascii && !valid_utf8(text)) return false;
            p_ = q + 1;
            out = tree_.add_string(text);
            return true;
        }
        // Escapes: decoded into a string of its own.
        std::string decoded(start, q);
        while (q < end_ && *q != '"') {
            const auto b = static_cast<unsigned char>(*q);
            if (b < 0x20) return false;
            if (b != '\\') {
                decoded += *q++;
                continue;
            }
            if (++q == end_) return false;
            const char e = *q++;
            switch (e) {
                case '"': decoded += '"'; break;
                case '\\': decoded += '\\'; break;
                case '/': decoded += '/'; break;
                case 'b': decoded += '\b'; break;
                case 'f': decoded += '\f'; break;
                case 'n': decoded += '\n'; break;
                case 'r': decoded += '\r'; break;
                case 't': decoded += '\t'; break;
                case 'u': {
                    std::uint32_t cp = 0;
                    if (!code_unit(q, cp)) return false;
                    if (cp >= 0xdc00 && cp <= 0xdfff) return false;
                    if (cp >= 0xd800 && cp <= 0xdbff) {
                        std::uint32_t low = 0;
                        if (end_ - q < 2 || q[0] != '\\' || q[1] != 'u') return false;
                        q += 2;
                        if (!code_unit(q, low) || low < 0xdc00 || low > 0xdfff) return false;
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                    }
                    if (cp < 0x80)
                        decoded += static_cast<char>(cp);
                    else if (cp < 0x800) {
                        decoded += static_cast<char>(0xc0 | (cp >> 6));
                        decoded += static_cast<char>(0x80 | (cp & 0x3f));
                    } else if (cp < 0x10000) {
                        decoded += static_cast<char>(0xe0 | (cp >> 12));
                        decoded += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
                        decoded += static_cast<char>(0x80 | (cp & 0x3f));
                    } else {
                        decoded += static_cast<char>(0xf0 | (cp >> 18));
                        decoded += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
                        decoded += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
                        decoded += static_cast<char>(0x80 | (cp & 0x3f));
                    }
                    break;
                }
                default: return false;
            }
        }
        if (q == end_ || !valid_utf8(decoded)) return false;
        p_ = q + 1;
        out = tree_.add_owned(std::move(decoded));
        return true;
    }

    const char* p_;
    const char* end_;
    ValueTree& tree_;
};
}  // namespace

bool parse_json_fast(std::string_view text, ValueTree& tree, std::uint32_t& root) {
    return JsonCursor(text, tree).document(root);
}

std::uint32_t tree_from_json(const nlohmann::json& value, ValueTree& tree) {
    using nlohmann::json;
    Node n;
    switch (value.type()) {
        case json::value_t::boolean:
            n.kind = Node::Kind::boolean;
            n.flag = value.get<bool>();
            return tree.add(n);
        case json::value_t::number_integer:
            n.kind = Node::Kind::integer;
            n.i = value.get<std::int64_t>();
            return tree.add(n);
        case json::value_t::number_unsigned:
            n.kind = Node::Kind::unsigned_integer;
            n.u = value.get<std::uint64_t>();
            return tree.add(n);
        case json::value_t::number_float:
            n.kind = Node::Kind::real;
            n.d = value.get<double>();
            return tree.add(n);
        case json::value_t::string: return tree.add_owned(value.get<std::string>());
        case json::value_t::array: {
            const std::uint32_t out = tree.add_container(Node::Kind::list);
            for (const auto& v : value) {
                const std::uint32_t child = tree_from_json(v, tree);
                tree.append(out, child);
            }
            return out;
        }
        case json::value_t::object: {
            const std::uint32_t out = tree.add_container(Node::Kind::dict);
            for (const auto& [k, v] : value.items()) {
                const std::uint32_t key = tree.add_owned(k);
                tree.append(out, key);
                const std::uint32_t child = tree_from_json(v, tree);
                tree.append(out, child);
            }
            return out;
        }
        default: return tree.add(n);  // null, binary, discarded
    }
}

}  // namespace meshscope::records::detail
