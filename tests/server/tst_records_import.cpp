// `meshscope import` into `meshscope serve`, as a user runs them: the committed records (tests/records/fixtures)
// become a job whose findings name their sources and whose ranks carry the records' hosts and pids; the import
// survives a restart, a second import of the job replaces the first, hook events and records share a job; every
// error of the command and of POST /api/v1/jobs/{job}/records has its exact text. The expected texts are the
// fixtures' injected faults as tests/records/fixtures/*/README.md describe them, worked out by hand.
#include <QDir>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>

#include "server_test_support.h"

namespace {
const QString fixtures = QStringLiteral(RECORDS_FIXTURES);

// meshscope ARGS run from the fixtures' folder, so that the sources it names are the paths given.
test::CommandResult run_in_fixtures(const QStringList& arguments) {
    return test::run_meshscope(arguments, 60000, fixtures);
}

// The fixtures' faults (tests/records/fixtures/*/README.md), in core's words for them (tst_diagnose holds those):
// - fr/skip: rank 6 of the 8-rank job (dp 8, ep 4) skips the all_reduce at seq 2 of its ep group [4, 5, 6, 7] and
//   goes on to the world group's seq 3, which ranks 4, 5 and 7, still waiting in the ep group, never enter;
// - nccl-logs/v2.29-per-rank: rank 5 splits efsdp with color 0, so NCCL builds [0, 4, 5] and [1] where the plan has
//   [0, 4] and [1, 5]: two communicators not in the plan, at ranks 5 and 1.
// The monitor's order (kind, first rank): records/1 [1], records/2 [5], records/3 [4, 5, 7], records/4 [6].
const QStringList import_args = {"import", "fr/skip/json", "nccl-logs/v2.29-per-rank", "--dp", "8", "--ep", "4"};
const QString ep_stuck =
    "the ep group 1 [4, 5, 6, 7] is stuck at seq 2 (all_reduce): rank 6 never entered it; ranks "
    "4, 5, 7 entered it; rank 6 last recorded default_pg seq 3 (all_reduce) (Flight Recorder)";
const QString split_message =
    "the communicator commId 0x7c0ffee0d15ea5e1 split 1 color 0 (3 ranks) [0, 4, 5] is not a "
    "group of the plan (dp, cp, ep) = (8, 1, 4); the nearest is efsdp group 0 [0, 4] (2 "
    "shared) (NCCL log)";

QJsonArray findings_of(QNetworkAccessManager& nam, const QString& url, const QString& job) {
    return test::http(nam, "GET", url + "/api/v1/jobs/" + job + "/findings").json().value("findings").toArray();
}

QJsonObject finding(const QJsonArray& findings, const QString& id) {
    for (const auto& f : findings)
        if (f.toObject().value("id").toString() == id) return f.toObject();
    return {};
}
}  // namespace

class RecordsImportTest : public QObject {
    Q_OBJECT
private slots:
    void import_shows_findings_with_sources() {
        QTemporaryDir dir;
        test::ServeProcess serve({"--db", dir.filePath("h.db")});
        QVERIFY2(serve.port(), serve.errors().constData());
        const auto run = run_in_fixtures(import_args + QStringList{"--target", serve.url(), "--job", "skip"});
        QCOMPARE(run.err, QByteArray());
        QCOMPARE(run.out, "imported 5 findings and 8 ranks into job \"skip\" at " + serve.url().toUtf8() + "\n");
        QCOMPARE(run.exit_code, 0);

        QNetworkAccessManager nam;
        const QJsonArray findings = findings_of(nam, serve.url(), "skip");
        QCOMPARE(findings.size(), 5);
        QStringList kinds;
        for (const auto& f : findings)
            kinds << f.toObject().value("id").toString() + " " + f.toObject().value("kind").toString();
        // the verdict first (rank 6 skipped its ep all_reduce), its consequences numbered after it
        QCOMPARE(kinds,
                 (QStringList{"records/1 verdict", "records/4 group_disagreement", "records/5 group_disagreement",
                              "records/2 collective_stuck", "records/3 collective_stuck"}));
        QCOMPARE(finding(findings, "records/1").value("ranks").toArray(), (QJsonArray{6}));
        const QJsonObject stuck = finding(findings, "records/3");
        QCOMPARE(stuck.value("ranks").toArray(), (QJsonArray{6}));
        QCOMPARE(stuck.value("message").toString(), ep_stuck);
        QCOMPARE(stuck.value("sources").toArray(), (QJsonArray{"fr/skip/json/nccl_trace_rank_6.json"}));
        QCOMPARE(stuck.value("from").toString(), QString("From: fr/skip/json/nccl_trace_rank_6.json"));
        const QJsonObject split = finding(findings, "records/5");
        QCOMPARE(split.value("ranks").toArray(), (QJsonArray{5}));
        QCOMPARE(split.value("message").toString(), split_message);
        QCOMPARE(split.value("from").toString(),
                 QString("From: nccl-logs/v2.29-per-rank/node0.41000:6, nccl-logs/v2.29-per-rank/node1.41004:6, "
                         "nccl-logs/v2.29-per-rank/node1.41005:6"));
        QCOMPARE(finding(findings, "records/2").value("ranks").toArray(), (QJsonArray{4, 5, 7}));

        // The ranks the records name, with the host and pid of the NCCL process that was each.
        const auto rank5 = test::http(nam, "GET", serve.url() + "/api/v1/jobs/skip/ranks/5").json();
        QCOMPARE(rank5.value("host").toString(), QString("node1"));
        QCOMPARE(rank5.value("pid").toInt(), 41005);
        QCOMPARE(rank5.value("findings").toArray(), (QJsonArray{"group_disagreement", "collective_stuck"}));
        const auto job = test::http(nam, "GET", serve.url() + "/api/v1/jobs/skip").json();
        QCOMPARE(job.value("ranks_seen").toInt(), 8);
        QCOMPARE(job.value("findings").toInt(), 5);
    }

    void import_survives_restart_and_is_replaced() {
        QTemporaryDir dir;
        QJsonArray before;
        QNetworkAccessManager nam;
        {
            test::ServeProcess serve({"--db", dir.filePath("h.db")});
            QVERIFY(serve.port());
            QCOMPARE(run_in_fixtures(import_args + QStringList{"--target", serve.url(), "--job", "j"}).exit_code, 0);
            before = findings_of(nam, serve.url(), "j");
            QCOMPARE(before.size(), 5);
        }
        test::ServeProcess serve({"--db", dir.filePath("h.db")});
        QVERIFY(serve.port());
        QCOMPARE(findings_of(nam, serve.url(), "j"), before);

        // A second import of the job replaces the first: only the NCCL 2.26 log's fault is left (rank 6 never
        // starts its ep split; ranks 4, 5, 7 start ep group 1 and abort).
        const auto again = run_in_fixtures(
            {"import", "nccl-logs/v2.26-mpirun.log", "--dp", "8", "--ep", "4", "--target", serve.url(), "--job", "j"});
        QCOMPARE(again.exit_code, 0);
        const QJsonArray after = findings_of(nam, serve.url(), "j");
        QCOMPARE(after.size(), 2);
        QCOMPARE(after[0].toObject().value("kind").toString(), QString("verdict"));
        QCOMPARE(after[1].toObject().value("id").toString(), QString("records/2"));
        QCOMPARE(after[1].toObject().value("kind").toString(), QString("communicator_not_formed"));
        QCOMPARE(after[1].toObject().value("ranks").toArray(), (QJsonArray{6}));
        serve.stop();
        test::ServeProcess third({"--db", dir.filePath("h.db")});
        QCOMPARE(findings_of(nam, third.url(), "j"), after);
    }

    void hook_events_and_records_share_a_job() {
        QTemporaryDir dir;
        test::ServeProcess serve({"--db", dir.filePath("h.db")});
        QVERIFY(serve.port());
        QNetworkAccessManager nam;
        // Rank 0 reports through the hook that it failed.
        const QByteArray event =
            R"({"schema":"meshscope.event/1","job":"both","rank":0,"world_size":8,"phase":"launch","status":"failed",)"
            R"("host":"hooked","pid":7})";
        QCOMPARE(test::http(nam, "POST", serve.url() + "/api/v1/events", event).status, 200);
        QCOMPARE(run_in_fixtures(import_args + QStringList{"--target", serve.url(), "--job", "both"}).exit_code, 0);
        const QJsonArray findings = findings_of(nam, serve.url(), "both");
        QStringList ids;
        for (const auto& f : findings) ids << f.toObject().value("id").toString();
        QCOMPARE(ids, (QStringList{"records/1", "records/4", "records/5", "rank_error/0", "records/2", "records/3"}));
        // The hook's own report of rank 0's process stands; rank 1's comes from the records.
        QCOMPARE(test::http(nam, "GET", serve.url() + "/api/v1/jobs/both/ranks/0").json().value("host").toString(),
                 QString("hooked"));
        QCOMPARE(test::http(nam, "GET", serve.url() + "/api/v1/jobs/both/ranks/1").json().value("host").toString(),
                 QString("node0"));
    }

    // A job with only records has the world its records (or the plan they were diagnosed on) establish; the ranks
    // they name are seen but in no state a hook told, so they count as pending beside the ranks never seen, and
    // the states add up to the world. Worked out by hand from each body.
    void records_only_job_world_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("world_size");
        QTest::addColumn<int>("ranks_seen");
        QTest::addColumn<int>("pending");
        QTest::addRow("world_size given") << QByteArray(R"({"format":"meshscope.records/1","findings":[],)"
                                                        R"("ranks":[{"rank":3},{"rank":5}],"world_size":16})")
                                          << 16 << 2 << 16;
        QTest::addRow("ranks only") << QByteArray(R"({"format":"meshscope.records/1","findings":[],)"
                                                  R"("ranks":[{"rank":3},{"rank":5}]})")
                                    << 6 << 2 << 6;
        QTest::addRow("a finding names a higher rank")
            << QByteArray(R"({"format":"meshscope.records/1","findings":[{"kind":"rank_error","message":"m",)"
                          R"("ranks":[9]}],"ranks":[{"rank":3}]})")
            << 10 << 1 << 10;
    }
    void records_only_job_world() {
        QFETCH(QByteArray, body);
        QTemporaryDir dir;
        test::ServeProcess serve({"--db", dir.filePath("h.db")});
        QVERIFY(serve.port());
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", serve.url() + "/api/v1/jobs/r/records", body).status, 200);
        const auto check = [&](const QString& url) {
            const auto job = test::http(nam, "GET", url + "/api/v1/jobs").json().value("jobs").toArray()[0].toObject();
            QTEST(job.value("world_size").toInt(), "world_size");
            QTEST(job.value("ranks_seen").toInt(), "ranks_seen");
            const QJsonObject states = job.value("states").toObject();
            QTEST(states.value("pending").toInt(), "pending");
            for (const char* state : {"initializing", "ready", "failed", "stale", "exited"})
                QCOMPARE(states.value(state).toInt(), 0);
            QCOMPARE(job.value("findings_by_kind").toObject().value("missing_rank").toInt(), 0);
        };
        check(serve.url());
        if (QTest::currentTestFailed()) return;
        serve.stop();
        test::ServeProcess again({"--db", dir.filePath("h.db")});  // the same when replayed
        check(again.url());
    }

    // Ranks known from records alone are all pending and named by the same findings (none here), yet each has its
    // own hang position: the ranks page gives every rank the position its records sent, as the rank's own answer
    // does; rank 3, which the records do not place, has none (the template of the ranks never seen).
    void records_only_ranks_keep_their_positions() {
        QTemporaryDir dir;
        test::ServeProcess serve({"--db", dir.filePath("h.db")});
        QVERIFY(serve.port());
        QNetworkAccessManager nam;
        const QJsonObject sent[] = {
            QJsonObject{{"standing", "waiting"},
                        {"dim", "ep"},
                        {"group", 0},
                        {"seq", 2},
                        {"op", "all_to_all"},
                        {"label", "ep group 0 [0, 1]"}},
            QJsonObject{{"standing", "waiting"},
                        {"dim", "dp"},
                        {"group", 1},
                        {"seq", 3},
                        {"op", "all_reduce"},
                        {"label", "dp group 1 [1, 3]"}},
            QJsonObject{{"standing", "no_record"}, {"root_cause", true}},
            QJsonObject{},
        };
        QJsonArray ranks;
        for (int rank = 0; rank < 3; ++rank) ranks.append(QJsonObject{{"rank", rank}, {"position", sent[rank]}});
        const QByteArray body =
            QJsonDocument(
                QJsonObject{
                    {"format", "meshscope.records/1"}, {"findings", QJsonArray{}}, {"world_size", 4}, {"ranks", ranks}})
                .toJson(QJsonDocument::Compact);
        QCOMPARE(test::http(nam, "POST", serve.url() + "/api/v1/jobs/p/records", body).status, 200);
        const QJsonArray page = test::http(nam, "GET", serve.url() + "/api/v1/jobs/p/ranks").json()["ranks"].toArray();
        QCOMPARE(page.size(), 4);
        for (int rank = 0; rank < 4; ++rank) {
            QCOMPARE(page[rank].toObject()["rank"].toInt(), rank);
            QCOMPARE(page[rank].toObject()["position"].toObject(), sent[rank]);
            QCOMPARE(page[rank].toObject().contains("position"), rank < 3);
            const auto one = test::http(nam, "GET", serve.url() + "/api/v1/jobs/p/ranks/" + QString::number(rank));
            QCOMPARE(one.json()["position"].toObject(), sent[rank]);
        }
    }

    void records_world_until_the_hook_reports() {
        QTemporaryDir dir;
        test::ServeProcess serve({"--db", dir.filePath("h.db")});
        QVERIFY(serve.port());
        QNetworkAccessManager nam;
        // Records of ranks 4-7 of a world of 8 (as diagnosed on a plan): ranks 0-3 never seen, 4-7 seen by the
        // records only, all eight pending, none missing.
        const QByteArray records = R"({"format":"meshscope.records/1","findings":[],"world_size":8,)"
                                   R"("ranks":[{"rank":4},{"rank":5},{"rank":6},{"rank":7}]})";
        QCOMPARE(test::http(nam, "POST", serve.url() + "/api/v1/jobs/w/records", records).status, 200);
        const auto counts = [&] {
            const auto job = test::http(nam, "GET", serve.url() + "/api/v1/jobs/w").json();
            const auto states = job.value("states").toObject();
            return QList<int>{job.value("world_size").toInt(), job.value("ranks_seen").toInt(),
                              states.value("pending").toInt(), states.value("initializing").toInt()};
        };
        QCOMPARE(counts(), (QList<int>{8, 4, 8, 0}));
        // The hook reports rank 0 (never seen) and rank 4 (seen in the records): their states are the hook's.
        for (const int rank : {0, 4}) {
            const QByteArray event = QJsonDocument(QJsonObject{{"schema", "meshscope.event/1"},
                                                               {"job", "w"},
                                                               {"rank", rank},
                                                               {"world_size", 8},
                                                               {"phase", "launch"},
                                                               {"status", "started"}})
                                         .toJson(QJsonDocument::Compact);
            QCOMPARE(test::http(nam, "POST", serve.url() + "/api/v1/events", event).status, 200);
        }
        QCOMPARE(counts(), (QList<int>{8, 5, 6, 2}));
    }

    // A collector that sheds load is asked again after its Retry-After, at most --retry-wait-max, --retries times.
    void import_gives_up_after_its_retries_data() {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("err");
        const QString busy =
            "meshscope import: the collector at %URL% is busy (HTTP 503): collector busy: try again "
            "later; sending again in ";
        const QString refused =
            "meshscope import: the collector at %URL% refused the records (HTTP 503): collector busy: try again later";
        QTest::addRow("two retries, capped") << QStringList{"--retries", "2", "--retry-wait-max", "0.1"}
                                             << busy + "0.1 s (retry 1 of 2)\n" + busy + "0.1 s (retry 2 of 2)\n" +
                                                    refused + "; gave up after 2 retries\n";
        QTest::addRow("one retry, Retry-After 1")
            << QStringList{"--retries", "1"} << busy + "1 s (retry 1 of 1)\n" + refused + "; gave up after 1 retry\n";
        QTest::addRow("no retry") << QStringList{"--retries", "0"} << refused + "; try again in 1 s\n";
    }
    void import_gives_up_after_its_retries() {
        QFETCH(QStringList, flags);
        QFETCH(QString, err);
        QTemporaryDir dir;
        test::ServeProcess serve({"--db", dir.filePath("h.db"), "--shed-all-at", "0"});
        QVERIFY(serve.port());
        const auto run = run_in_fixtures(import_args + QStringList{"--target", serve.url(), "--job", "j"} + flags);
        QCOMPARE(QString::fromUtf8(run.err), err.replace("%URL%", serve.url()));
        QCOMPARE(run.out, QByteArray());
        QCOMPARE(run.exit_code, 1);
    }

    void import_lands_once_the_collector_has_room() {
        QTemporaryDir dir;
        // --max-jobs 1 and a live job: the import's job is refused (Retry-After 30) until that job ends.
        test::ServeProcess serve({"--db", dir.filePath("h.db"), "--max-jobs", "1"});
        QVERIFY(serve.port());
        QNetworkAccessManager nam;
        const auto event = [](const QString& phase, const QString& status) {
            return QJsonDocument(QJsonObject{{"schema", "meshscope.event/1"},
                                             {"job", "live"},
                                             {"rank", 0},
                                             {"world_size", 1},
                                             {"phase", phase},
                                             {"status", status}})
                .toJson(QJsonDocument::Compact);
        };
        QCOMPARE(test::http(nam, "POST", serve.url() + "/api/v1/events", event("launch", "started")).status, 200);
        QProcess import;
        import.setWorkingDirectory(fixtures);
        import.start(MESHSCOPE_BIN,
                     import_args + QStringList{"--target", serve.url(), "--job", "later", "--retry-wait-max", "0.5"});
        QByteArray err;
        QVERIFY(test::eventually([&] {
            err += import.readAllStandardError();
            return err.contains("(retry 1 of 5)\n");
        }));
        QCOMPARE(QString::fromUtf8(err),
                 "meshscope import: the collector at " + serve.url() +
                     " is busy (HTTP 503): collector busy: 1 jobs are live and none has finished (--max-jobs); "
                     "sending again in 0.5 s (retry 1 of 5)\n");
        QCOMPARE(test::http(nam, "POST", serve.url() + "/api/v1/events", event("exit", "done")).status, 200);
        QVERIFY(import.waitForFinished(30000));
        QCOMPARE(import.exitCode(), 0);
        QCOMPARE(import.readAllStandardOutput(),
                 "imported 5 findings and 8 ranks into job \"later\" at " + serve.url().toUtf8() + "\n");
        QCOMPARE(findings_of(nam, serve.url(), "later").size(), 5);
    }

    void command_errors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exit_code");
        QTest::addColumn<QString>("err");
        const QString hint =
            "hint: meshscope import PATH... --target URL [--job NAME] [--token T] [--timeout S] [--retries N] "
            "[--retry-wait-max S] [--plan FILE | --dp D [--cp C] [--ep E]]\n";
        QTest::addRow("unreachable") << QStringList{"import", "fr/skip/json", "--target", "http://127.0.0.1:1"} << 1
                                     << "meshscope import: cannot reach the collector at http://127.0.0.1:1: "
                                        "Couldn't connect to server\n";
        QTest::addRow("wrong token") << QStringList{"import", "fr/skip/json", "--target", "%URL%", "--token", "nope"}
                                     << 1
                                     << "meshscope import: the collector at %URL% refused the records (HTTP 401): "
                                        "missing or wrong bearer token\n";
        QTest::addRow("no records") << QStringList{"import", "fr/README.md", "--target", "%URL%"} << 2
                                    << "meshscope import: no NCCL init line, Flight Recorder dump or RAS status "
                                       "found in 1 path: nothing sent to %URL%\n"
                                       "hint: give NCCL_DEBUG=INFO logs, TORCH_FR_DUMP_TEMP_FILE dumps or `ncclras "
                                       "-f json` output\n";
        QTest::addRow("bad path") << QStringList{"import", "/nonexistent/records", "--target", "%URL%"} << 2
                                  << "meshscope import: /nonexistent/records: no such file or directory\n"
                                     "meshscope import: no NCCL init line, Flight Recorder dump or RAS status "
                                     "found in 1 path: nothing sent to %URL%\n"
                                     "hint: give NCCL_DEBUG=INFO logs, TORCH_FR_DUMP_TEMP_FILE dumps or `ncclras "
                                     "-f json` output\n";
        QTest::addRow("no target") << QStringList{"import", "fr/skip/json"} << 2
                                   << "meshscope import: --target is required\n" + hint;
        QTest::addRow("target not a URL") << QStringList{"import", "fr/skip/json", "--target", "localhost:7077"} << 2
                                          << "meshscope import: --target must be an http:// or https:// URL, got "
                                             "'localhost:7077'\n" +
                                                 hint;
        QTest::addRow("bad retry wait") << QStringList{"import", "fr/skip/json",     "--target",
                                                       "%URL%",  "--retry-wait-max", "-1"}
                                        << 2
                                        << "meshscope import: --retry-wait-max must be from 0 to 3600 seconds\n" + hint;
        QTest::addRow("bad retries") << QStringList{"import", "fr/skip/json", "--target", "%URL%", "--retries", "101"}
                                     << 2 << "meshscope import: --retries: Value 101 not in range 0 to 100\n" + hint;
        QTest::addRow("bad job name") << QStringList{"import", "fr/skip/json", "--target", "%URL%", "--job", "a b"} << 2
                                      << "meshscope import: --job must be 1 to 128 characters of A-Z, a-z, 0-9 and "
                                         "._-:@+=, got 'a b'\n" +
                                             hint;
    }
    void command_errors() {
        QFETCH(QStringList, args);
        QFETCH(QString, err);
        QTemporaryDir dir;
        test::ServeProcess serve({"--db", dir.filePath("h.db"), "--token", "secret"});
        QVERIFY(serve.port());
        args.replaceInStrings("%URL%", serve.url());
        const auto run = run_in_fixtures(args);
        QCOMPARE(QString::fromUtf8(run.err), err.replace("%URL%", serve.url()));
        QCOMPARE(run.out, QByteArray());
        QTEST(run.exit_code, "exit_code");
    }

    void endpoint_refusals_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("error");
        const QString records = "/api/v1/jobs/j/records";
        QTest::addRow("GET") << QByteArray("GET") << records << QByteArray() << 405 << "use POST";
        QTest::addRow("bad job name") << QByteArray("POST") << "/api/v1/jobs/a%20b/records"
                                      << QByteArray(R"({"format":"meshscope.records/1","findings":[]})") << 400
                                      << "the job name must be 1 to 128 characters of A-Z, a-z, 0-9 and ._-:@+=";
        QTest::addRow("not JSON") << QByteArray("POST") << records << QByteArray("{") << 400
                                  << "invalid JSON: parse error at line 1, column 2: syntax error while parsing "
                                     "object key - unexpected end of input; expected string literal";
        QTest::addRow("not an object") << QByteArray("POST") << records << QByteArray("[]") << 400
                                       << "the body must be a JSON object: a meshscope.records/1 document";
        QTest::addRow("no format") << QByteArray("POST") << records << QByteArray(R"({"findings":[]})") << 400
                                   << R"(field "format" must be "meshscope.records/1")";
        QTest::addRow("no findings") << QByteArray("POST") << records
                                     << QByteArray(R"({"format":"meshscope.records/1"})") << 400
                                     << R"(field "findings" is required)";
        QTest::addRow("bad kind") << QByteArray("POST") << records
                                  << QByteArray(R"({"format":"meshscope.records/1","findings":[{"kind":"bad",)"
                                                R"("message":"m"}]})")
                                  << 400
                                  << R"(field "findings[0].kind" must be a finding kind (verdict, topology_mismatch, )"
                                     "group_disagreement, missing_rank, duplicate_rank, straggler, stale_rank, "
                                     "rank_error, reinit_mismatch, slow_group, communicator_not_formed, "
                                     "creation_order_mismatch, collective_mismatch, collective_stuck, "
                                     "peer_unreachable)";
        QTest::addRow("repeated rank") << QByteArray("POST") << records
                                       << QByteArray(R"({"format":"meshscope.records/1","findings":[{"kind":)"
                                                     R"("rank_error","message":"m","ranks":[3,3]}]})")
                                       << 400
                                       << R"(field "findings[0].ranks" must be an array of distinct ranks from 0 )"
                                          "to 1048575";
        QTest::addRow("source not a string")
            << QByteArray("POST") << records
            << QByteArray(R"({"format":"meshscope.records/1","findings":[{"kind":"rank_error","message":"m",)"
                          R"("sources":[1]}]})")
            << 400 << R"(field "findings[0].sources" must be an array of at most 64 strings of at most 8192 bytes)";
        QTest::addRow("bad pid") << QByteArray("POST") << records
                                 << QByteArray(R"({"format":"meshscope.records/1","findings":[],"ranks":[{"rank":)"
                                               R"(0,"pid":-1}]})")
                                 << 400 << R"(field "ranks[0].pid" must be an integer from 0 to 2147483647)";
        QTest::addRow("bad world") << QByteArray("POST") << records
                                   << QByteArray(R"({"format":"meshscope.records/1","findings":[],"world_size":0})")
                                   << 400 << R"(field "world_size" must be an integer from 1 to 1048576)";
        QTest::addRow("deep") << QByteArray("POST") << records << QByteArray(100, '[') << 400
                              << "invalid JSON: nested deeper than 64 levels";
    }
    void endpoint_refusals() {
        QFETCH(QByteArray, method);
        QFETCH(QString, path);
        QFETCH(QByteArray, body);
        QTemporaryDir dir;
        test::ServeProcess serve({"--db", dir.filePath("h.db")});
        QVERIFY(serve.port());
        QNetworkAccessManager nam;
        const auto reply = test::http(nam, method, serve.url() + path, body);
        QTEST(reply.status, "status");
        QTEST(reply.error(), "error");
        // Nothing was imported.
        QCOMPARE(test::http(nam, "GET", serve.url() + "/api/v1/jobs").json().value("jobs").toArray().size(), 0);
    }

    void endpoint_caps_and_shedding() {
        QTemporaryDir dir;
        QNetworkAccessManager nam;
        const QByteArray one = R"({"format":"meshscope.records/1","findings":[],"ranks":[{"rank":3}]})";
        {
            // --max-jobs 1: a second live job is refused with Retry-After (the first has a rank initializing).
            test::ServeProcess serve({"--db", dir.filePath("a.db"), "--max-jobs", "1"});
            const QByteArray event =
                R"({"schema":"meshscope.event/1","job":"live","rank":0,"world_size":2,"phase":"launch",)"
                R"("status":"started"})";
            QCOMPARE(test::http(nam, "POST", serve.url() + "/api/v1/events", event).status, 200);
            const auto reply = test::http(nam, "POST", serve.url() + "/api/v1/jobs/other/records", one);
            QCOMPARE(reply.status, 503);
            QCOMPARE(reply.error(), QString("collector busy: 1 jobs are live and none has finished (--max-jobs)"));
            QCOMPARE(reply.header("Retry-After"), QByteArray("30"));
        }
        {
            // --max-ranks 2: records listing three ranks bring three; one listed rank (of a world of 4) fits.
            test::ServeProcess serve({"--db", dir.filePath("b.db"), "--max-ranks", "2"});
            const QByteArray three =
                R"({"format":"meshscope.records/1","findings":[],"ranks":[{"rank":1},{"rank":2},{"rank":3}]})";
            const auto reply = test::http(nam, "POST", serve.url() + "/api/v1/jobs/big/records", three);
            QCOMPARE(reply.status, 503);
            QCOMPARE(reply.error(), QString("collector busy: the live jobs' reporting ranks would pass 2 and none "
                                            "has finished (--max-ranks)"));
            QCOMPARE(test::http(nam, "POST", serve.url() + "/api/v1/jobs/small/records", one).status, 200);
        }
        {
            // Past the high watermark every body is shed, records too.
            test::ServeProcess serve({"--db", dir.filePath("c.db"), "--shed-all-at", "0"});
            const auto reply = test::http(nam, "POST", serve.url() + "/api/v1/jobs/j/records", one);
            QCOMPARE(reply.status, 503);
            QCOMPARE(reply.error(), QString("collector busy: try again later"));
            QCOMPARE(reply.header("Retry-After"), QByteArray("1"));
        }
    }
};

QTEST_GUILESS_MAIN(RecordsImportTest)
#include "tst_records_import.moc"
