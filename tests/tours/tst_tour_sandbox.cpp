// The singleton pitfall's sandbox: FSDPTurbo's exact RuntimeError and ValueError texts (docs/domain.md, section
// 1), the three fixes (relaunch, reset, the same topology again), the call reader's refusals, the JSON the web
// page receives, and the sandbox check kind.
#include <QTest>

#include "meshscope/tour/tour.h"
#include "tour_test_support.h"

using namespace meshscope;

Q_DECLARE_METATYPE(meshscope::SandboxOutcome)
Q_DECLARE_METATYPE(std::vector<meshscope::SandboxCall>)

namespace {
SandboxCall init(std::int64_t dp, std::int64_t cp, std::int64_t ep) {
    return {SandboxOp::initialize, dp, cp, ep};
}
const SandboxCall reset{SandboxOp::reset};
const SandboxCall relaunch{SandboxOp::relaunch};

std::string outcomes(const std::vector<SandboxResult>& results) {
    std::string out;
    for (const auto& r : results) out += (out.empty() ? "" : " ") + std::string(to_string(r.outcome));
    return out;
}

nlohmann::json history(const std::vector<SandboxCall>& calls) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : calls) {
        nlohmann::json call = {{"op", std::string(to_string(c.op))}};
        if (c.op == SandboxOp::initialize) call.update({{"dp", c.dp}, {"cp", c.cp}, {"ep", c.ep}});
        out.push_back(call);
    }
    return {{"calls", out}};
}
}  // namespace

class TourSandboxTest : public QObject {
    Q_OBJECT
private slots:
    void replays_data() {
        QTest::addColumn<std::vector<SandboxCall>>("calls");
        QTest::addColumn<QString>("outcomes");
        QTest::addColumn<QString>("error");  // the last call's, "Type: message"
        QTest::addColumn<QString>("state");  // (dp, cp, ep) after the last call, or "none"
        QTest::addColumn<qint64>("efsdp");
        QTest::addRow("first") << std::vector{init(16, 1, 2)} << "initialized"
                               << ""
                               << "(16, 1, 2)" << qint64{8};
        QTest::addRow("again with another ep")
            << std::vector{init(16, 1, 2), init(16, 1, 4)} << "initialized error"
            << "RuntimeError: FSDPTurbo parallel state is already initialized with (16, 1, 2), got (16, 1, 4)."
            << "(16, 1, 2)" << qint64{8};
        QTest::addRow("ep does not divide dp") << std::vector{init(16, 1, 2), init(16, 1, 3)} << "initialized error"
                                               << "ValueError: dp_size must be divisible by ep_size, got 16 % 3 != 0."
                                               << "(16, 1, 2)" << qint64{8};
        QTest::addRow("ep zero") << std::vector{init(16, 1, 0)} << "error"
                                 << "ValueError: ep_size must be positive, got 0."
                                 << "none" << qint64{0};
        QTest::addRow("fix: relaunch") << std::vector{init(16, 1, 2), init(16, 1, 4), relaunch, init(16, 1, 4)}
                                       << "initialized error relaunched initialized"
                                       << ""
                                       << "(16, 1, 4)" << qint64{4};
        QTest::addRow("fix: reset") << std::vector{init(16, 1, 2), init(16, 1, 4), reset, init(16, 1, 4)}
                                    << "initialized error reset initialized"
                                    << ""
                                    << "(16, 1, 4)" << qint64{4};
        QTest::addRow("fix: same topology") << std::vector{init(16, 1, 2), init(16, 1, 2)} << "initialized unchanged"
                                            << ""
                                            << "(16, 1, 2)" << qint64{8};
        QTest::addRow("reset alone") << std::vector{init(8, 2, 2), reset} << "initialized reset"
                                     << ""
                                     << "none" << qint64{0};
        QTest::addRow("relaunch drops the state") << std::vector{init(8, 2, 2), relaunch} << "initialized relaunched"
                                                  << ""
                                                  << "none" << qint64{0};
        QTest::addRow("ep 1") << std::vector{init(16, 1, 1)} << "initialized"
                              << ""
                              << "(16, 1, 1)" << qint64{1};
    }
    void replays() {
        QFETCH(std::vector<SandboxCall>, calls);
        QFETCH(QString, outcomes);
        QFETCH(QString, error);
        QFETCH(QString, state);
        QFETCH(qint64, efsdp);
        const auto results = run_sandbox(calls);
        QCOMPARE(results.size(), calls.size());
        QCOMPARE(QString::fromStdString(::outcomes(results)), outcomes);
        const SandboxResult& last = results.back();
        QCOMPARE(last.error.has_value(), !error.isEmpty());
        if (last.error)
            QCOMPARE(
                QString::fromStdString(std::string(python_name(last.error->type())) + ": " + last.error->message()),
                error);
        QCOMPARE(QString::fromStdString(last.state ? last.state->tuple_string() : "none"), state);
        if (last.state) QCOMPARE(last.state->efsdp, efsdp);
    }

    // Every replay starts from a fresh state: an earlier replay's initialize does not leak into the next one.
    void fresh_per_replay() {
        (void)run_sandbox(std::vector{init(16, 1, 2)});
        QCOMPARE(QString::fromStdString(outcomes(run_sandbox(std::vector{init(16, 1, 4)}))), QString("initialized"));
    }

    void reads_calls_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        QTest::addRow("not calls") << R"({"history": []})"
                                   << "answer needs \"calls\", an array of sandbox calls";
        QTest::addRow("no op") << R"({"calls": [{"dp": 1}]})"
                               << "calls[0]: needs \"op\": initialize, reset or relaunch";
        QTest::addRow("unknown op") << R"({"calls": [{"op": "reset"}, {"op": "resett"}]})"
                                    << "calls[1]: unknown op \"resett\"";
        QTest::addRow("missing cp") << R"({"calls": [{"op": "initialize", "dp": 16, "ep": 2}]})"
                                    << "calls[0].cp: expected an integer";
        QTest::addRow("unknown key") << R"({"calls": [{"op": "initialize", "dp": 16, "cp": 1, "ep": 2, "world": 16}]})"
                                     << "calls[0]: unknown key \"world\"";
        QTest::addRow("reset arguments") << R"({"calls": [{"op": "reset", "dp": 1}]})"
                                         << "calls[0]: reset takes no arguments";
    }
    void reads_calls() {
        QFETCH(QString, json);
        QFETCH(QString, message);
        const auto calls = read_sandbox_calls(nlohmann::json::parse(json.toStdString()));
        QVERIFY(!calls);
        QCOMPARE(QString::fromStdString(calls.error().message()), message);
    }

    void round_trip() {
        const std::vector calls{init(16, 1, 2), init(16, 1, 4), reset};
        const auto read = read_sandbox_calls(history(calls));
        QVERIFY(read);
        QCOMPARE(read->size(), std::size_t{3});
        QCOMPARE((*read)[1].ep, std::int64_t{4});
        QCOMPARE(test::dump(to_json(*read, run_sandbox(*read))), test::dump(nlohmann::json::parse(R"({"results": [
            {"op": "initialize", "outcome": "initialized", "state": {"dp": 16, "cp": 1, "ep": 2, "efsdp": 8, "edp": 1}},
            {"op": "initialize", "outcome": "error",
             "error": {"type": "RuntimeError", "message": "FSDPTurbo parallel state is already initialized with (16, 1, 2), got (16, 1, 4)."},
             "state": {"dp": 16, "cp": 1, "ep": 2, "efsdp": 8, "edp": 1}},
            {"op": "reset", "outcome": "reset"}]})")));
    }

    void checks_data() {
        QTest::addColumn<QString>("check");
        QTest::addColumn<std::vector<SandboxCall>>("calls");
        QTest::addColumn<bool>("correct");
        QTest::addColumn<QString>("message");
        const char* after_relaunch = R"({"kind": "sandbox", "expect": "initialized", "after": "relaunch"})";
        const char* runtime = R"({"kind": "sandbox", "expect": "RuntimeError"})";
        QTest::addRow("relaunch fix") << after_relaunch
                                      << std::vector{init(16, 1, 2), init(16, 1, 4), relaunch, init(16, 1, 4)} << true
                                      << "Right: initialized after a relaunch that followed the failed call.";
        QTest::addRow("no failure yet") << after_relaunch << std::vector{init(16, 1, 4)} << false
                                        << "no call has failed yet: first reproduce the error, then fix it.";
        QTest::addRow("reset instead")
            << after_relaunch << std::vector{init(16, 1, 2), init(16, 1, 4), reset, init(16, 1, 4)} << false
            << "the last call's outcome is initialized, but no relaunch came after the last failed call.";
        QTest::addRow("still failing") << after_relaunch << std::vector{init(16, 1, 2), init(16, 1, 4)} << false
                                       << "the last call's outcome is RuntimeError, not initialized.";
        QTest::addRow("the error")
            << runtime << std::vector{init(16, 1, 2), init(16, 1, 4)} << true
            << "Right: RuntimeError: FSDPTurbo parallel state is already initialized with (16, 1, 2), got (16, 1, 4).";
        QTest::addRow("no error") << runtime << std::vector{init(16, 1, 2)} << false
                                  << "the last call's outcome is initialized, not RuntimeError.";
        QTest::addRow("no calls") << runtime << std::vector<SandboxCall>{} << false
                                  << "the sandbox has made no call yet.";
        QTest::addRow("unchanged") << R"({"kind": "sandbox", "expect": "unchanged"})"
                                   << std::vector{init(16, 1, 2), init(16, 1, 2)} << true
                                   << "Right: the last call's outcome is unchanged.";
    }
    void checks() {
        QFETCH(QString, check);
        QFETCH(std::vector<SandboxCall>, calls);
        QFETCH(bool, correct);
        QFETCH(QString, message);
        const TourStep step = test::last_step(
            R"({"title": "A", "text": "B", "view": {"page": "sandbox"}, "task": {"prompt": "P", "check": )" +
            check.toStdString() + "}}");
        const auto verdict = check_answer(step, history(calls));
        QVERIFY2(verdict, verdict ? "" : verdict.error().what());
        QCOMPARE(QString::fromStdString(verdict->message), message);
        QCOMPARE(verdict->correct, correct);
    }
};

QTEST_GUILESS_MAIN(TourSandboxTest)
#include "tst_tour_sandbox.moc"
