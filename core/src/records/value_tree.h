// The values of one Flight Recorder dump as its readers (pickle, JSON) take them from the bytes: nodes in one
// array, strings as views into the bytes (copies only where a string had to be decoded), containers as chains of
// cells. Nothing is allocated per value, and a memo reference (pickle) copies a container's 32-byte head, not its
// contents: a chain is shared until one of the copies grows past where another one ends, and then copied.
// The readers turn these into FrDump's compact entries; the whole tree lives only while one file is read.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/records/pickle.h"

namespace meshscope::records::detail {

inline constexpr std::uint32_t no_cell = std::numeric_limits<std::uint32_t>::max();

struct Node {
    enum class Kind : std::uint8_t { null, boolean, integer, unsigned_integer, real, string, list, dict };
    Kind kind = Kind::null;
    bool flag = false;        // a boolean's value
    std::uint32_t count = 0;  // a container's children (a dict's key and value are one child each)
    std::uint32_t head = no_cell, tail = no_cell;
    std::uint32_t length = 0;  // a string's bytes
    union {
        std::int64_t i;
        std::uint64_t u;
        double d;
        const char* s;
    };
    Node() : i(0) {}
    [[nodiscard]] std::string_view text() const { return {s, length}; }
    [[nodiscard]] bool is_container() const { return kind == Kind::list || kind == Kind::dict; }
};

struct Cell {
    std::uint32_t node = 0;
    std::uint32_t next = no_cell;
};

class ValueTree {
public:
    std::vector<Node> nodes;
    std::vector<Cell> cells;
    std::deque<std::string> owned;  // decoded strings; a deque keeps the views into them valid

    // Empty, its buffers kept for the next document.
    void clear() {
        nodes.clear();
        cells.clear();
        owned.clear();
    }
    [[nodiscard]] std::size_t capacity_bytes() const {
        return nodes.capacity() * sizeof(Node) + cells.capacity() * sizeof(Cell);
    }

    std::uint32_t add(const Node& node) {
        nodes.push_back(node);
        return static_cast<std::uint32_t>(nodes.size() - 1);
    }
    std::uint32_t add_string(std::string_view text);  // a view: text must outlive the tree
    std::uint32_t add_owned(std::string text);
    std::uint32_t add_container(Node::Kind kind);
    // Appends child to container (by index), copying the container's chain first when another head shares it and
    // has grown past this one's end.
    void append(std::uint32_t container, std::uint32_t child);

    // Calls f(child index) for each child of a container, in order.
    template <class F>
    void each(const Node& container, F&& f) const {
        std::uint32_t c = container.head;
        for (std::uint32_t k = 0; k < container.count; ++k) {
            f(cells[c].node);
            c = cells[c].next;
        }
    }
    // A dict's value under key (the last one, as a dict keeps), or nullptr; null values count as absent.
    [[nodiscard]] const Node* member(const Node& dict, std::string_view key) const;

    // The value as nlohmann::json: a whole document (read_plain_pickle), or, with a budget, as much of it as the
    // first `budget` characters of its text need (error messages show at most 60).
    [[nodiscard]] nlohmann::json to_json(const Node& node, std::size_t budget = SIZE_MAX, std::size_t depth = 0) const;
};

// Whether bytes are well-formed UTF-8 (the Unicode standard's table 3-7: no overlong forms, no surrogates, nothing
// past U+10FFFF), as nlohmann reads and writes strings.
[[nodiscard]] bool valid_utf8(std::string_view bytes);

// JSON text -> tree, or false where the text is anything this fast reader does not take (malformed, or a number
// it leaves to nlohmann: beyond 64 bits, or out of a double's range); the caller then asks nlohmann, whose
// errors are the reader's words.
[[nodiscard]] bool parse_json_fast(std::string_view text, ValueTree& tree, std::uint32_t& root);
// nlohmann's document -> tree (the slow path's result, read the same way as the fast one's).
std::uint32_t tree_from_json(const nlohmann::json& value, ValueTree& tree);

// The pickle reader's tree (pickle.cpp); throws ValueError "{name} at byte {offset}: {what}".
std::uint32_t read_pickle_tree(std::string_view bytes, std::string_view name, const PickleLimits& limits,
                               ValueTree& tree);

}  // namespace meshscope::records::detail
