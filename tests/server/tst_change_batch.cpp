// ChangeBatch: what one window of the stream sends. Successive rank_changed of one (job, rank) collapse to the
// last, placed where the last arrived; other changes are kept in order. Expected messages are written by hand
// from docs/live-at-scale.md and the stream's contract (docs/collector.md).
#include <QtTest>

#include <string>
#include <vector>

#include "http/change_batch.h"

using namespace meshscope;
using namespace meshscope::server;

namespace {
Change rank_change(const char* job, std::int64_t rank, RankStateKind state) {
    Change c;
    c.kind = ChangeKind::rank_changed;
    c.job = job;
    c.rank = rank;
    c.state = state;
    return c;
}

Change job_added(const char* job) {
    Change c;
    c.kind = ChangeKind::job_added;
    c.job = job;
    return c;
}

// The change as the batch writes it, named so that an expected message reads like the window it came from.
std::string r(const char* job, int rank, const char* state) {
    return std::string(R"({"job":")") + job + R"(","rank":)" + std::to_string(rank) + R"(,"state":")" + state +
           R"(","type":"rank_changed"})";
}
}  // namespace

Q_DECLARE_METATYPE(std::vector<Change>)

class ChangeBatchTest : public QObject {
    Q_OBJECT
private slots:
    void messages_data() {
        using K = RankStateKind;
        QTest::addColumn<std::vector<Change>>("changes");
        QTest::addColumn<QString>("expected");
        QTest::addRow("one change") << std::vector{rank_change("j", 3, K::ready)}
                                    << QString::fromStdString(R"({"type":"changes","seq":7,"changes":[)" +
                                                              r("j", 3, "ready") + "]}");
        QTest::addRow("a rank's changes collapse to the last, in its place")
            << std::vector{rank_change("j", 1, K::initializing), rank_change("j", 2, K::initializing),
                           rank_change("j", 1, K::ready)}
            << QString::fromStdString(R"({"type":"changes","seq":7,"changes":[)" + r("j", 2, "initializing") + "," +
                                      r("j", 1, "ready") + "]}");
        QTest::addRow("the same rank of two jobs is two ranks")
            << std::vector{rank_change("a", 0, K::ready), rank_change("b", 0, K::failed)}
            << QString::fromStdString(R"({"type":"changes","seq":7,"changes":[)" + r("a", 0, "ready") + "," +
                                      r("b", 0, "failed") + "]}");
        QTest::addRow("other changes are never collapsed")
            << std::vector{job_added("j"), rank_change("j", 0, K::initializing), job_added("j"),
                           rank_change("j", 0, K::ready)}
            << QString::fromStdString(R"({"type":"changes","seq":7,"changes":[{"job":"j","type":"job_added"},)"
                                      R"({"job":"j","type":"job_added"},)" +
                                      r("j", 0, "ready") + "]}");
    }
    void messages() {
        QFETCH(std::vector<Change>, changes);
        QFETCH(QString, expected);
        ChangeBatch batch;
        for (const Change& c : changes) batch.add(c, change_text(c));
        const auto message = batch.take_message(7);
        QVERIFY(message);
        QCOMPARE(QString::fromStdString(*message), expected);
        QVERIFY(batch.empty());
        QVERIFY(!batch.take_message(8));  // the batch emptied: the next window starts afresh
    }

    void an_empty_window_sends_nothing() {
        ChangeBatch batch;
        QVERIFY(!batch.take_message(1));
    }

    void size_counts_what_will_be_sent() {
        ChangeBatch batch;
        for (int i = 0; i < 3; ++i) {
            const Change c = rank_change("j", 5, RankStateKind::initializing);
            batch.add(c, change_text(c));
        }
        QCOMPARE(batch.size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(ChangeBatchTest)
#include "tst_change_batch.moc"
