// The Flight Recorder pickle as torch's C++ pickler writes it, decoded straight into records: no value is built
// for an entry's fields. torch writes protocol 2: the dump a dict, every container as EMPTY_DICT / EMPTY_LIST
// followed by MARK ... SETITEMS / APPENDS, (name, desc) as TUPLE2, every string stored in the memo once (BINPUT)
// and fetched after (BINGET), and a frame shared by entries written once, stored and fetched after. So an entry
// is mostly memo fetches: a key's field is looked up once per memo slot, a frame is checked once when it is
// written, and a fetched frame is one slot read.
//
// What it takes is a subset of what the generic reader (pickle.cpp + flight_recorder.cpp's Converter) takes, with
// the same result: every opcode, UTF-8, memo and value-count check of the generic reader, and every type check of
// the Converter, is made here too. Anything else it gives up on (throws NotTorchShape, read_fr_pickle_fast
// returns false) and the caller reads the file again with the generic reader, whose result or error stands:
// opcodes torch does not write here (FRAME after the start, SETITEM, APPEND, DICT, LIST, TUPLE, POP, DUP, bytes,
// sparse memo indices), a memo store of a value it does not keep (a list, an entry), an unknown key whose value is
// a container, an integer where a text is read, a second pg_config, pg_status or entries, and every error.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "meshscope/records/pickle.h"
#include "records/fr_pool.h"
#include "records/value_tree.h"

namespace meshscope::records::detail {

namespace {
struct NotTorchShape {};

constexpr std::uint32_t no_slot = std::numeric_limits<std::uint32_t>::max();

// A value as far as a record needs it; also what a memo slot holds.
struct Value {
    enum class Kind : std::uint8_t { container, null, boolean, integer, real, string, frame, pair, dump };
    Kind kind = Kind::container;  // container: '}' or ']' next, left to the caller; dump: the whole (stored last)
    bool flag = false;
    std::int8_t field = -2;        // a string's entry field once looked up (-1 none), cached in its slot
    std::uint32_t slot = no_slot;  // the memo slot it came from or was stored in last
    std::uint64_t values = 1;      // the generic reader's count of values it stands for
    std::int64_t i = 0;
    std::string_view text, text2;        // a string; a pair's name and desc
    const FrGroupName* group = nullptr;  // a pair's group, once interned
    const std::string* state = nullptr;  // a string's state, once interned
};
using Kind = Value::Kind;

class FastReader {
public:
    FastReader(std::string_view bytes, FrShared* shared, FrInterner& interner)
        : p_(reinterpret_cast<const unsigned char*>(bytes.data())),
          end_(p_ + bytes.size()),
          shared_(shared),
          interner_(interner) {}

    void dump(FrDump& out) {
        if (next() != 0x80) give_up();  // PROTO
        take(1);
        if (peek() == 0x95) {  // FRAME (protocol 4): a length hint
            ++p_;
            take(8);
        }
        if (next() != '}') give_up();
        count(1);
        bool version_seen = false, config_seen = false, status_seen = false, entries_seen = false;
        Value root;
        root.kind = Kind::dump;
        root.values = batches('u', [&] {
            const Value key = text_key();
            std::uint64_t values = key.values;
            const std::string_view name = key.text;
            if (name == "version" || name == "comm_lib_version") {
                const Value v = scalar();
                values += v.values;
                std::string text;
                const bool present = text_of(v, text);
                if (name == "version") {
                    version_seen = present;
                    out.version = std::move(text);
                } else
                    out.comm_lib_version = std::move(text);
            } else if (name == "pg_config" || name == "pg_status" || name == "entries") {
                bool& seen = name == "pg_config" ? config_seen : name == "pg_status" ? status_seen : entries_seen;
                if (seen) give_up();  // the last of equal keys is the one kept: left to the generic reader
                seen = true;
                if (peek() != (name == "entries" ? ']' : '}')) {
                    const Value v = scalar();  // None: as if absent
                    if (v.kind != Kind::null) give_up();
                    values += v.values;
                } else {
                    ++p_;
                    values += name == "pg_config"   ? pg_config(out)
                              : name == "pg_status" ? pg_status(out)
                                                    : entries(out);
                    no_store();
                }
            } else
                values += ignored();
            return values;
        });
        stores(root);                  // torch stores the dump when it is done; only STOP follows
        if (next() != '.') give_up();  // STOP
        if (!version_seen) give_up();  // "version is missing"
    }

private:
    [[noreturn]] static void give_up() { throw NotTorchShape{}; }

    unsigned char peek() const {
        if (p_ == end_) give_up();
        return *p_;
    }
    unsigned char next() {
        if (p_ == end_) give_up();
        return *p_++;
    }
    std::uint64_t take(std::size_t n) {
        if (static_cast<std::size_t>(end_ - p_) < n) give_up();
        std::uint64_t v = 0;
        for (std::size_t k = n; k-- > 0;) v = (v << 8) | p_[k];
        p_ += n;
        return v;
    }
    void count(std::uint64_t n) {
        total_ += n;
        if (total_ > max_values_) give_up();
    }

    // BINPUT / LONG_BINPUT / MEMOIZE after a value: the slot is the value. Indices are dense, as torch writes them.
    void stores(Value& v) {
        while (p_ != end_) {
            std::uint64_t index = 0;
            if (*p_ == 'q') {
                ++p_;
                index = take(1);
            } else if (*p_ == 'r') {
                ++p_;
                index = take(4);
            } else if (*p_ == 0x94) {
                ++p_;
                index = memo_.size();
            } else
                return;
            if (v.kind == Kind::container || index > memo_.size()) give_up();
            count(v.values);
            v.slot = static_cast<std::uint32_t>(index);
            if (index == memo_.size())
                memo_.push_back(v);
            else {
                memo_[index] = v;
                forget_ops();  // an op's bytes name memo slots: a slot stored over makes them name something else
            }
            if (index < near_.size()) {
                near_[index] = {static_cast<std::int8_t>(v.kind == Kind::string ? fr_field_of(v.text) : -2), v.kind,
                                v.values};
            }
        }
    }
    // After a container this decoder does not keep in the memo (a list, an entry, a dict of the header).
    void no_store() {
        if (p_ != end_ && (*p_ == 'q' || *p_ == 'r' || *p_ == 0x94)) give_up();
    }
    const Value& fetch(std::uint64_t index) {
        if (index >= memo_.size()) give_up();
        const Value& v = memo_[index];
        count(v.values);
        return v;
    }

    // One value that is not a container written here: a scalar, or a string, frame or pair fetched from the memo,
    // with the stores after it. A container ('}', ']') is left unread, its kind container.
    Value scalar() {
        Value v;
        const unsigned char op = next();
        switch (op) {
            case 'N': v.kind = Kind::null; break;
            case 0x88: v.kind = Kind::boolean, v.flag = true; break;   // NEWTRUE
            case 0x89: v.kind = Kind::boolean, v.flag = false; break;  // NEWFALSE
            case 'K': v.kind = Kind::integer, v.i = static_cast<std::int64_t>(take(1)); break;
            case 'M': v.kind = Kind::integer, v.i = static_cast<std::int64_t>(take(2)); break;
            case 'J': v.kind = Kind::integer, v.i = static_cast<std::int32_t>(take(4)); break;
            case 0x8a: long_int(v, take(1)); break;  // LONG1
            case 0x8b: long_int(v, take(4)); break;  // LONG4
            case 'G': {                              // BINFLOAT, big-endian
                if (end_ - p_ < 8) give_up();
                std::uint64_t bits = 0;
                for (int k = 0; k < 8; ++k) bits = (bits << 8) | p_[k];
                p_ += 8;
                double d;
                std::memcpy(&d, &bits, sizeof d);
                v.kind = std::isfinite(d) ? Kind::real : Kind::null;  // JSON has no NaN or infinity
                break;
            }
            case 'X': string(v, take(4)); break;   // BINUNICODE
            case 0x8c: string(v, take(1)); break;  // SHORT_BINUNICODE
            case 0x8d: string(v, take(8)); break;  // BINUNICODE8
            case 'h': v = fetch(take(1)); break;   // BINGET
            case 'j': v = fetch(take(4)); break;   // LONG_BINGET
            case '}':
            case ']': --p_; return v;  // a container: the caller reads it
            default: give_up();
        }
        if (op != 'h' && op != 'j') count(1);
        stores(v);
        return v;
    }
    void long_int(Value& v, std::uint64_t n) {
        if (n > 8 || static_cast<std::uint64_t>(end_ - p_) < n) give_up();
        v.kind = Kind::integer;
        if (n == 0) return;
        std::uint64_t u = take(static_cast<std::size_t>(n));
        if ((p_[-1] & 0x80) && n < 8) u |= ~std::uint64_t{0} << (8 * n);  // sign-extend two's complement
        v.i = static_cast<std::int64_t>(u);
    }
    void string(Value& v, std::uint64_t n) {
        if (static_cast<std::uint64_t>(end_ - p_) < n) give_up();
        v.kind = Kind::string;
        v.text = std::string_view(reinterpret_cast<const char*>(p_), static_cast<std::size_t>(n));
        if (!valid_utf8(v.text)) give_up();
        p_ += n;
    }

    // A dict key: a string, as the generic reader requires.
    Value text_key() {
        Value v = scalar();
        if (v.kind != Kind::string) give_up();
        return v;
    }
    // An entry's key as its field: a fetched key (most of them) straight from its slot, any other through scalar().
    int key_field(std::uint64_t& values) {
        if (p_ != end_ && *p_ == 'h' && end_ - p_ >= 3 && p_[2] != 'q' && p_[2] != 'r' && p_[2] != 0x94) {
            const std::size_t index = p_[1];
            if (index < memo_.size() && memo_[index].kind == Kind::string) {
                p_ += 2;
                Value& slot = memo_[index];
                count(slot.values);
                values = slot.values;
                if (slot.field == -2) slot.field = static_cast<std::int8_t>(fr_field_of(slot.text));
                return slot.field;
            }
        }
        const Value key = text_key();
        values = key.values;
        return field(key);
    }
    // A key's entry field, looked up once per memo slot.
    int field(const Value& key) {
        if (key.slot == no_slot) return fr_field_of(key.text);
        std::int8_t& f = memo_[key.slot].field;
        if (f == -2) f = static_cast<std::int8_t>(fr_field_of(key.text));
        return f;
    }

    // A text as the Converter takes one (a string, or an integer's digits); false for None (absent).
    static bool text_of(const Value& v, std::string& out) {
        out.clear();
        if (v.kind == Kind::null) return false;
        if (v.kind == Kind::string)
            out.assign(v.text);
        else if (v.kind == Kind::integer)
            out = std::to_string(v.i);
        else
            give_up();
        return true;
    }

    // A value no record keeps: a scalar (a container is left to the generic reader).
    std::uint64_t ignored() {
        const Value v = scalar();
        if (v.kind == Kind::container) give_up();
        return v.values;
    }

    // A container's items after its EMPTY_DICT / EMPTY_LIST (read by the caller, counted here): MARK, items,
    // SETITEMS / APPENDS, as many batches as written. item() reads one (a dict's key and value) and gives its count.
    template <class F>
    std::uint64_t batches(unsigned char close, F&& item) {
        std::uint64_t values = 1;
        while (p_ != end_ && *p_ == '(') {
            ++p_;
            while (peek() != close) values += item();
            ++p_;
        }
        return values;
    }
    // A dict or list written here: its opening opcode, then its batches.
    template <class F>
    std::uint64_t container(unsigned char open, unsigned char close, F&& item) {
        if (next() != open) give_up();
        count(1);
        const std::uint64_t values = batches(close, item);
        return values;
    }

    std::uint64_t pg_config(FrDump& out) {
        count(1);
        return batches('u', [&] {
            const Value key = text_key();
            FrGroupConfig c;
            std::string_view ranks;
            bool has_ranks = false;
            const std::uint64_t values = container('}', 'u', [&] {
                const Value k = text_key();
                const Value v = scalar();
                if (v.kind == Kind::container) give_up();
                if (k.text == "name")
                    text_of(v, c.name);
                else if (k.text == "desc")
                    text_of(v, c.desc);
                else if (k.text == "ranks") {
                    if (v.kind != Kind::string && v.kind != Kind::null) give_up();  // a list: the generic reader
                    has_ranks = v.kind == Kind::string;
                    ranks = v.text;
                }
                return k.values + v.values;
            });
            no_store();
            if (has_ranks) {
                const auto parse = [&] {
                    std::vector<std::int64_t> list;
                    if (!parse_rank_list(ranks, list)) give_up();
                    return list;
                };
                c.ranks =
                    shared_ ? shared_->ranks(ranks, parse) : std::make_shared<const std::vector<std::int64_t>>(parse());
            }
            out.pg_config.insert_or_assign(std::string(key.text), std::move(c));
            return key.values + values;
        });
    }

    std::uint64_t pg_status(FrDump& out) {
        count(1);
        return batches('u', [&] {
            const Value key = text_key();
            FrGroupStatus s;
            const std::uint64_t values = container('}', 'u', [&] {
                const Value k = text_key();
                const Value v = scalar();
                std::int64_t* counter = k.text == "last_enqueued_collective"    ? &s.last_enqueued
                                        : k.text == "last_started_collective"   ? &s.last_started
                                        : k.text == "last_completed_collective" ? &s.last_completed
                                                                                : nullptr;
                if (v.kind == Kind::container) give_up();
                if (counter) {
                    // Integers in the pickle; strings ("3") as in torch's JSON dump.
                    if (v.kind == Kind::integer)
                        *counter = v.i;
                    else if (v.kind == Kind::null)
                        *counter = -1;
                    else if (v.kind == Kind::string) {
                        const auto [end, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), *counter);
                        if (ec != std::errc() || end != v.text.data() + v.text.size() || v.text.empty()) give_up();
                    } else
                        give_up();
                }
                return k.values + v.values;
            });
            no_store();
            out.pg_status.insert_or_assign(std::string(key.text), s);
            return key.values + values;
        });
    }

    std::uint64_t entries(FrDump& out) {
        count(1);
        // The entries gathered in a vector each thread keeps (a job's dumps are thousands of one size), then copied
        // out once at their number: no growth by doubling, no capacity past the last entry.
        thread_local std::vector<FrEntry> gathered;
        gathered.clear();
        const std::uint64_t values = batches('e', [&] {
            if (next() != '}') give_up();  // an entry is a dict written here
            count(1);
            std::uint64_t values = 0;
            if (!entry_quick(gathered, values)) values = entry(gathered);
            no_store();
            return values;
        });
        out.entries.assign(gathered.begin(), gathered.end());
        if (gathered.capacity() > (std::size_t{1} << 20)) std::vector<FrEntry>().swap(gathered);  // one huge dump
        return values;
    }

    // The scratch of one entry: each field's last value, as a dict keeps (None: absent).
    struct Read {
        bool has[fr_field_count] = {};
        std::int64_t i[fr_field_count];  // read only where has[] says so: not zeroed for every entry
        bool flag[fr_field_count] = {};
        std::string_view pg_name, pg_desc, profiling_name, state;
        std::uint32_t pg_slot = no_slot;                                       // the pair's, when fetched
        std::pair<std::uint32_t, std::uint32_t> pg_strings{no_slot, no_slot};  // the name's and desc's, when written
        std::uint32_t state_slot = no_slot;
    };

    std::uint64_t entry(std::vector<FrEntry>& out) {
        Read r;
        const std::uint64_t values = batches('u', [&] {
            std::uint64_t key_values = 1;
            const int f = key_field(key_values);
            return key_values + (f < 0 ? ignored() : entry_field(static_cast<FrField>(f), r));
        });
        if (!r.has[fr_process_group] || !r.has[fr_collective_seq_id] || !r.has[fr_profiling_name]) give_up();
        FrEntry e;
        e.record_id = r.has[fr_record_id] ? r.i[fr_record_id] : -1;
        e.group = r.pg_slot != no_slot ? cached_group(r) : group_of_strings(r);
        e.collective_seq_id = r.i[fr_collective_seq_id];
        e.time_created_ns = r.has[fr_time_created_ns] ? r.i[fr_time_created_ns] : 0;
        scratch_op_.profiling_name.assign(r.profiling_name);
        if (!r.has[fr_input_sizes]) scratch_op_.input_sizes.clear();
        if (!r.has[fr_output_sizes]) scratch_op_.output_sizes.clear();
        if (!r.has[fr_input_dtypes]) scratch_op_.input_dtypes.clear();
        if (!r.has[fr_output_dtypes]) scratch_op_.output_dtypes.clear();
        e.op = interner_.op(scratch_op_);
        if (!r.has[fr_state])
            e.state_text = interner_.state({});
        else
            e.state_text = cached_state(r);
        e.time_discovered_started_ns = r.has[fr_time_discovered_started_ns] ? r.i[fr_time_discovered_started_ns] : 0;
        e.time_discovered_completed_ns =
            r.has[fr_time_discovered_completed_ns] ? r.i[fr_time_discovered_completed_ns] : 0;
        e.retired = r.has[fr_retired] && r.flag[fr_retired];
        e.is_p2p = r.has[fr_is_p2p] && r.flag[fr_is_p2p];
        out.push_back(e);
        return values;
    }

    // --- an entry as torch writes it, read in one pass over its bytes ---
    //
    // Its keys fetched from the memo, integers, flags and floats in place, texts, frames and (name, desc) fetched,
    // (name, desc) otherwise two fetched texts and TUPLE2, sizes and dtypes as lists written here: read without
    // touching the reader's state (memo, counts, position), then taken at once. Anything else (a value stored in the
    // memo, a text or frame written here, a key no field has, None for a list, an integer fetched from the memo)
    // and it reads nothing: entry() reads the entry, and its result or its giving up stands. The op is looked up
    // by the bytes of its name's slot and its four lists (the same bytes, the same op), and decoded only when new.

    // A BINGET / LONG_BINGET at q of a slot that exists, with no store after it: the slot and where it ends.
    bool fetch_at(const unsigned char*& q, std::uint32_t& index) const {
        const std::ptrdiff_t left = end_ - q;
        const unsigned char* after;
        if (left >= 2 && *q == 'h') {
            index = q[1];
            after = q + 2;
        } else if (left >= 5 && *q == 'j') {
            index = static_cast<std::uint32_t>(q[1]) | (static_cast<std::uint32_t>(q[2]) << 8) |
                    (static_cast<std::uint32_t>(q[3]) << 16) | (static_cast<std::uint32_t>(q[4]) << 24);
            after = q + 5;
        } else
            return false;
        if (index >= memo_.size() || store_at(after)) return false;
        q = after;
        return true;
    }
    // An integer written in place (BININT1, BININT2, BININT, LONG1 of up to 8 bytes), or None (`present` false if
    // none_ok), with no store after it.
    // Inlined: the quick reader calls it for most of an entry's fields, and the call cost as much as the read.
    [[gnu::always_inline]] bool int_at(const unsigned char*& q, std::int64_t& v, bool& present, bool none_ok) const {
        const std::ptrdiff_t left = end_ - q;
        std::ptrdiff_t n = 0;
        present = true;
        if (left >= 2 && *q == 'K') {
            v = q[1];
            n = 2;
        } else if (left >= 3 && *q == 'M') {
            v = q[1] | (q[2] << 8);
            n = 3;
        } else if (left >= 5 && *q == 'J') {
            v = static_cast<std::int32_t>(static_cast<std::uint32_t>(q[1]) | (static_cast<std::uint32_t>(q[2]) << 8) |
                                          (static_cast<std::uint32_t>(q[3]) << 16) |
                                          (static_cast<std::uint32_t>(q[4]) << 24));
            n = 5;
        } else if (left >= 10 && *q == 0x8a && q[1] == 8) {  // LONG1 of 8 bytes (times): little-endian
            std::uint64_t u = 0;
            for (int k = 9; k >= 2; --k) u = (u << 8) | q[k];
            v = static_cast<std::int64_t>(u);
            n = 10;
        } else if (left >= 2 && *q == 0x8a && q[1] <= 8 && left >= 2 + q[1]) {  // LONG1 of fewer
            const int bytes = q[1];
            std::uint64_t u = 0;
            for (int k = bytes + 1; k >= 2; --k) u = (u << 8) | q[k];
            if (bytes > 0 && bytes < 8 && (q[bytes + 1] & 0x80)) u |= ~std::uint64_t{0} << (8 * bytes);
            v = static_cast<std::int64_t>(u);
            n = 2 + bytes;
        } else if (none_ok && left >= 1 && *q == 'N') {
            present = false;
            n = 1;
        } else
            return false;
        if (store_at(q + n)) return false;
        q += n;
        return true;
    }
    // A list's MARK ... APPENDS batches from q (after its EMPTY_LIST), each item read by item(q, values); ends
    // after the last APPENDS with no store after it.
    template <class Item>
    bool list_at(const unsigned char*& q, std::uint64_t& values, Item&& item) const {
        while (q != end_ && *q == '(') {
            ++q;
            for (;;) {
                if (q == end_) return false;
                if (*q == 'e') break;
                if (!item(q, values)) return false;
            }
            ++q;
        }
        return !store_at(q);
    }

    struct QuickRead : Read {
        const unsigned char* list_begin[4] = {};  // input_sizes, output_sizes, input_dtypes, output_dtypes
        std::uint32_t list_size[4];               // read only where list_begin is set
        std::uint32_t name_slot = no_slot;
    };

    // long: one case per Flight Recorder entry field, as entry_field reads them
    bool entry_quick(std::vector<FrEntry>& out, std::uint64_t& values_out) {
        QuickRead r;
        const unsigned char* q = p_;
        std::uint64_t values = 1;  // the entry's dict
        if (q == end_ || *q != '(') return false;
        while (q != end_ && *q == '(') {
            ++q;
            for (;;) {
                if (q == end_) return false;
                if (*q == 'u') {
                    ++q;
                    break;
                }
                if (end_ - q < 16) return false;  // the last bytes: entry() reads them, with its checks
                int field = -2;
                if (*q == 'h' && !is_store(q[2])) {  // most keys: a slot of the first 256, its field looked up
                    const Near& key = near_[q[1]];
                    field = key.field;
                    values += key.values;
                    q += 2;
                } else {
                    std::uint32_t k = 0;
                    if (!fetch_at(q, k)) return false;
                    Value& key = memo_[k];
                    if (key.kind != Kind::string) return false;
                    if (key.field == -2) key.field = static_cast<std::int8_t>(fr_field_of(key.text));
                    field = key.field;
                    values += key.values;
                }
                if (field < 0) return false;  // not a text, or a key no field has
                const auto f = static_cast<FrField>(field);
                switch (f) {
                    case fr_input_sizes:
                    case fr_output_sizes:
                    case fr_input_dtypes:
                    case fr_output_dtypes: {
                        if (q == end_ || *q != ']') return false;  // None included: entry() reads it
                        const unsigned char* begin = q++;
                        ++values;
                        const bool ok =
                            f == fr_input_sizes || f == fr_output_sizes
                                ? list_at(q, values,
                                          [&](const unsigned char*& at, std::uint64_t& n) {
                                              if (*at != ']') return false;
                                              ++at;
                                              ++n;
                                              return list_at(at, n, [&](const unsigned char*& d, std::uint64_t& m) {
                                                  std::int64_t dim = 0;
                                                  bool present = false;
                                                  if (!int_at(d, dim, present, false)) return false;
                                                  ++m;
                                                  return true;
                                              });
                                          })
                                : list_at(q, values, [&](const unsigned char*& at, std::uint64_t& n) {
                                      std::uint32_t s = 0;
                                      if (!fetch_at(at, s) || memo_[s].kind != Kind::string) return false;
                                      n += memo_[s].values;
                                      return true;
                                  });
                        if (!ok) return false;
                        const int which = f == fr_input_sizes    ? 0
                                          : f == fr_output_sizes ? 1
                                          : f == fr_input_dtypes ? 2
                                                                 : 3;
                        r.list_begin[which] = begin;
                        r.list_size[which] = static_cast<std::uint32_t>(q - begin);
                        r.has[f] = true;
                        break;
                    }
                    case fr_frames:
                        if (q != end_ && *q == 'N' && !store_at(q + 1)) {
                            ++q;
                            ++values;
                            break;
                        }
                        if (q == end_ || *q != ']') return false;
                        ++q;
                        ++values;
                        while (q != end_ && *q == '(') {
                            ++q;
                            for (;;) {
                                if (end_ - q < 3) return false;
                                if (*q == 'h') {  // a run of fetched frames: what follows each is the next or 'e'
                                    const Near& frame = near_[q[1]];
                                    if (frame.kind != Kind::frame) return false;
                                    values += frame.values;
                                    q += 2;
                                    continue;
                                }
                                if (*q == 'e') break;
                                std::uint32_t s = 0;
                                if (!fetch_at(q, s) || memo_[s].kind != Kind::frame) return false;
                                values += memo_[s].values;
                            }
                            ++q;
                        }
                        if (store_at(q)) return false;
                        break;
                    case fr_process_group: {
                        if (q != end_ && *q == 'N' && !store_at(q + 1)) {
                            ++q;
                            ++values;
                            r.has[f] = false;
                            break;
                        }
                        std::uint32_t a = 0;
                        if (!fetch_at(q, a)) return false;
                        const Value& first = memo_[a];
                        if (first.kind == Kind::pair) {
                            values += first.values;
                            r.pg_name = first.text;
                            r.pg_desc = first.text2;
                            r.pg_slot = a;
                            r.pg_strings = {no_slot, no_slot};
                        } else {
                            std::uint32_t b = 0;
                            if (first.kind != Kind::string || !fetch_at(q, b) || memo_[b].kind != Kind::string ||
                                q == end_ || *q != 0x86 || store_at(q + 1))
                                return false;
                            ++q;
                            values += 1 + first.values + memo_[b].values;
                            r.pg_name = first.text;
                            r.pg_desc = memo_[b].text;
                            r.pg_slot = no_slot;
                            r.pg_strings = {a, b};
                        }
                        r.has[f] = true;
                        break;
                    }
                    case fr_profiling_name:
                    case fr_state:
                    case fr_thread_id:
                    case fr_thread_name: {
                        if (q != end_ && *q == 'N' && !store_at(q + 1)) {
                            ++q;
                            ++values;
                            r.has[f] = false;
                            break;
                        }
                        std::uint32_t s = 0;
                        if (*q == 'h' && near_[q[1]].kind == Kind::string && !is_store(q[2])) {
                            s = q[1];
                            q += 2;
                        } else if (!fetch_at(q, s) || memo_[s].kind != Kind::string)
                            return false;
                        values += memo_[s].values;
                        if (f == fr_profiling_name) {
                            r.profiling_name = memo_[s].text;
                            r.name_slot = s;
                        } else if (f == fr_state) {
                            r.state = memo_[s].text;
                            r.state_slot = s;
                        }
                        r.has[f] = true;
                        break;
                    }
                    case fr_retired:
                    case fr_is_p2p:
                        if (q == end_ || (*q != 0x88 && *q != 0x89 && *q != 'N') || store_at(q + 1)) return false;
                        r.has[f] = *q != 'N';
                        r.flag[f] = *q == 0x88;
                        ++q;
                        ++values;
                        break;
                    case fr_duration_ms:
                        if (end_ - q >= 9 && *q == 'G' && !store_at(q + 9))
                            q += 9;  // any double: a number, or None (NaN, infinity) that is as if absent
                        else if (q != end_ && *q == 'N' && !store_at(q + 1))
                            ++q;
                        else
                            return false;
                        ++values;
                        break;
                    default: {  // the integers
                        bool present = false;
                        if (!int_at(q, r.i[f], present, true)) return false;
                        r.has[f] = present;
                        ++values;
                        break;
                    }
                }
            }
        }
        if (!r.has[fr_process_group] || !r.has[fr_collective_seq_id] || !r.has[fr_profiling_name]) return false;
        if (store_at(q)) return false;
        // Taken: the bytes read, the values counted (entries() counted the dict).
        p_ = q;
        count(values - 1);
        values_out = values;
        FrEntry e;
        e.record_id = r.has[fr_record_id] ? r.i[fr_record_id] : -1;
        e.group = r.pg_slot != no_slot ? cached_group(r) : group_of_strings(r);
        e.collective_seq_id = r.i[fr_collective_seq_id];
        e.time_created_ns = r.has[fr_time_created_ns] ? r.i[fr_time_created_ns] : 0;
        e.op = op_of_bytes(r);
        e.state_text = r.has[fr_state] ? cached_state(r) : interner_.state({});
        e.time_discovered_started_ns = r.has[fr_time_discovered_started_ns] ? r.i[fr_time_discovered_started_ns] : 0;
        e.time_discovered_completed_ns =
            r.has[fr_time_discovered_completed_ns] ? r.i[fr_time_discovered_completed_ns] : 0;
        e.retired = r.has[fr_retired] && r.flag[fr_retired];
        e.is_p2p = r.has[fr_is_p2p] && r.flag[fr_is_p2p];
        out.push_back(e);
        return true;
    }

    // The op of an entry read quickly: by its bytes (the name's slot, each list's presence and bytes) among the ops
    // seen last, then among all of the dump's, decoded from the bytes when new.
    const FrOp* op_of_bytes(const QuickRead& r) {
        // The op of the entry before with this name first: a dump's entries repeat a few ops, rarely two of one
        // name. Compared with the entry's bytes where they lie, the key is written only when it is new.
        RecentOp* const last = r.name_slot < last_op_by_name_.size() ? &last_op_by_name_[r.name_slot] : nullptr;
        if (last && last->op && same_op_bytes(last->key, r)) return last->op;
        for (auto& [key, op] : recent_ops_)
            if (op && same_op_bytes(key, r)) {
                if (last) *last = {key, op};
                return op;
            }
        op_key_.clear();
        const auto put = [&](std::uint32_t v) { op_key_.append(reinterpret_cast<const char*>(&v), sizeof v); };
        put(r.name_slot);
        for (int k = 0; k < 4; ++k) {
            put(r.list_begin[k] ? r.list_size[k] : no_slot);
            if (r.list_begin[k]) op_key_.append(reinterpret_cast<const char*>(r.list_begin[k]), r.list_size[k]);
        }
        const FrOp* op = nullptr;
        if (const auto it = ops_by_bytes_.find(op_key_); it != ops_by_bytes_.end())
            op = it->second;
        else {
            // New bytes: decoded by the general readers from where they were (read before, so they read again the
            // same), the reader's position and count put back after.
            const unsigned char* const at = p_;
            const std::uint64_t total = total_;
            total_ = 0;  // counted already
            std::vector<Shape>* const shapes_out[2] = {&scratch_op_.input_sizes, &scratch_op_.output_sizes};
            std::vector<std::string>* const dtypes_out[2] = {&scratch_op_.input_dtypes, &scratch_op_.output_dtypes};
            for (int k = 0; k < 4; ++k) {
                if (!r.list_begin[k]) {
                    if (k < 2)
                        shapes_out[k]->clear();
                    else
                        dtypes_out[k - 2]->clear();
                    continue;
                }
                p_ = r.list_begin[k];
                if (k < 2)
                    shapes(*shapes_out[k]);
                else
                    dtypes(*dtypes_out[k - 2]);
            }
            p_ = at;
            total_ = total;
            scratch_op_.profiling_name.assign(r.profiling_name);
            op = interner_.op(scratch_op_);
            ops_by_bytes_.emplace(op_key_, op);
        }
        recent_ops_[recent_next_] = {op_key_, op};
        recent_next_ = (recent_next_ + 1) % recent_ops_.size();
        if (last) *last = {op_key_, op};
        return op;
    }
    // Whether an op's key (op_of_bytes: the name's slot, then each list's size or no_slot and its bytes) is what the
    // entry read.
    static bool same_op_bytes(const std::string& key, const QuickRead& r) {
        const char* k = key.data();
        const char* const end = k + key.size();
        const auto same = [&](std::uint32_t v) {
            std::uint32_t x = 0;
            if (end - k < static_cast<std::ptrdiff_t>(sizeof x)) return false;
            std::memcpy(&x, k, sizeof x);
            k += sizeof x;
            return x == v;
        };
        if (!same(r.name_slot)) return false;
        for (int i = 0; i < 4; ++i) {
            if (!same(r.list_begin[i] ? r.list_size[i] : no_slot)) return false;
            if (!r.list_begin[i]) continue;
            if (end - k < static_cast<std::ptrdiff_t>(r.list_size[i]) ||
                std::memcmp(k, r.list_begin[i], r.list_size[i]) != 0)
                return false;
            k += r.list_size[i];
        }
        return k == end;
    }
    void forget_ops() {
        ops_by_bytes_.clear();
        for (auto& [key, op] : recent_ops_) key.clear(), op = nullptr;
        for (auto& [key, op] : last_op_by_name_) key.clear(), op = nullptr;
    }

    // long: two switches over FrField (the quick readers, then the generic scalar), one case per Flight Recorder entry
    // field
    std::uint64_t entry_field(FrField f, Read& r) {
        switch (f) {
            case fr_input_sizes:
            case fr_output_sizes:
                if (peek() == ']') {
                    r.has[f] = true;
                    return shapes(f == fr_input_sizes ? scratch_op_.input_sizes : scratch_op_.output_sizes);
                }
                return absent(f, r);
            case fr_input_dtypes:
            case fr_output_dtypes:
                if (peek() == ']') {
                    r.has[f] = true;
                    return dtypes(f == fr_input_dtypes ? scratch_op_.input_dtypes : scratch_op_.output_dtypes);
                }
                return absent(f, r);
            case fr_frames:
                if (peek() == ']') return frames();
                return absent(f, r);
            case fr_process_group: return process_group(r);
            case fr_profiling_name:
            case fr_state:
            case fr_thread_id:
            case fr_thread_name:
                if (const auto index = quick_string(); index != no_slot) {
                    const Value& v = memo_[index];
                    if (f == fr_profiling_name)
                        r.profiling_name = v.text;
                    else if (f == fr_state) {
                        r.state = v.text;
                        r.state_slot = index;
                    }
                    r.has[f] = true;
                    return v.values;
                }
                break;
            case fr_retired:
            case fr_is_p2p:
                if (end_ - p_ >= 1 && (*p_ == 0x88 || *p_ == 0x89) && !store_at(p_ + 1)) {
                    r.flag[f] = *p_++ == 0x88;
                    count(1);
                    r.has[f] = true;
                    return 1;
                }
                break;
            case fr_duration_ms:
                if (end_ - p_ >= 9 && *p_ == 'G' && !store_at(p_ + 9)) {
                    p_ += 9;  // any double: a number, or None (NaN, infinity) that is as if absent
                    count(1);
                    return 1;
                }
                break;
            default:
                if (quick_int(r.i[f])) {
                    r.has[f] = true;
                    return 1;
                }
                break;
        }
        const Value v = scalar();
        if (v.kind == Kind::null) {
            r.has[f] = false;
            return v.values;
        }
        switch (f) {
            case fr_profiling_name:
            case fr_state:
                if (v.kind != Kind::string) give_up();  // an integer's digits: left to the generic reader
                if (f == fr_profiling_name)
                    r.profiling_name = v.text;
                else {
                    r.state = v.text;
                    r.state_slot = v.slot;
                }
                break;
            case fr_thread_id:
            case fr_thread_name:
                if (v.kind != Kind::string && v.kind != Kind::integer) give_up();
                break;
            case fr_retired:
            case fr_is_p2p:
                if (v.kind != Kind::boolean) give_up();
                r.flag[f] = v.flag;
                break;
            case fr_duration_ms:
                if (v.kind != Kind::integer && v.kind != Kind::real) give_up();
                break;
            default:  // the integers
                if (v.kind != Kind::integer) give_up();
                r.i[f] = v.i;
                break;
        }
        r.has[f] = true;
        return v.values;
    }
    // Quick ways for what most fields are (scalar() is the way for anything else): a value with no store after it.
    bool store_at(const unsigned char* at) const { return at < end_ && is_store(*at); }
    static bool is_store(unsigned char op) { return op == 'q' || op == 'r' || op == 0x94; }
    // BINGET of a string: its slot, fetched and counted; no_slot (nothing read) otherwise.
    std::uint32_t quick_string() {
        if (end_ - p_ < 2 || *p_ != 'h' || p_[1] >= memo_.size() || memo_[p_[1]].kind != Kind::string ||
            store_at(p_ + 2))
            return no_slot;
        const std::uint32_t index = p_[1];
        p_ += 2;
        count(memo_[index].values);
        return index;
    }
    // An integer written in place (int_at's forms, None not among them); false (nothing read) otherwise.
    bool quick_int(std::int64_t& v) {
        const unsigned char* q = p_;
        bool present = true;
        if (!int_at(q, v, present, false)) return false;
        p_ = q;
        count(1);
        return true;
    }

    // A field's value that is not the list it should be: None (absent), or left to the generic reader.
    std::uint64_t absent(FrField f, Read& r) {
        const Value v = scalar();
        if (v.kind != Kind::null) give_up();
        r.has[f] = false;
        return v.values;
    }

    // (name, desc): two strings and TUPLE2, or the pair fetched from the memo. Its group is interned when the
    // entry is done (a later process_group of the same entry replaces it), once per memo slot.
    std::uint64_t process_group(Read& r) {
        Value pair = scalar();
        if (pair.kind == Kind::null) {
            r.has[fr_process_group] = false;
            return pair.values;
        }
        if (pair.kind != Kind::pair) {
            const Value desc = scalar();
            if (pair.kind != Kind::string || desc.kind != Kind::string || next() != 0x86) give_up();  // TUPLE2
            count(1);
            r.pg_strings = {pair.slot, desc.slot};
            pair.kind = Kind::pair;
            pair.values = 1 + pair.values + desc.values;
            pair.text2 = desc.text;
            pair.slot = no_slot;
            pair.field = -2;
            pair.state = nullptr;
            stores(pair);
        } else
            r.pg_strings = {no_slot, no_slot};
        r.pg_name = pair.text;
        r.pg_desc = pair.text2;
        r.pg_slot = pair.slot;
        r.has[fr_process_group] = true;
        return pair.values;
    }
    // The state's text interned, once per memo slot that holds it.
    const std::string* cached_state(const Read& r) {
        if (r.state_slot == no_slot) return interner_.state(r.state);
        Value& s = memo_[r.state_slot];
        if (s.kind != Kind::string || s.text.data() != r.state.data() || s.text.size() != r.state.size())
            return interner_.state(r.state);  // the slot was stored over since
        if (!s.state) s.state = interner_.state(r.state);
        return s.state;
    }
    // (name, desc) written as TUPLE2 of two stored strings (torch stores no tuple): interned once per pair of
    // slots (a slot stored over since holds another text: the texts are compared too).
    const FrGroupName* group_of_strings(const Read& r) {
        if (r.pg_strings.first == no_slot || r.pg_strings.second == no_slot)
            return interner_.group(r.pg_name, r.pg_desc);
        const std::uint64_t key = (std::uint64_t{r.pg_strings.first} << 32) | r.pg_strings.second;
        for (const auto& [k, g] : groups_by_slots_)
            if (k == key && g->name == r.pg_name && g->desc == r.pg_desc) return g;
        const FrGroupName* g = interner_.group(r.pg_name, r.pg_desc);
        if (groups_by_slots_.size() < 64) groups_by_slots_.emplace_back(key, g);
        return g;
    }
    const FrGroupName* cached_group(const Read& r) {
        Value& s = memo_[r.pg_slot];
        if (s.kind != Kind::pair || s.text.data() != r.pg_name.data() || s.text.size() != r.pg_name.size() ||
            s.text2.data() != r.pg_desc.data() || s.text2.size() != r.pg_desc.size())
            return interner_.group(r.pg_name, r.pg_desc);  // the slot was stored over since
        if (!s.group) s.group = interner_.group(r.pg_name, r.pg_desc);
        return s.group;
    }

    std::uint64_t shapes(std::vector<Shape>& out) {
        std::size_t n = 0;
        const std::uint64_t values = container(']', 'e', [&] {
            if (n == out.size()) out.emplace_back();
            Shape& dims = out[n++];
            dims.clear();
            const std::uint64_t v = container(']', 'e', [&] {
                const Value d = scalar();
                if (d.kind != Kind::integer) give_up();
                dims.push_back(d.i);
                return d.values;
            });
            no_store();
            return v;
        });
        no_store();
        out.resize(n);
        return values;
    }

    std::uint64_t dtypes(std::vector<std::string>& out) {
        std::size_t n = 0;
        const std::uint64_t values = container(']', 'e', [&] {
            const Value d = scalar();
            if (d.kind != Kind::string) give_up();
            if (n == out.size()) out.emplace_back();
            out[n++].assign(d.text);
            return d.values;
        });
        no_store();
        out.resize(n);
        return values;
    }

    // Frames are checked, not kept: a frame written here is checked once (its name and filename texts, its line
    // an integer) and may be stored; a fetched one was checked when written.
    std::uint64_t frames() {
        const std::uint64_t values = container(']', 'e', [&]() -> std::uint64_t {
            if (peek() == 'h') {
                // A run of fetched frames (most of a dump's bytes): each a slot read, counted once for the run.
                std::uint64_t run = 0;
                const Value* memo = memo_.data();
                const std::size_t size = memo_.size();
                while (end_ - p_ >= 3 && p_[0] == 'h' && p_[1] < size && memo[p_[1]].kind == Kind::frame &&
                       p_[2] != 'q' && p_[2] != 'r' && p_[2] != 0x94) {
                    run += memo[p_[1]].values;
                    p_ += 2;
                }
                if (run) {
                    count(run);
                    return run;
                }
            }
            if (peek() == 'h' || peek() == 'j') {
                const unsigned char op = next();
                const Value& fetched = fetch(take(op == 'h' ? 1 : 4));
                if (fetched.kind != Kind::frame) give_up();
                const std::uint64_t v = fetched.values;
                if (p_ != end_ && (*p_ == 'q' || *p_ == 'r' || *p_ == 0x94)) {
                    Value copy = fetched;
                    stores(copy);
                }
                return v;
            }
            Value frame;
            frame.kind = Kind::frame;
            frame.values = container('}', 'u', [&] {
                const Value k = text_key();
                const Value v = scalar();
                if (v.kind == Kind::container) give_up();
                if (v.kind != Kind::null) {
                    if (k.text == "name" || k.text == "filename") {
                        if (v.kind != Kind::string && v.kind != Kind::integer) give_up();
                    } else if (k.text == "line" && v.kind != Kind::integer)
                        give_up();
                }
                return k.values + v.values;
            });
            stores(frame);
            return frame.values;
        });
        no_store();
        return values;
    }

    const unsigned char* p_;
    const unsigned char* end_;
    FrShared* shared_;
    FrInterner& interner_;
    std::uint64_t total_ = 0;
    std::uint64_t max_values_ = PickleLimits{}.max_values;
    std::vector<Value> memo_;
    std::vector<std::pair<std::uint64_t, const FrGroupName*>> groups_by_slots_;  // by (name, desc) slots
    FrOp scratch_op_;
    // The first 256 memo slots (what BINGET fetches) as the quick path reads them: a text's entry field (-1: a
    // key no field has, -2: not a text), the kind and the count of values.
    struct Near {
        std::int8_t field = -2;
        Kind kind = Kind::container;
        std::uint64_t values = 0;
    };
    std::array<Near, 256> near_{};
    // The ops of entries read quickly, by their bytes (op_of_bytes): the last few, and every one of the dump.
    std::string op_key_;
    struct RecentOp {
        std::string key;
        const FrOp* op = nullptr;
    };
    std::array<RecentOp, 8> recent_ops_;
    std::array<RecentOp, 256> last_op_by_name_;  // by the name's memo slot, the first 256
    std::size_t recent_next_ = 0;
    std::unordered_map<std::string, const FrOp*> ops_by_bytes_;
};
}  // namespace

bool read_fr_pickle_fast(std::string_view bytes, FrShared* shared, FrInterner& interner, FrDump& out) {
    try {
        FastReader(bytes, shared, interner).dump(out);
        return true;
    } catch (const NotTorchShape&) {
        return false;
    }
}

}  // namespace meshscope::records::detail
