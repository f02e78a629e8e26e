// meshscope.event/1: what parse_events accepts, and the exact text of everything it refuses.
#include <QtTest>

#include "meshscope/monitor/event.h"
#include "monitor_test_support.h"

using namespace meshscope;
using monitor_test::q;

namespace {
const std::string base = R"("job": "j1", "rank": 3, "world_size": 16, "phase": "launch", "status": "started")";
std::string with(const std::string& extra) {
    return "{" + base + (extra.empty() ? "" : ", " + extra) + "}";
}
std::string without(const std::string& key) {
    // The base event without one required field.
    std::string fields[] = {R"("job": "j1")", R"("rank": 3)", R"("world_size": 16)", R"("phase": "launch")",
                            R"("status": "started")"};
    std::string out = "{";
    for (const auto& f : fields) {
        if (f.find("\"" + key + "\"") == 0) continue;
        out += (out.size() > 1 ? ", " : "") + f;
    }
    return out + "}";
}
}  // namespace

class TestEventJson : public QObject {
    Q_OBJECT
private slots:
    void accepts_data();
    void accepts();
    void readsFields();
    void readsModelMesh();
    void readsCreationIndex();
    void readsGroupForms_data();
    void readsGroupForms();
    void refuses_data();
    void refuses();
    void jobNameFrom_data();
    void jobNameFrom();
    void limits();
    void enumNames();
};

void TestEventJson::accepts_data() {
    QTest::addColumn<QString>("body");
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("lastRank");
    QTest::addRow("one object") << q(with("")) << 1 << 3;
    QTest::addRow("pretty-printed object") << q("{\n  " + base + "\n}\n") << 1 << 3;
    QTest::addRow("array") << q("[" + with("") + ", " + with(R"("ts": 1.5)") + "]") << 2 << 3;
    QTest::addRow("ndjson") << q(with("") + "\n" +
                                 R"({"job": "j1", "rank": 4, "world_size": 16, "phase": "ready", "status": "done"})" +
                                 "\n")
                            << 2 << 4;
    QTest::addRow("ndjson with CRLF and blank lines")
        << q(with("") + "\r\n\r\n" +
             R"({"job": "j1", "rank": 5, "world_size": 16, "phase": "exit", "status": "done"})" + "\r\n")
        << 2 << 5;
    QTest::addRow("unknown fields ignored") << q(with(R"("future": {"x": [1, 2]}, "note": "hi")")) << 1 << 3;
    QTest::addRow("null optional fields ignored") << q(with(R"("host": null, "ts": null)")) << 1 << 3;
    QTest::addRow("schema named") << q(with(R"("schema": "meshscope.event/1")")) << 1 << 3;
    QTest::addRow("ts, pid and local_rank at their bounds")
        << q(with(R"("ts": 10000000000, "pid": 2147483647, "local_rank": 1048575)")) << 1 << 3;
    QTest::addRow("unknown field 63 deep")
        << q(with("\"future\": " + std::string(63, '[') + std::string(63, ']'))) << 1 << 3;
    QTest::addRow("every optional field")
        << q(with(R"("ts": 12.25, "host": "node-0", "pid": 4242, "local_rank": 3, "device": "cuda:3",
                     "device_uuid": "GPU-1234", "topology": {"dp": 8, "cp": 2, "ep": 2},
                     "mesh": {"name": "expert", "dim_names": ["edp", "efsdp", "ep", "expert_cp"], "shape": [1, 4, 2, 2]},
                     "groups": {"ep": [1, 3], "efsdp": [3, 7, 11, 15]}, "creation_index": {"ep": 1, "efsdp": 3},
                     "error": {"type": "RuntimeError", "message": "boom"},
                     "plan": {"schema": "meshscope.plan/1", "topology": {"dp": 8, "cp": 2, "ep": 2}})"))
        << 1 << 3;
    QTest::addRow("model mesh in topology")
        << q(with(R"("topology": {"dp": 8, "cp": 2, "ep": 2, "mp_replicate": 2, "mp_shard": 8})")) << 1 << 3;
    // A report stays a report: an impossible model mesh (3 * 5 != 16) is what the monitor must show.
    QTest::addRow("impossible model mesh")
        << q(with(R"("topology": {"dp": 8, "cp": 2, "ep": 2, "mp_replicate": 3, "mp_shard": 5})")) << 1 << 3;
    // world_size 16: group indices below 16.
    QTest::addRow("largest creation index")
        << q(with(R"("groups": {"ep": [1, 3]}, "creation_index": {"ep": 15})")) << 1 << 3;
    QTest::addRow("creation index of some groups only")
        << q(with(R"("groups": {"ep": [1, 3], "cp": [2, 3]}, "creation_index": {"cp": 0})")) << 1 << 3;
    QTest::addRow("largest rank")
        << q(R"({"job": "j", "rank": 1048575, "world_size": 1048576, "phase": "launch", "status": "started"})") << 1
        << 1048575;
}

void TestEventJson::accepts() {
    QFETCH(QString, body);
    QFETCH(int, count);
    QFETCH(int, lastRank);
    const auto events = parse_events(body.toStdString());
    QVERIFY2(events.has_value(), events ? "" : events.error().what());
    QCOMPARE(static_cast<int>(events->size()), count);
    QCOMPARE(events->back().rank, lastRank);
    // Round trip through the stored form.
    for (const Event& e : *events) {
        const auto again = event_from_json(to_json(e));
        QVERIFY(again.has_value());
        QVERIFY(*again == e);
    }
}

void TestEventJson::readsFields() {
    const auto events =
        parse_events(with(R"("ts": 12.25, "host": "node-0", "pid": 4242, "topology": {"dp": 8, "cp": 2, "ep": 2},
        "mesh": {"name": "data", "dim_names": ["dp", "cp"], "shape": [8, 2]}, "groups": {"ep": [3, 1]},
        "error": {"type": "RuntimeError", "message": "boom"})"));
    QVERIFY(events.has_value());
    const Event& e = events->front();
    QCOMPARE(e.job, std::string("j1"));
    QCOMPARE(e.phase, Phase::launch);
    QCOMPARE(e.status, Status::started);
    QCOMPARE(*e.ts, 12.25);
    QCOMPARE(*e.host, std::string("node-0"));
    QCOMPARE(*e.pid, 4242);
    QVERIFY((*e.topology == ReportedTopology{8, 2, 2}));
    QCOMPARE(e.mesh->shape, (std::vector<std::int64_t>{8, 2}));
    QCOMPARE(e.groups.at("ep").members(), (std::vector<std::int64_t>{1, 3}));  // a set: kept in order
    QCOMPARE(e.error->message, std::string("boom"));
    const auto j = to_json(e);
    QCOMPARE(j.at("schema").get<std::string>(), std::string("meshscope.event/1"));
    QVERIFY(!j.contains("device"));
    QVERIFY(!j.at("topology").contains("mp_replicate"));  // not reported, not written
}

void TestEventJson::readsModelMesh() {
    const auto events =
        parse_events(with(R"("topology": {"dp": 8, "cp": 2, "ep": 2, "mp_replicate": 3, "mp_shard": 5})"));
    QVERIFY(events.has_value());
    const auto& t = *events->front().topology;
    QCOMPARE(t.mp_replicate, std::optional<std::int64_t>(3));
    QCOMPARE(t.mp_shard, std::optional<std::int64_t>(5));
    QCOMPARE(t.tuple_string(), std::string("(8, 2, 2)"));  // FSDPTurbo's tuple has no model mesh
    QVERIFY(to_json(events->front()).at("topology") ==
            nlohmann::json::parse(R"({"dp": 8, "cp": 2, "ep": 2, "mp_replicate": 3, "mp_shard": 5})"));
}

// Both wire forms of a group, the members each stands for (worked by hand), and the form to_json writes back:
// {"first", "step", "count"} for evenly spaced groups of more than 16 members, a sorted list otherwise.
void TestEventJson::readsGroupForms_data() {
    QTest::addColumn<QString>("group");
    QTest::addColumn<int>("worldSize");
    QTest::addColumn<QList<qint64>>("members");
    QTest::addColumn<QString>("written");
    QTest::addRow("short list, any order") << "[3, 1]" << 16 << QList<qint64>{1, 3} << "[1,3]";
    QTest::addRow("short spaced group as object")
        << R"({"first": 2, "step": 4, "count": 3})" << 16 << QList<qint64>{2, 6, 10} << "[2,6,10]";
    QTest::addRow("spaced group ending on the last rank")
        << R"({"first": 0, "step": 5, "count": 4})" << 16 << QList<qint64>{0, 5, 10, 15} << "[0,5,10,15]";
    QTest::addRow("one member, any step")
        << R"({"first": 7, "step": 5, "count": 1})" << 16 << QList<qint64>{7} << "[7]";
    QTest::addRow("16 spaced members stay a list")
        << "[0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60]" << 64
        << QList<qint64>{0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60}
        << "[0,4,8,12,16,20,24,28,32,36,40,44,48,52,56,60]";
    QTest::addRow("17 spaced members from a list")
        << "[48, 45, 42, 39, 36, 33, 30, 27, 24, 21, 18, 15, 12, 9, 6, 3, 0]" << 64
        << QList<qint64>{0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48}
        << R"({"count":17,"first":0,"step":3})";
    QTest::addRow("17 members, one gap wider")
        << "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17]" << 64
        << QList<qint64>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17}
        << "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,17]";
    QList<qint64> world;
    for (qint64 r = 0; r < 16384; ++r) world.append(r);
    QTest::addRow("mp_shard of a 16,384-rank job")
        << R"({"first": 0, "step": 1, "count": 16384})" << 16384 << world << R"({"count":16384,"first":0,"step":1})";
}

void TestEventJson::readsGroupForms() {
    QFETCH(QString, group);
    QFETCH(int, worldSize);
    QFETCH(QList<qint64>, members);
    QFETCH(QString, written);
    const std::string body = R"({"job": "j1", "rank": 0, "world_size": )" + std::to_string(worldSize) +
                             R"(, "phase": "ready", "status": "done", "groups": {"g": )" + group.toStdString() + "}}";
    const auto events = parse_events(body);
    QVERIFY2(events.has_value(), events ? "" : events.error().what());
    const Group& g = events->front().groups.at("g");
    QCOMPARE(g.size(), members.size());
    for (qsizetype k = 0; k < members.size(); ++k) QCOMPARE(g.at(k), members[k]);
    QCOMPARE(g.members(), (std::vector<std::int64_t>(members.begin(), members.end())));
    QCOMPARE(QString::fromStdString(to_json(events->front()).at("groups").at("g").dump()), written);
}

void TestEventJson::readsCreationIndex() {
    const auto events = parse_events(
        with(R"("groups": {"efsdp": [1, 5, 9, 13], "ep": [5, 7]}, "creation_index": {"efsdp": 1, "ep": 3})"));
    QVERIFY(events.has_value());
    const Event& e = events->front();
    QCOMPARE(e.creation_index, (std::map<std::string, std::int64_t>{{"efsdp", 1}, {"ep", 3}}));
    QVERIFY(to_json(e).at("creation_index") == nlohmann::json::parse(R"({"efsdp": 1, "ep": 3})"));
    QVERIFY(!to_json(parse_events(with("")).value().front()).contains("creation_index"));  // none sent, none written
}

void TestEventJson::refuses_data() {
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("error");
    const std::string long_text(257, 'x');
    QTest::addRow("empty body") << QString("") << QString("the body holds no events");
    QTest::addRow("blank body") << QString(" \n\t ") << QString("the body holds no events");
    QTest::addRow("empty array") << QString("[]") << QString("the body holds no events");
    QTest::addRow("not an object") << QString("42") << QString("event 0: must be a JSON object");
    QTest::addRow("array of non-objects") << QString("[1]") << QString("event 0: must be a JSON object");
    // Nesting: 64 levels parse (and the inner array is no event), 65 do not, whatever the container or line.
    QTest::addRow("arrays 64 deep") << q(std::string(64, '[') + std::string(64, ']'))
                                    << QString("event 0: must be a JSON object");
    QTest::addRow("arrays 65 deep") << q(std::string(65, '[') + std::string(65, ']'))
                                    << QString("invalid JSON: nested deeper than 64 levels");
    QTest::addRow("deeply nested array") << q(std::string(100000, '[') + std::string(100000, ']'))
                                         << QString("invalid JSON: nested deeper than 64 levels");
    QTest::addRow("unclosed nesting") << q(std::string(100000, '['))
                                      << QString("invalid JSON: nested deeper than 64 levels");
    std::string objects;
    for (int i = 0; i < 65; ++i) objects += R"({"a": )";
    objects += "1" + std::string(65, '}');
    QTest::addRow("objects 65 deep") << q(objects) << QString("invalid JSON: nested deeper than 64 levels");
    QTest::addRow("deep field of an event") << q(with("\"plan\": " + std::string(64, '[') + std::string(64, ']')))
                                            << QString("invalid JSON: nested deeper than 64 levels");
    QTest::addRow("deep second NDJSON line") << q(with("") + "\n" + std::string(65, '[') + std::string(65, ']'))
                                             << QString("event 1: invalid JSON: nested deeper than 64 levels");
    // nlohmann reads a NUL as the end of the input: refused wherever it stands, so nothing after it goes unread.
    QTest::addRow("NUL after an event") << q(std::string("{}\0{\"junk\"", 10))
                                        << QString(
                                               "invalid JSON: parse error at byte 3: a NUL byte, which JSON text "
                                               "never holds");
    QTest::addRow("NUL on a later NDJSON line") << q(std::string("{}\n{}\n\0", 7))
                                                << QString(
                                                       "invalid JSON: parse error at byte 7: a NUL byte, which JSON "
                                                       "text never holds");
    QTest::addRow("NUL inside a string") << q(std::string("{\"job\": \"a\0b\"}", 14))
                                         << QString(
                                                "invalid JSON: parse error at byte 11: a NUL byte, which JSON "
                                                "text never holds");
    QTest::addRow("brackets in a string do not nest") << q(with("\"host\": \"" + std::string(300, '[') + "\""))
                                                      << QString("event 0: field \"host\" must be at most 256 bytes");
    for (const char* key : {"job", "rank", "world_size", "phase", "status"})
        QTest::addRow("missing %s", key) << q(without(key))
                                         << q("event 0: field \"" + std::string(key) + "\" is required");
    QTest::addRow("null job")
        << q(R"({"job": null, "rank": 0, "world_size": 1, "phase": "launch", "status": "started"})")
        << QString("event 0: field \"job\" is required");
    QTest::addRow("job not a string")
        << q(R"({"job": 5, "rank": 0, "world_size": 1, "phase": "launch", "status": "started"})")
        << QString("event 0: field \"job\" must be a string");
    QTest::addRow("job with a slash")
        << q(R"({"job": "a/b", "rank": 0, "world_size": 1, "phase": "launch", "status": "started"})")
        << QString("event 0: field \"job\" must be 1 to 128 characters of A-Z, a-z, 0-9 and ._-:@+=");
    QTest::addRow("empty job")
        << q(R"({"job": "", "rank": 0, "world_size": 1, "phase": "launch", "status": "started"})")
        << QString("event 0: field \"job\" must be 1 to 128 characters of A-Z, a-z, 0-9 and ._-:@+=");
    QTest::addRow("negative rank")
        << q(R"({"job": "j", "rank": -1, "world_size": 4, "phase": "launch", "status": "started"})")
        << QString("event 0: field \"rank\" must be a non-negative integer");
    QTest::addRow("fractional rank")
        << q(R"({"job": "j", "rank": 1.5, "world_size": 4, "phase": "launch", "status": "started"})")
        << QString("event 0: field \"rank\" must be a non-negative integer");
    QTest::addRow("rank as text")
        << q(R"({"job": "j", "rank": "1", "world_size": 4, "phase": "launch", "status": "started"})")
        << QString("event 0: field \"rank\" must be a non-negative integer");
    QTest::addRow("huge rank")
        << q(R"({"job": "j", "rank": 18446744073709551615, "world_size": 4, "phase": "launch", "status": "started"})")
        << QString("event 0: field \"rank\" must be at most 1048575");
    QTest::addRow("rank not below world")
        << q(R"({"job": "j", "rank": 64, "world_size": 64, "phase": "launch", "status": "started"})")
        << QString("event 0: field \"rank\" must be less than world_size (64), got 64");
    QTest::addRow("zero world")
        << q(R"({"job": "j", "rank": 0, "world_size": 0, "phase": "launch", "status": "started"})")
        << QString("event 0: field \"world_size\" must be a positive integer");
    QTest::addRow("huge world")
        << q(R"({"job": "j", "rank": 0, "world_size": 2000000, "phase": "launch", "status": "started"})")
        << QString("event 0: field \"world_size\" must be at most 1048576");
    QTest::addRow("unknown phase")
        << q(R"({"job": "j", "rank": 0, "world_size": 1, "phase": "boot", "status": "started"})")
        << QString(
               "event 0: field \"phase\" must be one of launch, process_group, device_mesh, "
               "parallel_state, communicator, ready, heartbeat, error, exit");
    QTest::addRow("unknown status")
        << q(R"({"job": "j", "rank": 0, "world_size": 1, "phase": "launch", "status": "ok"})")
        << QString("event 0: field \"status\" must be one of started, done, failed");
    QTest::addRow("other schema") << q(with(R"("schema": "meshscope.event/2")"))
                                  << QString("event 0: field \"schema\" must be \"meshscope.event/1\"");
    QTest::addRow("negative ts") << q(with(R"("ts": -1)"))
                                 << QString("event 0: field \"ts\" must be a non-negative number");
    QTest::addRow("ts as text") << q(with(R"("ts": "now")"))
                                << QString("event 0: field \"ts\" must be a non-negative number");
    QTest::addRow("ts 1e300") << q(with(R"("ts": 1e300)"))
                              << QString("event 0: field \"ts\" must be at most 10000000000");
    QTest::addRow("ts past the year 2286")
        << q(with(R"("ts": 10000000000.5)")) << QString("event 0: field \"ts\" must be at most 10000000000");
    QTest::addRow("host not a string") << q(with(R"("host": 5)"))
                                       << QString("event 0: field \"host\" must be a string");
    QTest::addRow("host too long") << q(with("\"host\": \"" + long_text + "\""))
                                   << QString("event 0: field \"host\" must be at most 256 bytes");
    QTest::addRow("negative pid") << q(with(R"("pid": -3)"))
                                  << QString("event 0: field \"pid\" must be a non-negative integer");
    // pid_t is 32 bits; 2^63 used to be stored as 2^63 - 1.
    QTest::addRow("pid 2^31") << q(with(R"("pid": 2147483648)"))
                              << QString("event 0: field \"pid\" must be at most 2147483647");
    QTest::addRow("pid 2^63") << q(with(R"("pid": 9223372036854775808)"))
                              << QString("event 0: field \"pid\" must be at most 2147483647");
    QTest::addRow("pid 2^64 - 1") << q(with(R"("pid": 18446744073709551615)"))
                                  << QString("event 0: field \"pid\" must be at most 2147483647");
    QTest::addRow("local_rank beyond any world")
        << q(with(R"("local_rank": 1048576)")) << QString("event 0: field \"local_rank\" must be at most 1048575");
    QTest::addRow("local_rank as text") << q(with(R"("local_rank": "0")"))
                                        << QString("event 0: field \"local_rank\" must be a non-negative integer");
    QTest::addRow("topology not an object")
        << q(with(R"("topology": [8, 2, 2])")) << QString("event 0: field \"topology\" must be an object");
    QTest::addRow("topology without ep") << q(with(R"("topology": {"dp": 8, "cp": 2})"))
                                         << QString("event 0: field \"topology.ep\" is required");
    QTest::addRow("topology mp_replicate alone")
        << q(with(R"("topology": {"dp": 8, "cp": 2, "ep": 2, "mp_replicate": 2})"))
        << QString("event 0: field \"topology.mp_shard\" is required with \"topology.mp_replicate\"");
    QTest::addRow("topology mp_shard alone")
        << q(with(R"("topology": {"dp": 8, "cp": 2, "ep": 2, "mp_shard": 8})"))
        << QString("event 0: field \"topology.mp_replicate\" is required with \"topology.mp_shard\"");
    QTest::addRow("topology mp_shard zero")
        << q(with(R"("topology": {"dp": 8, "cp": 2, "ep": 2, "mp_replicate": 2, "mp_shard": 0})"))
        << QString("event 0: field \"topology.mp_shard\" must be a positive integer");
    QTest::addRow("topology mp_replicate text")
        << q(with(R"("topology": {"dp": 8, "cp": 2, "ep": 2, "mp_replicate": "2", "mp_shard": 8})"))
        << QString("event 0: field \"topology.mp_replicate\" must be a positive integer");
    QTest::addRow("topology ep zero") << q(with(R"("topology": {"dp": 8, "cp": 2, "ep": 0})"))
                                      << QString("event 0: field \"topology.ep\" must be a positive integer");
    QTest::addRow("mesh without shape") << q(with(R"("mesh": {"name": "data", "dim_names": ["dp", "cp"]})"))
                                        << QString("event 0: field \"mesh.shape\" is required");
    QTest::addRow("mesh names not strings")
        << q(with(R"("mesh": {"name": "data", "dim_names": [1, 2], "shape": [8, 2]})"))
        << QString("event 0: field \"mesh.dim_names\" must be an array of strings");
    QTest::addRow("mesh shape zero") << q(with(
                                            R"("mesh": {"name": "data", "dim_names": ["dp", "cp"], "shape": [8, 0]})"))
                                     << QString("event 0: field \"mesh.shape\" must be an array of positive integers");
    QTest::addRow("mesh shape length")
        << q(with(R"("mesh": {"name": "data", "dim_names": ["dp", "cp"], "shape": [16]})"))
        << QString("event 0: field \"mesh.shape\" must have as many entries as \"mesh.dim_names\"");
    QTest::addRow("mesh too large")
        << q(with(R"("mesh": {"name": "data", "dim_names": ["a", "b"], "shape": [2048, 1024]})"))
        << QString("event 0: field \"mesh.shape\" must not cover more than 1048576 ranks");
    QTest::addRow("groups not an object")
        << q(with(R"("groups": [[0, 1]])")) << QString("event 0: field \"groups\" must be an object");
    QTest::addRow("group member beyond world")
        << q(with(R"("groups": {"ep": [3, 16]})"))
        << QString("event 0: field \"groups.ep\" must be an array of ranks below world_size (16)");
    QTest::addRow("group member negative")
        << q(with(R"("groups": {"ep": [-1, 3]})"))
        << QString("event 0: field \"groups.ep\" must be an array of ranks below world_size (16)");
    QTest::addRow("group neither array nor object")
        << q(with(R"("groups": {"ep": 3})"))
        << QString(
               R"(event 0: field "groups.ep" must be an array of ranks below world_size (16) or {"first", "step", "count"})");
    const QString exactly = R"(event 0: field "groups.ep" must have exactly "first", "step" and "count")";
    QTest::addRow("spaced group without count") << q(with(R"("groups": {"ep": {"first": 0, "step": 1}})")) << exactly;
    QTest::addRow("spaced group with another key")
        << q(with(R"("groups": {"ep": {"first": 0, "step": 1, "count": 2, "last": 1}})")) << exactly;
    QTest::addRow("spaced group first beyond world")
        << q(with(R"("groups": {"ep": {"first": 16, "step": 1, "count": 1}})"))
        << QString(R"(event 0: field "groups.ep.first" must be a rank below world_size (16))");
    QTest::addRow("spaced group first negative")
        << q(with(R"("groups": {"ep": {"first": -1, "step": 1, "count": 1}})"))
        << QString(R"(event 0: field "groups.ep.first" must be a rank below world_size (16))");
    QTest::addRow("spaced group step zero") << q(with(R"("groups": {"ep": {"first": 0, "step": 0, "count": 2}})"))
                                            << QString(R"(event 0: field "groups.ep.step" must be a positive integer)");
    QTest::addRow("spaced group step fractional")
        << q(with(R"("groups": {"ep": {"first": 0, "step": 1.5, "count": 2}})"))
        << QString(R"(event 0: field "groups.ep.step" must be a positive integer)");
    QTest::addRow("spaced group empty") << q(with(R"("groups": {"ep": {"first": 0, "step": 1, "count": 0}})"))
                                        << QString(R"(event 0: field "groups.ep.count" must be a positive integer)");
    QTest::addRow("spaced group larger than world")
        << q(with(R"("groups": {"ep": {"first": 0, "step": 1, "count": 17}})"))
        << QString(R"(event 0: field "groups.ep" must have at most world_size (16) members)");
    // 1, 6, 11, 16: the fourth member is past rank 15.
    QTest::addRow("spaced group ends beyond world")
        << q(with(R"("groups": {"ep": {"first": 1, "step": 5, "count": 4}})"))
        << QString(R"(event 0: field "groups.ep" must end below world_size (16): its last member would be 1 + 3 * 5)");
    QTest::addRow("spaced group step overflows")
        << q(with(R"("groups": {"ep": {"first": 0, "step": 9223372036854775807, "count": 2}})"))
        << QString(
               R"(event 0: field "groups.ep" must end below world_size (16): its last member would be 0 + 1 * 9223372036854775807)");
    QTest::addRow("group repeats a rank")
        << q(with(R"("groups": {"ep": [3, 3]})")) << QString("event 0: field \"groups.ep\" must not repeat a rank");
    QTest::addRow("creation_index not an object") << q(with(R"("groups": {"ep": [1, 3]}, "creation_index": [1])"))
                                                  << QString("event 0: field \"creation_index\" must be an object");
    const QString index_error("event 0: field \"creation_index.ep\" must be a group index below world_size (16)");
    QTest::addRow("creation index negative")
        << q(with(R"("groups": {"ep": [1, 3]}, "creation_index": {"ep": -1})")) << index_error;
    QTest::addRow("creation index fractional")
        << q(with(R"("groups": {"ep": [1, 3]}, "creation_index": {"ep": 2.5})")) << index_error;
    QTest::addRow("creation index text") << q(with(R"("groups": {"ep": [1, 3]}, "creation_index": {"ep": "1"})"))
                                         << index_error;
    QTest::addRow("creation index at world_size")
        << q(with(R"("groups": {"ep": [1, 3]}, "creation_index": {"ep": 16})")) << index_error;
    QTest::addRow("creation index beyond int64")
        << q(with(R"("groups": {"ep": [1, 3]}, "creation_index": {"ep": 18446744073709551615})")) << index_error;
    QTest::addRow("creation index without its group")
        << q(with(R"("groups": {"ep": [1, 3]}, "creation_index": {"efsdp": 1})"))
        << QString("event 0: field \"creation_index.efsdp\" needs the rank's efsdp group in \"groups\"");
    QTest::addRow("creation index without groups")
        << q(with(R"("creation_index": {"ep": 1})"))
        << QString("event 0: field \"creation_index.ep\" needs the rank's ep group in \"groups\"");
    QTest::addRow("error not an object") << q(with(R"("error": "boom")"))
                                         << QString("event 0: field \"error\" must be an object");
    QTest::addRow("error message not a string")
        << q(with(R"("error": {"message": 5})")) << QString("event 0: field \"error.message\" must be a string");
    QTest::addRow("plan not an object") << q(with(R"("plan": "p")"))
                                        << QString("event 0: field \"plan\" must be an object");
    QTest::addRow("plan with another schema") << q(with(R"("plan": {"schema": "x"})"))
                                              << QString(
                                                     "event 0: field \"plan\" must be a meshscope.plan/1 document: "
                                                     "unsupported schema \"x\", expected \"meshscope.plan/1\"");
    QTest::addRow("plan with a bad topology")
        << q(with(R"("plan": {"schema": "meshscope.plan/1", "topology": {"dp": 8, "cp": 1, "ep": 3}})"))
        << QString(
               "event 0: field \"plan\" must be a meshscope.plan/1 document: dp_size must be divisible by ep_size, got "
               "8 % 3 != 0.");
    // The plan reader's crash found by fuzz/fuzz_plan_reader, reached through one event: parse_events threw
    // std::bad_alloc (a 2^40-entry allocation) instead of refusing the body.
    QTest::addRow("plan of 2^40 ranks (fuzz)")
        << q(with(R"("plan": {"schema": "meshscope.plan/1", "topology": {"dp": 1099511627776, "cp": 1, "ep": 1}})"))
        << QString(
               "event 0: field \"plan\" must be a meshscope.plan/1 document: \"topology\" (1099511627776, 1, 1) "
               "covers 1099511627776 ranks; plans are read back up to 1048576");
    QTest::addRow("second array element") << q("[" + with("") + R"(, {"job": "j1", "rank": "x"}])")
                                          << QString("event 1: field \"rank\" must be a non-negative integer");
    QTest::addRow("pretty-printed object with a syntax error")
        << q("{\n  \"job\": \"j\",\n  \"rank\": 1,,\n}")
        << QString(
               "invalid JSON: parse error at line 3, column 13: syntax error while parsing object key - unexpected "
               "','; "
               "expected string literal");
    QTest::addRow("ndjson bad third line")
        << q(with("") + "\n" + with("") + "\n{\"job\": \n")
        << QString(
               "event 2: invalid JSON: parse error at line 1, column 9: syntax error while "
               "parsing value - unexpected end of input; expected '[', '{', or a literal");
    QTest::addRow("ndjson third event invalid") << q(with("") + "\n" + with("") + "\n" + with(R"("pid": "x")"))
                                                << QString("event 2: field \"pid\" must be a non-negative integer");
    QTest::addRow("truncated object")
        << q("{\"job\": \"j\"")
        << QString(
               "invalid JSON: parse error at line 1, column 12: syntax error while parsing "
               "object - unexpected end of input; expected '}'");
    // Every coded limit (EventLimits defaults, written out here by hand) refuses one past it.
    QTest::addRow("job of 129 characters")
        << q(R"({"job": ")" + std::string(129, 'j') +
             R"(", "rank": 0, "world_size": 1, "phase": "launch", "status": "started"})")
        << QString("event 0: field \"job\" must be 1 to 128 characters of A-Z, a-z, 0-9 and ._-:@+=");
    {
        std::string names, shape;
        for (int i = 0; i < 9; ++i) {
            names += (i ? ", " : "") + std::string("\"d") + std::to_string(i) + "\"";
            shape += (i ? ", " : "") + std::string("1");
        }
        QTest::addRow("mesh of 9 dims") << q(with(R"("mesh": {"name": "m", "dim_names": [)" + names +
                                                  R"(], "shape": [)" + shape + "]}"))
                                        << QString("event 0: field \"mesh.dim_names\" must have at most 8 entries");
        std::string groups;
        for (int i = 0; i < 17; ++i) groups += (i ? ", " : "") + std::string("\"g") + std::to_string(i) + "\": [3]";
        QTest::addRow("groups of 17 dims") << q(with(R"("groups": {)" + groups + "}"))
                                           << QString("event 0: field \"groups\" must have at most 16 dims");
    }
    QTest::addRow("group dim name of 257 bytes")
        << q(with(R"("groups": {")" + long_text + R"(": [3]})"))
        << QString("event 0: field \"groups\" must use dim names of 1 to 256 bytes");
    QTest::addRow("error message of 8193 bytes")
        << q(with(R"("error": {"type": "RuntimeError", "message": ")" + std::string(8193, 'm') + R"("})"))
        << QString("event 0: field \"error.message\" must be at most 8192 bytes");
    QTest::addRow("plan nested 33 levels") << q(with(R"("plan": {"schema": "meshscope.plan/1", "x": )" +
                                                     std::string(32, '[') + std::string(32, ']') + "}"))
                                           << QString("event 0: field \"plan\" must not nest deeper than 32 levels");
    QTest::addRow("duplicate key")
        << q(R"({"job": "j1", "rank": 3, "rank": 4, "world_size": 16, "phase": "launch", "status": "started"})")
        << QString("invalid JSON: the key \"rank\" appears twice in one object");
    QTest::addRow("duplicate nested key") << q(with(R"("topology": {"dp": 8, "cp": 2, "ep": 2, "ep": 4})"))
                                          << QString("invalid JSON: the key \"ep\" appears twice in one object");
    QTest::addRow("same key in sibling objects is fine, twice in one is not")
        << q("[" + with(R"("topology": {"dp": 8, "cp": 1, "ep": 2})") + ", " + with(R"("host": "a", "host": "b")") +
             "]")
        << QString("invalid JSON: the key \"host\" appears twice in one object");
    QTest::addRow("ndjson duplicate key on line 2")
        << q(with("") + "\n" +
             R"({"job": "j1", "job": "j2", "rank": 3, "world_size": 16, "phase": "launch", "status": "started"})")
        << QString("event 1: invalid JSON: the key \"job\" appears twice in one object");
    QTest::addRow("invalid UTF-8") << QString::fromLatin1("{\"job\": \"j\xff\"}")
                                   << QString(
                                          "invalid JSON: parse error at line 1, column 11: syntax error while parsing "
                                          "value - invalid string: ill-formed UTF-8 byte; last read: '\"j<FF>'");
}

void TestEventJson::refuses() {
    QFETCH(QString, body);
    QFETCH(QString, error);
    // Latin-1 keeps the invalid-UTF-8 row's raw byte; every other row is ASCII.
    const QByteArray bytes = QTest::currentDataTag() == QByteArray("invalid UTF-8") ? body.toLatin1() : body.toUtf8();
    const auto events = parse_events(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    QVERIFY(!events.has_value());
    QCOMPARE(q(events.error().message()), error);
}

void TestEventJson::limits() {
    EventLimits limits;
    limits.max_events = 2;
    const auto body = with("") + "\n" + with("") + "\n" + with("");
    const auto events = parse_events(body, limits);
    QVERIFY(!events.has_value());
    QCOMPARE(q(events.error().message()), QString("the body holds more than 2 events"));
    limits.max_events = 3;
    QVERIFY(parse_events(body, limits).has_value());

    // creation_index names only dims of "groups", so max_group_dims bounds it too.
    limits.max_group_dims = 1;
    const auto two =
        parse_events(with(R"("groups": {"ep": [1, 3], "cp": [2, 3]}, "creation_index": {"ep": 1, "cp": 1})"), limits);
    QCOMPARE(q(two.error().message()), QString("event 0: field \"groups\" must have at most 1 dims"));
    QVERIFY(parse_events(with(R"("groups": {"ep": [1, 3]}, "creation_index": {"ep": 1})"), limits).has_value());
}

void TestEventJson::enumNames() {
    for (std::size_t i = 0; i < phase_count; ++i) {
        const auto phase = static_cast<Phase>(i);
        QCOMPARE(parse_phase(to_string(phase)), std::optional(phase));
    }
    QCOMPARE(parse_status("failed"), std::optional(Status::failed));
    QCOMPARE(parse_phase("Launch"), std::nullopt);
}

QTEST_APPLESS_MAIN(TestEventJson)
#include "tst_event_json.moc"

// Names worked by hand from the job name's characters (A-Z, a-z, 0-9 and ._-:@+=) and its length (at most 128).
void TestEventJson::jobNameFrom_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("name");
    QTest::addRow("a name already") << QString("llama-moe-42") << QString("llama-moe-42");
    QTest::addRow("IPv6 address") << QString("ras@[::1]:28028") << QString("ras@-::1-:28028");
    QTest::addRow("spaces and slashes") << QString("job 4711/fr") << QString("job-4711-fr");
    QTest::addRow("empty stays empty") << QString("") << QString("");
    QTest::addRow("cut to 128") << QString(200, 'a') << QString(128, 'a');
}

void TestEventJson::jobNameFrom() {
    QFETCH(QString, text);
    QFETCH(QString, name);
    const std::string made = meshscope::job_name_from(text.toStdString());
    QCOMPARE(q(made), name);
    if (!made.empty()) QVERIFY(meshscope::valid_job_name(made));
}
