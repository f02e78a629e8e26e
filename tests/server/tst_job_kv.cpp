// The collector's per-job rendezvous store (server/http/job_kv.h): set and get, 404 until set, the exact
// refusals, and every bound (value size, keys and bytes per job, jobs), with small limits worked by hand.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "http/job_kv.h"

using meshscope::server::HttpReply;
using meshscope::server::JobKv;
using meshscope::server::JobKvLimits;

namespace {
// "404 no key ..." for a refusal ({"error": ...}), "200 {...}" otherwise.
QString text(const HttpReply& reply) {
    const auto body = nlohmann::json::parse(reply.body, nullptr, false);
    const std::string shown =
        body.is_object() && body.contains("error") ? body["error"].get<std::string>() : reply.body;
    return QString::number(reply.status) + " " + QString::fromStdString(shown);
}
}  // namespace

class TestJobKv : public QObject {
    Q_OBJECT
private slots:
    void sets_and_gets() {
        JobKv kv;
        QCOMPARE(text(kv.answer("GET", "job-1", "plan.0", "")), "404 no key \"plan.0\" in job \"job-1\"'s store yet");
        QCOMPARE(text(kv.answer("PUT", "job-1", "plan.0", std::string("a\0b", 3))), "200 {\"stored\":3}");
        const HttpReply got = kv.answer("GET", "job-1", "plan.0", "");
        QCOMPARE(got.status, 200);
        QCOMPARE(got.body, std::string("a\0b", 3));
        QCOMPARE(got.content_type, std::string("application/octet-stream"));
        // Jobs do not see each other's keys; a second PUT replaces the value.
        QCOMPARE(kv.answer("GET", "job-2", "plan.0", "").status, 404);
        QCOMPARE(text(kv.answer("PUT", "job-1", "plan.0", "xy")), "200 {\"stored\":2}");
        QCOMPARE(kv.answer("GET", "job-1", "plan.0", "").body, std::string("xy"));
    }

    void refuses_data() {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("job");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("answer");
        QTest::addRow("method") << "POST"
                                << "j"
                                << "k"
                                << "405 use GET or PUT";
        QTest::addRow("job chars") << "GET"
                                   << "j/1"
                                   << "k"
                                   << "400 job must be 1 to 128 characters of A-Z, a-z, 0-9 and ._-:@+=";
        QTest::addRow("key empty") << "PUT"
                                   << "j"
                                   << ""
                                   << "400 key must be 1 to 256 characters of A-Z, a-z, 0-9 and ._-:@+=";
        QTest::addRow("key long") << "PUT"
                                  << "j" << QString(257, 'k')
                                  << "400 key must be 1 to 256 characters of A-Z, a-z, 0-9 and ._-:@+=";
    }
    void refuses() {
        QFETCH(QString, method);
        QFETCH(QString, job);
        QFETCH(QString, key);
        QFETCH(QString, answer);
        JobKv kv;
        const HttpReply reply = kv.answer(method.toStdString(), job.toStdString(), key.toStdString(), "v");
        QCOMPARE(text(reply), answer);
        if (reply.status == 405) QCOMPARE(reply.headers.at(0).second, std::string("GET, PUT"));
    }

    void holds_its_bounds() {
        JobKvLimits limits;
        limits.max_value_bytes = 4;
        limits.max_keys_per_job = 2;
        limits.max_bytes_per_job = 10;  // key + value bytes
        limits.max_jobs = 2;
        limits.evict_after = std::chrono::seconds{3600};
        JobKv kv(limits);
        QCOMPARE(text(kv.answer("PUT", "a", "k1", "12345")), "413 a value holds at most 4 bytes");
        QCOMPARE(kv.answer("PUT", "a", "k1", "1234").status, 200);  // 2 + 4 = 6 bytes
        // 6 + 2 + 3 = 11 > 10.
        QCOMPARE(text(kv.answer("PUT", "a", "k2", "123")), "507 job \"a\"'s store holds 10 bytes already");
        QCOMPARE(kv.answer("PUT", "a", "k2", "12").status, 200);  // 6 + 4 = 10
        QCOMPARE(text(kv.answer("PUT", "a", "k3", "")), "507 job \"a\"'s store holds 2 keys already");
        // Replacing a value counts the new size only: k1 "1234" -> "12" frees 2 bytes.
        QCOMPARE(kv.answer("PUT", "a", "k1", "12").status, 200);
        QCOMPARE(kv.answer("PUT", "b", "k", "1").status, 200);
        QCOMPARE(text(kv.answer("PUT", "c", "k", "1")),
                 "507 the key-value store holds 2 jobs already; try again later");
    }

    void a_quiet_job_makes_room() {
        JobKvLimits limits;
        limits.max_jobs = 1;
        limits.evict_after = std::chrono::seconds{0};
        JobKv kv(limits);
        QCOMPARE(kv.answer("PUT", "old", "k", "1").status, 200);
        QCOMPARE(kv.answer("PUT", "new", "k", "2").status, 200);
        QCOMPARE(kv.answer("GET", "old", "k", "").status, 404);
        QCOMPARE(kv.answer("GET", "new", "k", "").body, std::string("2"));
    }
};

QTEST_GUILESS_MAIN(TestJobKv)
#include "tst_job_kv.moc"
