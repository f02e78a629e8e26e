// What `meshscope serve --otlp-export` writes (docs/collector-metrics.md, "OTLP export"): where a finding is on the
// meshes (from its id), its severity, one log record, the metrics request (with a job's communicators, capped), and
// which URLs the flag takes; and the exporter's queue: bounded, one entry per finding. Expected values are written by
// hand from the ids the monitor and the records give (docs/findings.md) and from OTLP's JSON encoding.
#include <QtTest>

#include <atomic>
#include <chrono>

#include <nlohmann/json.hpp>

#include "collector/collector.h"

#include "otlp_export/otlp_body.h"
#include "otlp_export/otlp_exporter.h"

using namespace meshscope;
using namespace meshscope::server;
using nlohmann::json;

namespace {
Finding finding(FindingKind kind, std::string id) {
    Finding f;
    f.kind = kind;
    f.id = std::move(id);
    return f;
}

// A meshscope.records/1 import of `count` collective_stuck findings (records/1 ...), each message ending in `tag`.
std::string records_body(int count, const std::string& tag) {
    json findings = json::array();
    for (int i = 0; i < count; ++i)
        findings.push_back({{"kind", "collective_stuck"}, {"ranks", {i}}, {"message", "stuck " + tag}, {"fix", "f"}});
    return json{{"format", "meshscope.records/1"}, {"findings", findings}, {"world_size", count}}.dump();
}

// The attributes of an OTLP log record as {key: value-object}.
json attributes(const json& record) {
    json out = json::object();
    for (const auto& a : record.at("attributes")) out[a.at("key").get<std::string>()] = a.at("value");
    return out;
}
}  // namespace

class OtlpBodyTest : public QObject {
    Q_OBJECT
private slots:
    void place_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("dim");
        QTest::addColumn<int>("group");  // -1: none
        const auto row = [](const char* name, FindingKind kind, const char* id, const char* mesh, const char* dim,
                            int group) {
            QTest::addRow("%s", name) << static_cast<int>(kind) << id << mesh << dim << group;
        };
        row("slow group: dim and group", FindingKind::slow_group, "slow_group/ep/1", "expert", "ep", 1);
        row("communicator not formed", FindingKind::communicator_not_formed, "communicator_not_formed/efsdp/0",
            "expert", "efsdp", 0);
        row("stuck collective on the data mesh", FindingKind::collective_stuck, "collective_stuck/dp/3", "data", "dp",
            3);
        row("mismatch on the model mesh", FindingKind::collective_mismatch, "collective_mismatch/mp_shard/0", "model",
            "mp_shard", 0);
        row("group disagreement: the last part is a rank", FindingKind::group_disagreement, "group_disagreement/cp/5",
            "data", "cp", -1);
        row("creation order", FindingKind::creation_order_mismatch, "creation_order_mismatch/expert_cp", "expert",
            "expert_cp", -1);
        row("Flight Recorder straggler", FindingKind::straggler, "straggler/flight_recorder/ep", "expert", "ep", -1);
        row("phase straggler: no dim", FindingKind::straggler, "straggler/communicator", "", "", -1);
        row("topology aspect is not a group", FindingKind::topology_mismatch, "topology_mismatch/ep/4", "", "", -1);
        row("a communicator off the plan", FindingKind::collective_stuck, "collective_stuck/0x5ae77eb5ea4ec1ee", "", "",
            -1);
        row("a group index that is not a number", FindingKind::slow_group, "slow_group/ep/x", "expert", "ep", -1);
        row("imported", FindingKind::collective_stuck, "records/2", "", "", -1);
        row("missing rank", FindingKind::missing_rank, "missing_rank", "", "", -1);
    }
    void place() {
        QFETCH(int, kind);
        QFETCH(QString, id);
        QFETCH(QString, mesh);
        QFETCH(QString, dim);
        QFETCH(int, group);
        const auto got = finding_place(finding(static_cast<FindingKind>(kind), id.toStdString()));
        QCOMPARE(QString::fromStdString(got.mesh), mesh);
        QCOMPARE(QString::fromStdString(got.dim), dim);
        QCOMPARE(got.group ? static_cast<int>(*got.group) : -1, group);
    }

    void severity() {
        QCOMPARE(otlp_severity(FindingKind::verdict).number, 21);
        QCOMPARE(otlp_severity(FindingKind::straggler).text, std::string_view("WARN"));
        QCOMPARE(otlp_severity(FindingKind::stale_rank).number, 13);
        QCOMPARE(otlp_severity(FindingKind::slow_group).number, 13);
        QCOMPARE(otlp_severity(FindingKind::rank_error).number, 17);
        QCOMPARE(otlp_severity(FindingKind::missing_rank).text, std::string_view("ERROR"));
        QCOMPARE(otlp_severity(FindingKind::verdict, ChangeKind::finding_removed).number, 9);
    }

    void log_record() {
        FindingChange change;
        change.job = "j";
        change.change = ChangeKind::finding_updated;
        change.finding = finding(FindingKind::slow_group, "slow_group/ep/1");
        change.finding.ranks = {4, 5};
        change.finding.message = "ep group 1 is slow";
        change.finding.fix = "check node1's links";
        change.time = 1700000000.25;
        const json record = json::parse(otlp_log_record(change));
        QCOMPARE(record.at("timeUnixNano").get<std::string>(), std::string("1700000000250000000"));
        QCOMPARE(record.at("severityNumber").get<int>(), 13);
        QCOMPARE(record.at("severityText").get<std::string>(), std::string("WARN"));
        QCOMPARE(record.at("eventName").get<std::string>(), std::string("meshscope.finding"));
        QCOMPARE(record.at("body"), json({{"stringValue", "ep group 1 is slow"}}));
        const json a = attributes(record);
        QCOMPARE(a.at("id"), json({{"stringValue", "slow_group/ep/1"}}));
        QCOMPARE(a.at("change"), json({{"stringValue", "updated"}}));
        QCOMPARE(a.at("kind"), json({{"stringValue", "slow_group"}}));
        QCOMPARE(a.at("ranks"), json::parse(R"({"arrayValue":{"values":[{"intValue":"4"},{"intValue":"5"}]}})"));
        QCOMPARE(a.at("rank_count"), json({{"intValue", "2"}}));
        QCOMPARE(a.at("mesh"), json({{"stringValue", "expert"}}));
        QCOMPARE(a.at("dim"), json({{"stringValue", "ep"}}));
        QCOMPARE(a.at("group"), json({{"intValue", "1"}}));
        QCOMPARE(a.at("fix"), json({{"stringValue", "check node1's links"}}));
        QVERIFY(!a.contains("source"));  // none: the monitor found it

        // A missing_rank of many ranks: the first 256 in "ranks", every one counted.
        change.finding = finding(FindingKind::missing_rank, "missing_rank");
        for (int r = 0; r < 1000; ++r) change.finding.ranks.push_back(r);
        change.finding.sources = {"a.log:1", "b.log:2"};
        const json many = attributes(json::parse(otlp_log_record(change)));
        QCOMPARE(many.at("ranks").at("arrayValue").at("values").size(), std::size_t{256});
        QCOMPARE(many.at("rank_count"), json({{"intValue", "1000"}}));
        QCOMPARE(many.at("source"),
                 json::parse(R"({"arrayValue":{"values":[{"stringValue":"a.log:1"},{"stringValue":"b.log:2"}]}})"));
        QVERIFY(!many.contains("dim"));

        // Removed: what it was and that it is gone.
        change.change = ChangeKind::finding_removed;
        change.finding = finding(FindingKind::stale_rank, "stale_rank");
        const json removed = json::parse(otlp_log_record(change));
        QCOMPARE(removed.at("severityText").get<std::string>(), std::string("INFO"));
        QCOMPARE(removed.at("body"), json({{"stringValue", "resolved: stale_rank"}}));
        QCOMPARE(attributes(removed).at("change"), json({{"stringValue", "removed"}}));
        QVERIFY(!attributes(removed).contains("message"));
    }

    void logs_body_groups_by_job() {
        const std::vector<JobRecord> records = {{"a", R"({"n":1})"}, {"b", R"({"n":2})"}, {"a", R"({"n":3})"}};
        const json body = json::parse(otlp_logs_body(records));
        QCOMPARE(body.at("resourceLogs").size(), std::size_t{2});
        const json& a = body.at("resourceLogs")[0];
        QCOMPARE(a.at("resource").at("attributes"),
                 json::parse(R"([{"key":"service.name","value":{"stringValue":"meshscope"}},
                                 {"key":"meshscope.job","value":{"stringValue":"a"}}])"));
        QCOMPARE(a.at("scopeLogs")[0].at("logRecords"), json::parse(R"([{"n":1},{"n":3}])"));
        QCOMPARE(body.at("resourceLogs")[1].at("scopeLogs")[0].at("logRecords"), json::parse(R"([{"n":2}])"));
    }

    void metrics_body() {
        JobSummary job;
        job.job = "slurm-4242";
        job.states[static_cast<std::size_t>(RankStateKind::ready)] = 6;
        job.states[static_cast<std::size_t>(RankStateKind::failed)] = 2;
        job.findings_by_kind[static_cast<std::size_t>(FindingKind::rank_error)] = 2;
        const std::vector<JobSummary> jobs = {job};
        const json body = json::parse(otlp_metrics_body(jobs, 1700000000));
        const json& metrics = body.at("resourceMetrics")[0].at("scopeMetrics")[0].at("metrics");
        QCOMPARE(metrics.size(), std::size_t{2});
        QCOMPARE(metrics[0].at("name").get<std::string>(), std::string("meshscope_ranks"));
        QCOMPARE(metrics[1].at("name").get<std::string>(), std::string("meshscope_findings"));
        const auto value = [&](std::size_t metric, const char* key, const char* label) {
            for (const auto& p : metrics[metric].at("gauge").at("dataPoints")) {
                const json a = attributes(p);
                if (a.at("slurm_job_id") == json({{"stringValue", "slurm-4242"}}) &&
                    a.at(key) == json({{"stringValue", label}}))
                    return p.at("asInt").get<std::string>();
            }
            return std::string("absent");
        };
        QCOMPARE(value(0, "state", "ready"), std::string("6"));
        QCOMPARE(value(0, "state", "failed"), std::string("2"));
        QCOMPARE(value(0, "state", "pending"), std::string("0"));
        QCOMPARE(value(1, "kind", "rank_error"), std::string("2"));
        QCOMPARE(value(1, "kind", "verdict"), std::string("0"));
        QCOMPARE(metrics[0].at("gauge").at("dataPoints").size(), std::size_t{6});   // every state
        QCOMPARE(metrics[1].at("gauge").at("dataPoints").size(), std::size_t{15});  // every kind
        QCOMPARE(metrics[0].at("gauge").at("dataPoints")[0].at("timeUnixNano").get<std::string>(),
                 std::string("1700000000000000000"));
    }

    // A job's communicators (Monitor::communicators_json's shape: meshscope-probe's groups, then the records') as the
    // export's gauges: the attributes of GET /metrics' labels, as strings; every state, 1 for the communicator's own;
    // those in trouble first. Worked out by hand from the input.
    void metrics_body_communicators() {
        const json communicators = {
            {"groups",
             {{{"dim", "ep"}, {"index", 1}, {"members", {0, 1, 2, 3}}, {"reported", 4}, {"state", "formed"}}}},
            {"records",
             {{{"name", "0xa1"}, {"nranks", 8}, {"seen", 7}, {"state", "stuck"}, {"source", "NCCL RAS"}},
              {{"name", "0xb2"},
               {"nranks", 2},
               {"seen", 2},
               {"dim", "efsdp"},
               {"index", 0},
               {"source", "NCCL log"},
               {"state", "formed"}}}}};
        JobSummary job;
        job.job = "slurm-7";
        const std::vector<JobSummary> jobs = {job};
        const std::vector<JobCommunicators> comms = {communicator_series("slurm-7", communicators)};
        QCOMPARE(comms[0].omitted, std::size_t{0});
        const json body = json::parse(otlp_metrics_body(jobs, 1700000000, comms));
        const json& metrics = body.at("resourceMetrics")[0].at("scopeMetrics")[0].at("metrics");
        QCOMPARE(metrics.size(), std::size_t{5});
        QCOMPARE(metrics[2].at("name").get<std::string>(), std::string("meshscope_communicator_ranks"));
        QCOMPARE(metrics[3].at("name").get<std::string>(), std::string("meshscope_communicator_state"));
        QCOMPARE(metrics[4].at("name").get<std::string>(), std::string("meshscope_communicators_omitted"));
        const auto text = [](const std::string& value) { return json{{"stringValue", value}}; };
        // The stuck one first, then the formed ones in the monitor's order.
        const json& ranks = metrics[2].at("gauge").at("dataPoints");
        QCOMPARE(ranks.size(), std::size_t{3});
        QCOMPARE(attributes(ranks[0]), (json{{"slurm_job_id", text("slurm-7")},
                                             {"comm_name", text("0xa1")},
                                             {"nranks", text("8")},
                                             {"dim", text("")},
                                             {"group", text("")},
                                             {"source", text("NCCL RAS")}}));
        QCOMPARE(ranks[0].at("asInt").get<std::string>(), std::string("7"));
        QCOMPARE(attributes(ranks[1]), (json{{"slurm_job_id", text("slurm-7")},
                                             {"comm_name", text("ep group 1")},
                                             {"nranks", text("4")},
                                             {"dim", text("ep")},
                                             {"group", text("1")},
                                             {"source", text("meshscope-probe")}}));
        QCOMPARE(ranks[1].at("asInt").get<std::string>(), std::string("4"));
        QCOMPARE(attributes(ranks[2]).at("comm_name"), text("0xb2"));
        QCOMPARE(attributes(ranks[2]).at("group"), text("0"));
        const json& states = metrics[3].at("gauge").at("dataPoints");
        QCOMPARE(states.size(), std::size_t{3 * 5});
        std::vector<std::string> set;
        for (const auto& p : states)
            if (p.at("asInt") == "1")
                set.push_back(attributes(p).at("comm_name").at("stringValue").get<std::string>() + " " +
                              attributes(p).at("state").at("stringValue").get<std::string>());
        QCOMPARE(set, (std::vector<std::string>{"0xa1 stuck", "ep group 1 formed", "0xb2 formed"}));
        const json& omitted = metrics[4].at("gauge").at("dataPoints");
        QCOMPARE(omitted.size(), std::size_t{1});
        QCOMPARE(omitted[0].at("asInt").get<std::string>(), std::string("0"));
    }

    // Past 256 communicators a job sends 256, those not formed among them, and counts the rest.
    void communicator_series_cap() {
        json records = json::array();
        for (int i = 0; i < 300; ++i)
            records.push_back({{"name", "c" + std::to_string(i)},
                               {"nranks", 2},
                               {"seen", 2},
                               {"state", i < 290 ? "formed" : "failed"}});
        const JobCommunicators comms = communicator_series("big", json{{"records", records}});
        QCOMPARE(comms.series.size(), std::size_t{256});
        QCOMPARE(comms.omitted, std::size_t{44});
        for (std::size_t i = 0; i < 10; ++i) {
            QCOMPARE(comms.series[i].comm_name, "c" + std::to_string(290 + i));
            QCOMPARE(comms.series[i].state, std::string("failed"));
        }
        QCOMPARE(comms.series[10].comm_name, std::string("c0"));
    }

    // Against a URL nobody answers and a backoff longer than the test: the first attempt fails, then the queue holds
    // still. Five new findings in a queue of three: three wait, two are dropped. The same five changed: the three
    // waiting take their new text in place (no more room used), the two others find no room.
    void queue_is_bounded_one_entry_per_finding() {
        QTemporaryDir dir;
        CollectorOptions options;
        options.database = dir.filePath("h.db").toStdString();
        options.durability = Durability::normal;
        auto collector = Collector::open(options);
        QVERIFY(collector);
        OtlpExportOptions export_options;
        export_options.url = "http://127.0.0.1:1";
        export_options.max_queued = 3;
        export_options.first_backoff = std::chrono::minutes(10);
        export_options.interval = std::chrono::hours(1);
        OtlpExporter exporter(**collector, export_options);
        std::atomic<int> imported{0};
        const auto import = [&](const std::string& tag) {
            (*collector)->submit_records("j", records_body(5, tag), [&](const SubmitResult& r) {
                QCOMPARE(r.status, 200);
                ++imported;
            });
        };
        import("a");
        QTRY_COMPARE(imported.load(), 1);
        QTRY_COMPARE(exporter.stats().retries, std::int64_t{1});
        QCOMPARE(exporter.stats().findings_queued, std::int64_t{3});
        QCOMPARE(exporter.stats().findings_dropped, std::int64_t{2});
        import("b");
        QTRY_COMPARE(imported.load(), 2);
        QTRY_COMPARE(exporter.stats().findings_dropped, std::int64_t{4});
        QCOMPARE(exporter.stats().findings_queued, std::int64_t{3});
        QCOMPARE(exporter.stats().findings_sent, std::int64_t{0});
        const std::string text = (*collector)->metrics_text();
        QVERIFY(text.find("\nmeshscope_otlp_export_findings_dropped_total 4\n") != std::string::npos);
        QVERIFY(text.find("\nmeshscope_otlp_export_findings_queued 3\n") != std::string::npos);
    }

    void headers_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("error");  // empty: valid
        const QString name_error =
            "--otlp-header must be 'Name: value' with a name of letters, digits and "
            "!#$%&'*+-.^_`|~ (e.g. 'Authorization: Bearer TOKEN')";
        QTest::addRow("authorization") << "Authorization: Bearer abc"
                                       << "";
        QTest::addRow("no space, marks in the name") << "X-Scope-OrgID:tenant_1"
                                                     << "";
        QTest::addRow("an empty value") << "X-Empty:"
                                        << "";
        QTest::addRow("no colon") << "Authorization Bearer abc" << name_error;
        QTest::addRow("no name") << ": abc" << name_error;
        QTest::addRow("a space in the name") << "X Key: abc" << name_error;
        QTest::addRow("a line break in the value") << "X-Key: abc\r\nHost: evil"
                                                   << "--otlp-header 'X-Key: ...' has a control character in its value";
    }
    void headers() {
        QFETCH(QString, line);
        QFETCH(QString, error);
        const auto got = otlp_header_error(line.toStdString());
        QCOMPARE(QString::fromStdString(got.value_or("")), error);
    }

    void urls_data() {
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("valid");
        QTest::addRow("host and port") << "http://agent:4318" << true;
        QTest::addRow("https, a path prefix") << "https://gateway.example.org/otlp" << true;
        QTest::addRow("trailing slash") << "http://127.0.0.1:4318/" << true;
        QTest::addRow("IPv6") << "http://[::1]:4318" << true;
        QTest::addRow("no port") << "http://agent" << true;
        QTest::addRow("no scheme") << "agent:4318" << false;
        QTest::addRow("grpc scheme") << "grpc://agent:4317" << false;
        QTest::addRow("empty host") << "http://:4318" << false;
        QTest::addRow("port 0") << "http://agent:0" << false;
        QTest::addRow("port too large") << "http://agent:65536" << false;
        QTest::addRow("port not a number") << "http://agent:43x8" << false;
        QTest::addRow("user info") << "http://user@agent:4318" << false;
        QTest::addRow("a query") << "http://agent:4318/?a=b" << false;
        QTest::addRow("the logs path") << "http://agent:4318/v1/logs" << false;
        QTest::addRow("the metrics path") << "http://agent:4318/v1/metrics/" << false;
    }
    void urls() {
        QFETCH(QString, url);
        QFETCH(bool, valid);
        const auto error = otlp_export_url_error(url.toStdString());
        QVERIFY2(error.has_value() != valid, error ? error->c_str() : "valid");
    }
};

QTEST_GUILESS_MAIN(OtlpBodyTest)
#include "tst_otlp_body.moc"
