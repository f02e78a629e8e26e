#include "meshscope/records/pickle.h"

#include "records/value_tree.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <vector>

namespace meshscope::records {

namespace {
using detail::Node;
using detail::ValueTree;

struct Item {
    std::uint32_t node = 0;
    std::size_t values = 1;  // values inside, this one included: what a memo copy costs
    std::size_t depth = 0;
    bool mark = false;
    bool tuple = false;   // an immutable tuple: APPEND and SETITEM refuse it
    bool shared = false;  // its node is also the memo's (or a DUP's): growing it copies the head first
};

// What the memo keeps: the value as it was when stored (a container's head copied then, so that its later growth
// is not seen through it), with its accounting.
struct Memo {
    std::uint32_t node = 0;
    std::size_t values = 0, depth = 0;
    bool tuple = false;
    bool stored = false;
};

class Reader {
public:
    Reader(std::string_view bytes, std::string_view name, const PickleLimits& limits, ValueTree& tree)
        : bytes_(bytes), name_(name), limits_(limits), tree_(tree) {}

    std::uint32_t run() {
        for (;;) {
            if (pos_ >= bytes_.size()) fail(pos_, "truncated pickle (no STOP opcode)");
            const std::size_t at = pos_;
            const auto op = static_cast<unsigned char>(bytes_[pos_++]);
            switch (op) {
                case 0x80: take(1); break;         // PROTO
                case 0x95: take(8); break;         // FRAME: a length hint
                case '.': return finish(at);       // STOP
                case '(': push_mark(); break;      // MARK
                case '0': pop_one(at); break;      // POP
                case '1': pop_to_mark(at); break;  // POP_MARK
                case '2': dup(at); break;          // DUP
                case 'N': push(Node()); break;
                case 0x88: push(boolean(true)); break;                                   // NEWTRUE
                case 0x89: push(boolean(false)); break;                                  // NEWFALSE
                case 'J': push(integer(static_cast<std::int32_t>(le(take(4))))); break;  // BININT
                case 'K': push(integer(static_cast<std::int64_t>(le(take(1))))); break;  // BININT1
                case 'M': push(integer(static_cast<std::int64_t>(le(take(2))))); break;  // BININT2
                case 0x8a: push(long_int(at, le(take(1)))); break;                       // LONG1
                case 0x8b: push(long_int(at, checked_len(at, le(take(4))))); break;      // LONG4
                case 'G': push(binfloat()); break;
                case 'X': push_node(text(at, le(take(4)))); break;                     // BINUNICODE
                case 0x8c: push_node(text(at, le(take(1)))); break;                    // SHORT_BINUNICODE
                case 0x8d: push_node(text(at, checked_len(at, le(take(8))))); break;   // BINUNICODE8
                case 'B': push_node(bytes(at, le(take(4)))); break;                    // BINBYTES
                case 'C': push_node(bytes(at, le(take(1)))); break;                    // SHORT_BINBYTES
                case 0x8e: push_node(bytes(at, checked_len(at, le(take(8))))); break;  // BINBYTES8
                case 'T': push_node(bytes(at, le(take(4)))); break;                    // BINSTRING (protocol 1)
                case 'U': push_node(bytes(at, le(take(1)))); break;                    // SHORT_BINSTRING
                case '}': push_node(tree_.add_container(Node::Kind::dict)); break;     // EMPTY_DICT
                case ']': push_node(tree_.add_container(Node::Kind::list)); break;     // EMPTY_LIST
                case ')': stack_.push_back({tree_.add_container(Node::Kind::list), 1, 0, false, true, false}); break;
                case 'd': dict_from_mark(at); break;          // DICT
                case 'l': list_from_mark(at, false); break;   // LIST
                case 't': list_from_mark(at, true); break;    // TUPLE
                case 0x85: tuple_n(at, 1); break;             // TUPLE1
                case 0x86: tuple_n(at, 2); break;             // TUPLE2
                case 0x87: tuple_n(at, 3); break;             // TUPLE3
                case 'a': append(at); break;                  // APPEND
                case 'e': appends(at); break;                 // APPENDS
                case 's': setitem(at); break;                 // SETITEM
                case 'u': setitems(at); break;                // SETITEMS
                case 'q': memo_put(at, le(take(1))); break;   // BINPUT
                case 'r': memo_put(at, le(take(4))); break;   // LONG_BINPUT
                case 0x94: memo_put(at, memo_count_); break;  // MEMOIZE
                case 'h': memo_get(at, le(take(1))); break;   // BINGET
                case 'j': memo_get(at, le(take(4))); break;   // LONG_BINGET
                default: refuse(at, op);
            }
        }
    }

private:
    [[noreturn]] void fail(std::size_t at, const std::string& what) const {
        throw ValueError(std::string(name_) + " at byte " + std::to_string(at) + ": " + what);
    }

    [[noreturn]] void refuse(std::size_t at, unsigned char op) const {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        std::string what = "opcode " + std::string(hex);
        if (op >= 0x21 && op < 0x7f) what += " ('" + std::string(1, static_cast<char>(op)) + "')";
        const bool code = op == 'c' || op == 0x93 || op == 'R' || op == 'b' || op == 'i' || op == 'o' || op == 0x81 ||
                          op == 0x92 || op == 'P' || op == 'Q' || op == 0x82 || op == 0x83 || op == 0x84;
        fail(at, what + (code ? " names or calls Python code; a Flight Recorder dump never does, so it is refused"
                              : " is not one Flight Recorder writes; refused"));
    }

    std::string_view take(std::size_t n) {
        if (bytes_.size() - pos_ < n) fail(pos_, "truncated pickle (an argument runs past the end)");
        const std::string_view out = bytes_.substr(pos_, n);
        pos_ += n;
        return out;
    }

    static std::uint64_t le(std::string_view raw) {
        std::uint64_t v = 0;
        for (std::size_t i = raw.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(raw[i]);
        return v;
    }

    std::size_t checked_len(std::size_t at, std::uint64_t n) const {
        if (n > bytes_.size()) fail(at, "a length of " + std::to_string(n) + " runs past the end");
        return static_cast<std::size_t>(n);
    }

    static Node boolean(bool v) {
        Node n;
        n.kind = Node::Kind::boolean;
        n.flag = v;
        return n;
    }
    static Node integer(std::int64_t v) {
        Node n;
        n.kind = Node::Kind::integer;
        n.i = v;
        return n;
    }

    Node long_int(std::size_t at, std::size_t n) {
        const std::string_view raw = take(n);
        if (n == 0) return integer(0);
        if (n > 8) fail(at, "an integer of " + std::to_string(n) + " bytes is larger than 64 bits");
        std::uint64_t v = le(raw);
        const bool negative = static_cast<unsigned char>(raw.back()) & 0x80;
        if (negative && n < 8) v |= ~std::uint64_t{0} << (8 * n);  // sign-extend two's complement
        return integer(static_cast<std::int64_t>(v));
    }

    Node binfloat() {
        const std::string_view raw = take(8);
        std::uint64_t bits = 0;
        for (const char c : raw) bits = (bits << 8) | static_cast<unsigned char>(c);  // big-endian
        double v;
        std::memcpy(&v, &bits, sizeof v);
        if (!std::isfinite(v)) return Node();  // JSON has no NaN or infinity
        Node n;
        n.kind = Node::Kind::real;
        n.d = v;
        return n;
    }

    std::uint32_t text(std::size_t at, std::size_t n) {
        const std::string_view raw = take(checked_len(at, n));
        if (!detail::valid_utf8(raw)) fail(at, "a string is not valid UTF-8");
        return tree_.add_string(raw);  // a view: the bytes outlive the tree
    }

    std::uint32_t bytes(std::size_t at, std::size_t n) {
        const std::string_view raw = take(checked_len(at, n));
        std::string out;
        out.reserve(raw.size());
        for (const char c : raw) {  // latin-1 to UTF-8: every byte stays, as text
            const auto b = static_cast<unsigned char>(c);
            if (b < 0x80)
                out += static_cast<char>(b);
            else {
                out += static_cast<char>(0xc0 | (b >> 6));
                out += static_cast<char>(0x80 | (b & 0x3f));
            }
        }
        return tree_.add_owned(std::move(out));
    }

    void count(std::size_t at, std::size_t values) {
        total_ += values;
        if (total_ > limits_.max_values)
            fail(at, "more than " + std::to_string(limits_.max_values) + " values (memo copies included)");
    }

    void push(const Node& value) { push_node(tree_.add(value)); }
    void push_node(std::uint32_t node) {
        count(pos_, 1);
        stack_.push_back({node, 1, 0, false, false, false});
    }
    void push_mark() { stack_.push_back({0, 0, 0, true, false, false}); }
    // A container about to grow gets a head of its own if it shares one.
    void own(Item& item) {
        if (!item.shared) return;
        item.node = tree_.add(tree_.nodes[item.node]);
        item.shared = false;
    }

    Item& top(std::size_t at) {
        if (stack_.empty() || stack_.back().mark) fail(at, "the stack is empty where a value is needed");
        return stack_.back();
    }
    Item pop(std::size_t at) {
        Item item = top(at);
        stack_.pop_back();
        return item;
    }
    void pop_one(std::size_t at) {
        if (stack_.empty()) fail(at, "POP on an empty stack");
        stack_.pop_back();
    }
    std::size_t mark_index(std::size_t at) const {
        for (std::size_t i = stack_.size(); i-- > 0;)
            if (stack_[i].mark) return i;
        fail(at, "no MARK before this opcode");
    }
    void pop_to_mark(std::size_t at) { stack_.resize(mark_index(at)); }
    // A copy of a value shares its node until one of them grows (own).
    void dup(std::size_t at) {
        Item& item = top(at);
        item.shared = true;
        const Item copy = item;
        count(at, copy.values);
        stack_.push_back(copy);
    }

    void nest(std::size_t at, Item& container, const Item& child) {
        container.depth = std::max(container.depth, child.depth + 1);
        container.values += child.values;
        if (container.depth > limits_.max_depth)
            fail(at, "nested deeper than " + std::to_string(limits_.max_depth) + " levels");
    }

    void list_from_mark(std::size_t at, bool tuple) {
        const std::size_t m = mark_index(at);
        Item out{tree_.add_container(Node::Kind::list), 1, 0, false, tuple, false};
        for (std::size_t i = m + 1; i < stack_.size(); ++i) {
            nest(at, out, stack_[i]);
            tree_.append(out.node, stack_[i].node);
        }
        stack_.resize(m);
        count(at, 1);
        stack_.push_back(out);
    }

    void tuple_n(std::size_t at, std::size_t n) {
        if (stack_.size() < n) fail(at, "a tuple of " + std::to_string(n) + " needs more values on the stack");
        Item out{tree_.add_container(Node::Kind::list), 1, 0, false, true, false};
        for (std::size_t i = stack_.size() - n; i < stack_.size(); ++i) {
            if (stack_[i].mark) fail(at, "a MARK where a tuple's value is needed");
            nest(at, out, stack_[i]);
            tree_.append(out.node, stack_[i].node);
        }
        stack_.resize(stack_.size() - n);
        count(at, 1);
        stack_.push_back(out);
    }

    void add_to_list(std::size_t at, Item& list, const Item& value) {
        if (tree_.nodes[list.node].kind != Node::Kind::list || list.tuple)
            fail(at, "APPEND to something other than a list");
        nest(at, list, value);
        own(list);
        tree_.append(list.node, value.node);
    }
    void append(std::size_t at) {
        const Item value = pop(at);
        add_to_list(at, top(at), value);
    }
    void appends(std::size_t at) {
        const std::size_t m = mark_index(at);
        if (m == 0) fail(at, "APPENDS without a list below its MARK");
        Item& list = stack_[m - 1];
        for (std::size_t i = m + 1; i < stack_.size(); ++i) add_to_list(at, list, stack_[i]);
        stack_.resize(m);
    }

    void add_to_dict(std::size_t at, Item& dict, const Item& key, const Item& value) {
        if (tree_.nodes[dict.node].kind != Node::Kind::dict) fail(at, "SETITEM on something other than a dict");
        if (tree_.nodes[key.node].kind != Node::Kind::string)
            fail(at, "a dict key that is not a string; Flight Recorder's keys are strings");
        nest(at, dict, value);
        own(dict);
        tree_.append(dict.node, key.node);
        tree_.append(dict.node, value.node);
    }
    void setitem(std::size_t at) {
        const Item value = pop(at);
        const Item key = pop(at);
        add_to_dict(at, top(at), key, value);
    }
    void setitems(std::size_t at) {
        const std::size_t m = mark_index(at);
        if (m == 0) fail(at, "SETITEMS without a dict below its MARK");
        if ((stack_.size() - m - 1) % 2) fail(at, "SETITEMS with a key and no value");
        Item& dict = stack_[m - 1];
        for (std::size_t i = m + 1; i < stack_.size(); i += 2) add_to_dict(at, dict, stack_[i], stack_[i + 1]);
        stack_.resize(m);
    }
    void dict_from_mark(std::size_t at) {
        const std::size_t m = mark_index(at);
        if ((stack_.size() - m - 1) % 2) fail(at, "DICT with a key and no value");
        Item out{tree_.add_container(Node::Kind::dict), 1, 0, false, false, false};
        for (std::size_t i = m + 1; i < stack_.size(); i += 2) add_to_dict(at, out, stack_[i], stack_[i + 1]);
        stack_.resize(m);
        count(at, 1);
        stack_.push_back(out);
    }

    // The memo holds what was on the stack when it was stored; later changes to a container stored earlier are
    // not seen through it. Flight Recorder stores containers after filling them (torch's pickler memoizes a
    // shared frame once it is written) and strings, so this reads its dumps exactly; a pickle that relies on
    // shared mutable containers reads as a snapshot.
    Memo& memo_slot(std::size_t at, std::uint64_t index) {
        if (index < memo_.size()) return memo_[index];
        if (index == memo_.size()) {
            // An index stored sparsely before the dense ones reached it moves over, value and all.
            if (const auto it = sparse_.find(index); it != sparse_.end()) {
                memo_.push_back(it->second);
                sparse_.erase(it);
                return memo_.back();
            }
            return memo_.emplace_back();
        }
        if (index > memo_count_ + (1u << 20))
            fail(at, "a memo index of " + std::to_string(index) + " is too far ahead");
        return sparse_[index];
    }
    void memo_put(std::size_t at, std::uint64_t index) {
        const Item& item = top(at);
        if (index > memo_count_ + (1u << 20))
            fail(at, "a memo index of " + std::to_string(index) + " is too far ahead");
        count(at, item.values);
        Memo& slot = memo_slot(at, index);
        if (!slot.stored) ++memo_count_;
        // A string or number never changes: the memo refers to its node. A container may still grow on the
        // stack: the memo keeps a copy of its head as it is now.
        const std::uint32_t node =
            tree_.nodes[item.node].is_container() ? tree_.add(tree_.nodes[item.node]) : item.node;
        slot = {node, item.values, item.depth, item.tuple, true};
    }
    void memo_get(std::size_t at, std::uint64_t index) {
        const Memo* slot = nullptr;
        if (index < memo_.size())
            slot = &memo_[index];
        else if (const auto it = sparse_.find(index); it != sparse_.end())
            slot = &it->second;
        if (!slot || !slot->stored) fail(at, "memo " + std::to_string(index) + " was never stored");
        count(at, slot->values);
        stack_.push_back({slot->node, slot->values, slot->depth, false, slot->tuple, true});
    }

    std::uint32_t finish(std::size_t at) {
        if (stack_.size() != 1 || stack_.back().mark)
            fail(at, "STOP with " + std::to_string(stack_.size()) + " items on the stack (one value expected)");
        return stack_.back().node;
    }

    std::string_view bytes_;
    std::string_view name_;
    PickleLimits limits_;
    ValueTree& tree_;
    std::size_t pos_ = 0;
    std::size_t total_ = 0;
    std::vector<Item> stack_;
    std::vector<Memo> memo_;  // indices as torch and Python write them: dense from 0
    std::unordered_map<std::uint64_t, Memo> sparse_;
    std::size_t memo_count_ = 0;  // values stored: MEMOIZE's next index
};
}  // namespace

namespace detail {
std::uint32_t read_pickle_tree(std::string_view bytes, std::string_view name, const PickleLimits& limits,
                               ValueTree& tree) {
    return Reader(bytes, name, limits, tree).run();
}
}  // namespace detail

Expected<nlohmann::json> read_plain_pickle(std::string_view bytes, std::string_view name, const PickleLimits& limits) {
    try {
        ValueTree tree;
        const std::uint32_t root = detail::read_pickle_tree(bytes, name, limits, tree);
        return tree.to_json(tree.nodes[root]);
    } catch (const ValueError& e) {
        return Error(e);
    }
}

}  // namespace meshscope::records
