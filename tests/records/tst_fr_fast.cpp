// The two readers of a Flight Recorder pickle against each other: the decoder of the shape torch writes (records
// straight from the opcodes) and the generic reader (a tree of the pickle's values, then its records). The generic
// reader is the reference: on every committed dump written by real torch, on a dump with shared stack frames
// written by hand the way torch's pickler writes them, and on corrupted copies of both (cut short, a byte
// changed), read_fr_dump gives exactly the generic reader's records or error, and the fast decoder, where it
// takes the bytes, the same records.
#include <QDir>
#include <QTest>

#include <cstdint>
#include <cstring>
#include <string>

#include "meshscope/records/flight_recorder.h"

#include "records_fixtures.h"

using namespace meshscope::records;
using meshscope::Expected;

namespace {
// Everything a dump holds, as text: the error, or the header, every entry with its group, op and state, and
// the pool's groups and ops in their order.
QString describe(const FrDump* d) {
    std::string out = d->file + " " + std::to_string(d->rank) + " " + d->format + " v" + d->version + " c" +
                      d->comm_lib_version + "\n";
    for (const auto& [key, c] : d->pg_config) {
        out += "config " + key + " " + c.name + " " + c.desc + " [";
        for (const auto r : *c.ranks) out += std::to_string(r) + ",";
        out += "]\n";
    }
    for (const auto& [key, s] : d->pg_status)
        out += "status " + key + " " + std::to_string(s.last_enqueued) + " " + std::to_string(s.last_started) + " " +
               std::to_string(s.last_completed) + "\n";
    const auto shapes = [](const std::vector<Shape>& list) {
        std::string s = "[";
        for (const auto& shape : list) {
            s += "[";
            for (const auto v : shape) s += std::to_string(v) + ",";
            s += "]";
        }
        return s + "]";
    };
    const auto names = [](const std::vector<std::string>& list) {
        std::string s = "[";
        for (const auto& n : list) s += n + ",";
        return s + "]";
    };
    for (const FrGroupName* g : d->groups())
        out += "group " + std::to_string(g->index) + " " + g->name + "/" + g->desc + "\n";
    for (const FrOp* o : d->ops())
        out += "op " + std::to_string(o->index) + " " + o->profiling_name + " " + shapes(o->input_sizes) + " " +
               shapes(o->output_sizes) + " " + names(o->input_dtypes) + " " + names(o->output_dtypes) + "\n";
    for (const auto& e : d->entries)
        out += "entry " + std::to_string(e.record_id) + " g" + std::to_string(e.group->index) + " #" +
               std::to_string(e.collective_seq_id) + " o" + std::to_string(e.op->index) + " " + e.state() + " " +
               std::to_string(e.time_created_ns) + " " + std::to_string(e.time_discovered_started_ns) + " " +
               std::to_string(e.time_discovered_completed_ns) + (e.retired ? " retired" : "") +
               (e.is_p2p ? " p2p" : "") + "\n";
    return QString::fromStdString(out);
}
QString describe(const Expected<FrDump>& d) {
    return d ? describe(&*d) : "error: " + QString::fromStdString(d.error().message());
}

// A pickle written as torch's C++ pickler writes a dump (protocol 2, strings stored once and fetched after,
// containers as EMPTY_* MARK ... SETITEMS / APPENDS, a shared frame stored once and fetched after).
class Pickle {
public:
    std::string out = std::string("\x80\x02", 2);
    Pickle& str(const std::string& s) {
        for (std::size_t i = 0; i < strings_.size(); ++i)
            if (strings_[i].first == s) return get(strings_[i].second);
        out += 'X';
        le(s.size(), 4);
        out += s;
        strings_.emplace_back(s, next_);
        return put();
    }
    // BINPUT / BINGET for the first 256 slots, LONG_BINPUT / LONG_BINGET past them, as torch's pickler writes them.
    Pickle& put() {
        if (next_ < 256) {
            out += 'q';
            out += static_cast<char>(next_++);
        } else {
            out += 'r';
            le(next_++, 4);
        }
        return *this;
    }
    Pickle& get(std::uint32_t index) {
        if (index < 256) {
            out += 'h';
            out += static_cast<char>(index);
        } else {
            out += 'j';
            le(index, 4);
        }
        return *this;
    }
    // An opcode and its n-byte little-endian argument as written ("J" -5 in 4 bytes, LONG1's length then bytes).
    Pickle& op(char code, std::uint64_t v, int n) {
        out += code;
        le(v, n);
        return *this;
    }
    Pickle& arg(std::uint64_t v, int n) {
        le(v, n);
        return *this;
    }
    [[nodiscard]] std::uint32_t slot_of(const std::string& s) const {
        for (const auto& [text, slot] : strings_)
            if (text == s) return slot;
        return 0;
    }
    Pickle& raw(std::string_view ops) {
        out += ops;
        return *this;
    }
    Pickle& integer(std::int64_t v) {
        if (v >= 0 && v < 256) {
            out += 'K';
            le(static_cast<std::uint64_t>(v), 1);
        } else {
            out += "\x8a\x08";
            le(static_cast<std::uint64_t>(v), 8);
        }
        return *this;
    }
    [[nodiscard]] std::uint32_t last_memo() const { return next_ - 1; }

private:
    void le(std::uint64_t v, int n) {
        for (int k = 0; k < n; ++k) out += static_cast<char>((v >> (8 * k)) & 0xff);
    }
    std::uint32_t next_ = 0;
    std::vector<std::pair<std::string, std::uint32_t>> strings_;
};

// Two entries with stack frames: the first writes its two frames and stores them, the second fetches them.
std::string dump_with_frames() {
    Pickle p;
    p.raw("}(").str("version").str("2.10").str("pg_config").raw("}(").str("0").raw("}(");
    p.str("name").str("0").str("desc").str("default_pg").str("ranks").str("[0, 1, 2, 3]").raw("uu");
    p.str("comm_lib_version").str("2.27.5").str("pg_status").raw("}(").str("0").raw("}(");
    p.str("last_enqueued_collective").integer(7).str("last_started_collective").str("6");
    p.str("last_completed_collective").raw("N").raw("uu");
    p.str("entries").raw("](");
    std::uint32_t frame_a = 0, frame_b = 0;
    for (int e = 0; e < 2; ++e) {
        p.raw("}(").str("record_id").integer(40 + e).str("pg_id").integer(0);
        p.str("process_group").str("0").str("default_pg").raw("\x86");
        p.str("thread_name").str("pt_main_thread").str("thread_id").integer(140403720768384);
        p.str("collective_seq_id").integer(12 + e).str("p2p_seq_id").integer(0).str("op_id").integer(12 + e);
        p.str("profiling_name").str(e ? "nccl:all_gather" : "nccl:all_reduce");
        p.str("time_created_ns").integer(1796308269507183434 + e);
        p.str("input_sizes").raw("](](").integer(2).integer(e + 3).raw("ee");
        p.str("input_dtypes").raw("](").str("BFloat16").raw("e");
        p.str("output_sizes").raw("](](").integer(4).raw("ee");
        p.str("output_dtypes").raw("](").str("BFloat16").raw("e");
        p.str("state").str(e ? "started" : "completed");
        p.str("time_discovered_started_ns").integer(1796308269507283434 + e);
        p.str("time_discovered_completed_ns");
        if (e)
            p.raw("N");
        else
            p.integer(1796308269508183434);
        p.str("retired").raw(e ? "\x89" : "\x88").str("timeout_ms").integer(200).str("is_p2p").raw("\x89");
        p.str("duration_ms").raw(std::string("G\x3f\xec\x00\x00\x00\x00\x00\x00", 9));
        p.str("frames").raw("](");
        if (e == 0) {
            p.raw("}(").str("name").str("all_reduce").str("filename").str("/torch/distributed/c10d.py");
            p.str("line").integer(2901).raw("u").put();
            frame_a = p.last_memo();
            p.raw("}(").str("name").str("train_step").str("filename").str("/workspace/train.py");
            p.str("line").integer(77).raw("u").put();
            frame_b = p.last_memo();
        } else
            p.get(frame_a).get(frame_b);
        p.raw("e").raw("u");
    }
    p.raw("e").raw("u.");
    return p.out;
}

// Entries whose keys are fetched from the memo (after the first, which writes them): each a case of what the fast
// decoder's one pass over an entry must read as the generic reader does, or leave to its general path. Integers of
// every width (BININT negative, BININT2, LONG1 of 3 bytes negative and of none), None where a value may be, a key
// twice (the last counts), a group stored as a pair and fetched, (name, desc) as two fetched texts and TUPLE2, ops
// seen before (found by their bytes), a dtype's memo slot stored over (the same bytes then name another op), keys
// past the first 256 slots (LONG_BINGET), frames fetched, an empty list of frames and None for them, a key no
// field has.
std::string dump_quick_variants() {
    Pickle p;
    p.raw("}(").str("version").str("2.10");
    // 240 texts stored first: the entries' later keys land past slot 256.
    for (int i = 0; i < 120; ++i) p.str("pad" + std::to_string(i)).str("v" + std::to_string(i));
    p.str("entries").raw("](");
    std::uint32_t pair = 0, frame = 0, dtype = 0;
    for (int e = 0; e < 7; ++e) {
        p.raw("}(").str("record_id");
        if (e == 1)
            p.op('J', 0xfffffffbu, 4);  // -5
        else
            p.integer(40 + e);
        p.str("pg_id");
        if (e == 2)
            p.op('M', 300, 2);
        else
            p.integer(0);
        p.str("process_group");
        if (e == 0) {
            p.str("0").str("default_pg").raw("\x86").put();
            pair = p.last_memo();
        } else if (e % 2)
            p.get(pair);
        else
            p.str("0").str("default_pg").raw("\x86");
        p.str("collective_seq_id").integer(e == 3 ? 99 : 12 + e);
        p.str("profiling_name").str(e % 2 ? "nccl:all_gather" : "nccl:all_reduce");
        p.str("time_created_ns");
        if (e == 4)
            p.op('\x8a', 3, 1).arg(0xfffff0, 3);  // LONG1 of 3 bytes: -16
        else if (e == 5)
            p.op('\x8a', 0, 1);  // LONG1 of no bytes: 0
        else
            p.integer(1796308269507183434 + e);
        p.str("input_sizes").raw("](](").integer(2).integer(e % 2 + 3).raw("ee");
        p.str("input_dtypes").raw("](");
        if (e < 4) {
            p.str("BFloat16");
            dtype = p.slot_of("BFloat16");
        } else
            p.get(dtype);
        p.raw("e");
        p.str("output_sizes").raw("](](").integer(4).raw("ee");
        p.str("output_dtypes").raw("](").get(dtype).raw("e");
        p.str("state").str(e == 5 ? "scheduled" : e % 3 ? "started" : "completed");
        p.str("time_discovered_started_ns");
        if (e == 2)
            p.raw("N");
        else
            p.integer(1796308269507283434 + e);
        p.str("time_discovered_completed_ns").raw("N");
        p.str("retired").raw(e == 1 ? "N" : e % 2 ? "\x89" : "\x88");
        p.str("timeout_ms").op('J', 600000, 4).str("is_p2p").raw("\x89");
        p.str("duration_ms");
        if (e == 3)
            p.raw("N");
        else
            p.raw(std::string("G\x3f\xec\x00\x00\x00\x00\x00\x00", 9));
        p.str("thread_name");
        if (e == 3)  // "Float" stored over BFloat16's slot: later entries' dtypes name it
            p.op('X', 5, 4).raw("Float").op(dtype < 256 ? 'q' : 'r', dtype, dtype < 256 ? 1 : 4);
        else
            p.str("pt_main_thread");
        p.str("thread_id").str("140403720768384");
        p.str("frames");
        if (e == 0) {
            p.raw("](}(").str("name").str("train_step").str("filename").str("/workspace/train.py");
            p.str("line").integer(77).raw("u").put();
            frame = p.last_memo();
            p.raw("e");
        } else if (e == 2)
            p.raw("]");
        else if (e == 4)
            p.raw("N");
        else
            p.raw("](").get(frame).get(frame).raw("e");
        if (e == 3) p.str("collective_seq_id").integer(15);  // the last of a key twice counts
        if (e == 6) p.str("extra").integer(1);
        p.raw("u");
    }
    p.raw("e").raw("u.");
    return p.out;
}
}  // namespace

class FrFastTest : public QObject {
    Q_OBJECT

private slots:
    void same_records_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("torch_shape");  // as torch writes it: the fast decoder must take it
        QStringList files;
        for (const char* scenario : {"healthy", "skip", "sizes", "nogroup"})
            for (int rank = 0; rank < 8; ++rank)
                files << fixtures() + "/fr/" + QString(scenario) + "/nccl_trace_rank_" + QString::number(rank);
        QList<QByteArray> bases;
        for (const QString& file : files) {
            const std::string bytes = read_file(file);
            QVERIFY2(!bytes.empty(), qPrintable(file));
            bases << QByteArray::fromStdString(bytes);
            QTest::addRow("%s", qPrintable(QDir(fixtures()).relativeFilePath(file))) << bases.back() << true;
        }
        bases = {bases[3], QByteArray::fromStdString(dump_with_frames()),
                 QByteArray::fromStdString(dump_quick_variants())};
        QTest::addRow("frames shared") << bases[1] << true;
        QTest::addRow("entries read in one pass") << bases[2] << true;
        // Corrupted copies: cut short, and one byte replaced by opcodes and values a reader must not mistake.
        for (int b = 0; b < bases.size(); ++b) {
            const QByteArray& base = bases[b];
            for (int cut = 0; cut < base.size(); cut += 1 + base.size() / 60)
                QTest::addRow("base %d cut at %d", b, cut) << base.left(cut) << false;
            const char replacements[] = {'\0', '\xff', 'N', 'K', 'X', 'h', 'q', 'u', 'e', '(', '}', ']', '.', '0'};
            for (int at = 0; at < base.size(); at += 1 + base.size() / 50)
                for (const char r : replacements) {
                    QByteArray bytes = base;
                    if (bytes[at] == r) continue;
                    bytes[at] = r;
                    QTest::addRow("base %d byte %d = 0x%02x", b, at, static_cast<unsigned char>(r)) << bytes << false;
                }
        }
    }
    void same_records() {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, torch_shape);
        const std::string_view view(bytes.constData(), static_cast<std::size_t>(bytes.size()));
        const QString generic = describe(detail::read_fr_dump_generic(view, "dir/nccl_trace_rank_5"));
        QCOMPARE(describe(read_fr_dump(view, "dir/nccl_trace_rank_5")), generic);
        const auto fast = detail::read_fr_dump_fast(view, "dir/nccl_trace_rank_5");
        if (torch_shape) QVERIFY(fast.has_value());
        if (fast) QCOMPARE(describe(&*fast), generic);
    }

    // Dumps read with one FrShared share the rank lists on both paths.
    void shared_ranks() {
        const std::string bytes = dump_with_frames();
        FrShared shared;
        const auto a = detail::read_fr_dump_fast(bytes, "a_0", &shared);
        const auto b = detail::read_fr_dump_generic(bytes, "b_1", &shared);
        QVERIFY(a.has_value() && b.has_value());
        QCOMPARE(a->pg_config.at("0").ranks.get(), b->pg_config.at("0").ranks.get());
        QCOMPARE(*a->pg_config.at("0").ranks, (std::vector<std::int64_t>{0, 1, 2, 3}));
    }

    // The dump written by hand, read by hand: what the comparison above rests on besides the generic reader.
    void frames_dump() {
        const auto d = read_fr_dump(dump_with_frames(), "nccl_trace_rank_2");
        QVERIFY2(d.has_value(), d ? "" : d.error().message().c_str());
        QCOMPARE(d->entries.size(), std::size_t{2});
        QCOMPARE(d->entries[0].state(), std::string("completed"));
        QCOMPARE(d->entries[1].state(), std::string("started"));
        QCOMPARE(d->entries[1].collective_seq_id, std::int64_t{13});
        QCOMPARE(d->entries[1].time_discovered_completed_ns, std::int64_t{0});
        QCOMPARE(d->entries[0].time_discovered_completed_ns, std::int64_t{1796308269508183434});
        QCOMPARE(d->entries[1].input_sizes(), (std::vector<Shape>{{2, 4}}));
        QCOMPARE(d->entries[0].group, d->entries[1].group);
        QVERIFY(d->entries[0].retired && !d->entries[1].retired);
        QCOMPARE(d->pg_status.at("0").last_started, std::int64_t{6});
        QCOMPARE(d->pg_status.at("0").last_completed, std::int64_t{-1});
    }
};

QTEST_APPLESS_MAIN(FrFastTest)
#include "tst_fr_fast.moc"
