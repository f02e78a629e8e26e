// Every invalid plan input yields core's exact message and says what it is about (the input and the rule it
// breaks), set where the check is made: the front ends switch on these, never on the text. Messages are
// LlamaFactory's and FSDPTurbo's words from docs/domain.md (section 1) and the checks' own documented texts;
// inputs and rules are worked out by hand from which value a person has to change.
#include <QTest>

#include "meshscope/cost/cluster.h"
#include "meshscope/mesh/peer_layout.h"
#include "meshscope/mesh/plan_request.h"

using namespace meshscope;

namespace {
QString name_of(Input input) {
    return QString::fromUtf8(to_string(input).data(), static_cast<qsizetype>(to_string(input).size()));
}

QString name_of(Rule rule) {
    switch (rule) {
        case Rule::none: return QStringLiteral("none");
        case Rule::given: return QStringLiteral("given");
        case Rule::positive: return QStringLiteral("positive");
        case Rule::divides: return QStringLiteral("divides");
        case Rule::equals: return QStringLiteral("equals");
        case Rule::maximum: return QStringLiteral("maximum");
        case Rule::known: return QStringLiteral("known");
    }
    return QStringLiteral("?");
}

// "dp 8", "world 16", "dp 8 world 32", "nodes 2" or "" (neither): how the size is given.
PlanRequest request_of(const QString& sizes, std::int64_t cp, std::int64_t ep, std::int64_t mp_replicate,
                       std::int64_t mp_shard, std::int64_t gpus) {
    PlanRequest r;
    const QStringList words = sizes.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (qsizetype i = 0; i + 1 < words.size(); i += 2) {
        const std::int64_t value = words[i + 1].toLongLong();
        if (words[i] == QLatin1String("dp")) r.dp = value;
        if (words[i] == QLatin1String("world")) r.world = value;
        if (words[i] == QLatin1String("nodes")) r.nodes = value;
    }
    r.cp = cp;
    r.ep = ep;
    r.mp_replicate = mp_replicate;
    if (mp_shard != 0) r.mp_shard = mp_shard;
    r.gpus_per_node = gpus;
    return r;
}
}  // namespace

class TestPlanErrors : public QObject {
    Q_OBJECT

private slots:
    void plan_inputs_data() {
        QTest::addColumn<QString>("sizes");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<qint64>("mpReplicate");
        QTest::addColumn<qint64>("mpShard");  // 0: not given
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("rule");

        QTest::addRow("neither dp nor world") << "" << 1LL << 1LL << 1LL << 0LL << 8LL << "give dp or world"
                                              << "dp"
                                              << "given";
        QTest::addRow("dp and world disagree") << "dp 8 world 32" << 2LL << 1LL << 1LL << 0LL << 8LL
                                               << "dp_size * cp_size must equal to world_size, got 8 * 2 != 32."
                                               << "world"
                                               << "equals";
        QTest::addRow("dp 0") << "dp 0" << 1LL << 1LL << 1LL << 0LL << 8LL << "dp_size must be positive, got 0."
                              << "dp"
                              << "positive";
        QTest::addRow("cp 0 with dp") << "dp 8" << 0LL << 1LL << 1LL << 0LL << 8LL << "cp_size must be positive, got 0."
                                      << "cp"
                                      << "positive";
        QTest::addRow("cp 0 with world") << "world 12" << 0LL << 1LL << 1LL << 0LL << 8LL
                                         << "cp_size must be positive, got 0."
                                         << "cp"
                                         << "positive";
        QTest::addRow("cp does not divide world")
            << "world 16" << 3LL << 1LL << 1LL << 0LL << 8LL << "world_size (16) must be divisible by cp_size (3)."
            << "cp"
            << "divides";
        QTest::addRow("beyond the largest world")
            << "dp 1099511627776" << 2LL << 1LL << 1LL << 0LL << 8LL
            << "world_size (1099511627776 * 2) exceeds the supported maximum of 1099511627776."
            << "world"
            << "maximum";
        QTest::addRow("mp_replicate does not divide world")
            << "world 16" << 1LL << 1LL << 3LL << 0LL << 8LL
            << "world_size (16) must be divisible by mp_replicate_size (3)."
            << "mp_replicate"
            << "divides";
        QTest::addRow("mp_replicate 0") << "world 16" << 1LL << 1LL << 0LL << 0LL << 8LL
                                        << "mp_replicate_size must be positive, got 0."
                                        << "mp_replicate"
                                        << "positive";
        QTest::addRow("mp_shard disagrees")
            << "world 16" << 1LL << 1LL << 2LL << 4LL << 8LL
            << "mp_replicate_size * mp_shard_size must equal to world_size, got 2 * 4 != 16."
            << "mp_shard"
            << "equals";
        QTest::addRow("model mesh before ep") << "world 16" << 1LL << 3LL << 3LL << 0LL << 8LL
                                              << "world_size (16) must be divisible by mp_replicate_size (3)."
                                              << "mp_replicate"
                                              << "divides";
        QTest::addRow("ep 0") << "dp 16" << 1LL << 0LL << 1LL << 0LL << 8LL << "ep_size must be positive, got 0."
                              << "ep"
                              << "positive";
        QTest::addRow("ep does not divide dp")
            << "dp 16" << 1LL << 3LL << 1LL << 0LL << 8LL << "dp_size must be divisible by ep_size, got 16 % 3 != 0."
            << "ep"
            << "divides";
        QTest::addRow("ep does not divide world / cp")
            << "world 16" << 2LL << 3LL << 1LL << 0LL << 8LL << "dp_size must be divisible by ep_size, got 8 % 3 != 0."
            << "ep"
            << "divides";
        QTest::addRow("world negative") << "world -8" << 1LL << 1LL << 1LL << 0LL << 8LL
                                        << "world_size must be positive, got -8."
                                        << "world"
                                        << "positive";
        QTest::addRow("gpus 0") << "dp 8" << 1LL << 1LL << 1LL << 0LL << 0LL << "gpus_per_node must be positive, got 0."
                                << "gpus_per_node"
                                << "positive";
        // With nodes, GPUs per node comes first: without it the nodes give no world to check.
        QTest::addRow("nodes with gpus 0")
            << "nodes 2" << 3LL << 3LL << 1LL << 0LL << 0LL << "gpus_per_node must be positive, got 0."
            << "gpus_per_node"
            << "positive";
        QTest::addRow("no nodes") << "nodes 0" << 1LL << 1LL << 1LL << 0LL << 8LL
                                  << "world_size must be positive, got 0."
                                  << "world"
                                  << "positive";
        QTest::addRow("nodes: ep does not divide dp")
            << "nodes 2" << 1LL << 3LL << 1LL << 0LL << 8LL << "dp_size must be divisible by ep_size, got 16 % 3 != 0."
            << "ep"
            << "divides";
        QTest::addRow("nodes beyond the largest world")
            << "nodes 549755813889" << 1LL << 1LL << 1LL << 0LL << 2LL
            << "world_size (549755813889 * 2) exceeds the supported maximum of 1099511627776."
            << "world"
            << "maximum";
    }

    void plan_inputs() {
        QFETCH(QString, sizes);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(qint64, mpReplicate);
        QFETCH(qint64, mpShard);
        QFETCH(qint64, gpus);
        QFETCH(QString, message);
        QFETCH(QString, input);
        QFETCH(QString, rule);
        const PlanRequest request = request_of(sizes, cp, ep, mpReplicate, mpShard, gpus);
        const PlanAnswer answer = plan_answer(request);
        QVERIFY(!answer.plan);
        QVERIFY(answer.rejection);
        const Error& error = answer.rejection->error;
        QCOMPARE(QString::fromStdString(error.message()), message);
        QCOMPARE(error.type(), ErrorType::value_error);
        QCOMPARE(name_of(error.input()), input);
        QCOMPARE(name_of(error.rule()), rule);
        // The rejection's advice is plan_advice's for the same error.
        const PlanAdvice advice = plan_advice(request, error);
        QCOMPARE(QString::fromStdString(answer.rejection->advice.field), QString::fromStdString(advice.field));
        QCOMPARE(QString::fromStdString(answer.rejection->advice.hint), QString::fromStdString(advice.hint));
        // A rethrown error keeps what it is about.
        try {
            throw_error(error);
        } catch (const ValueError& thrown) {
            QCOMPARE(name_of(thrown.input()), input);
            QCOMPARE(name_of(thrown.rule()), rule);
        }
    }

    void peer_inputs_data() {
        QTest::addColumn<qint64>("world");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("rule");
        QTest::addColumn<QString>("field");  // peer_advice's
        QTest::addRow("world 0") << 0LL << 1LL << 1LL << 8LL << "world_size must be positive, got 0."
                                 << "world"
                                 << "positive"
                                 << "world";
        QTest::addRow("cp 0") << 16LL << 0LL << 1LL << 8LL << "cp_size must be positive, got 0."
                              << "cp"
                              << "positive"
                              << "cp";
        QTest::addRow("ep 0") << 16LL << 1LL << 0LL << 8LL << "ep_size must be positive, got 0."
                              << "ep"
                              << "positive"
                              << "ep";
        QTest::addRow("gpus 0") << 16LL << 1LL << 1LL << 0LL << "gpus_per_node must be positive, got 0."
                                << "gpus_per_node"
                                << "positive"
                                << "gpus_per_node";
        QTest::addRow("world 70000")
            << 70000LL << 1LL << 1LL << 8LL
            << "world_size (70000) exceeds the largest world meshscope lays out for peers (65536)."
            << "world"
            << "maximum"
            << "world";
    }

    void peer_inputs() {
        QFETCH(qint64, world);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(qint64, gpus);
        QFETCH(QString, message);
        QFETCH(QString, input);
        QFETCH(QString, rule);
        QFETCH(QString, field);
        const auto error = check_peer_shape({world, cp, ep, gpus});
        QVERIFY(error);
        QCOMPARE(QString::fromStdString(error->message()), message);
        QCOMPARE(name_of(error->input()), input);
        QCOMPARE(name_of(error->rule()), rule);
        QCOMPARE(QString::fromStdString(peer_advice(*error).field), field);
    }

    void other_inputs_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("rule");
        QTest::addRow("hardware") << "hardware x100"
                                  << "unknown hardware 'x100'; known: a100, h100, h200, b200, gb200"
                                  << "hardware"
                                  << "known";
        QTest::addRow("network") << "network edr"
                                 << "unknown network 'edr'; known: ndr, hdr"
                                 << "network"
                                 << "known";
        QTest::addRow("experts 0") << "experts 0 ep 2"
                                   << "num_experts must be positive, got 0."
                                   << "experts"
                                   << "positive";
        QTest::addRow("experts with ep 0") << "experts 64 ep 0"
                                           << "ep_size must be positive, got 0."
                                           << "ep"
                                           << "positive";
        QTest::addRow("ep does not divide the experts") << "experts 60 ep 8"
                                                        << "num_experts must be divisible by ep_size, got 60 % 8 != 0."
                                                        << "ep"
                                                        << "divides";
    }

    void other_inputs() {
        QFETCH(QString, what);
        QFETCH(QString, message);
        QFETCH(QString, input);
        QFETCH(QString, rule);
        const QStringList words = what.split(QLatin1Char(' '));
        std::optional<Error> error;
        if (words[0] == QLatin1String("hardware")) {
            error = cost::make_cluster(words[1].toStdString(), "ndr").error();
        } else if (words[0] == QLatin1String("network")) {
            error = cost::make_cluster("h100", words[1].toStdString()).error();
        } else {
            const auto per_rank = experts_per_rank(words[1].toLongLong(), words[3].toLongLong());
            QVERIFY(!per_rank);
            error = per_rank.error();
        }
        QCOMPARE(QString::fromStdString(error->message()), message);
        QCOMPARE(name_of(error->input()), input);
        QCOMPARE(name_of(error->rule()), rule);
    }

    // A front end's own bound refuses before the plan is built; the last plan is reused when it is the one asked.
    void bound_and_reuse() {
        PlanRequest request;
        request.world = 32;
        request.ep = 8;
        const PlanBound at_most_16 = [](const Topology& t) -> std::optional<PlanRejection> {
            if (t.world() <= 16) return std::nullopt;
            return PlanRejection{ValueError("too large", Input::world, Rule::maximum), {"world", "hint: 16", {}}};
        };
        const PlanAnswer refused = plan_answer(request, at_most_16);
        QVERIFY(!refused.plan);
        QVERIFY(refused.rejection);
        QCOMPARE(QString::fromStdString(refused.rejection->error.message()), QStringLiteral("too large"));
        QCOMPARE(QString::fromStdString(refused.rejection->advice.hint), QStringLiteral("hint: 16"));
        // Core's own checks come before the bound.
        request.ep = 3;
        QCOMPARE(QString::fromStdString(plan_answer(request, at_most_16).rejection->error.message()),
                 QStringLiteral("dp_size must be divisible by ep_size, got 32 % 3 != 0."));

        request.ep = 8;
        const PlanAnswer first = plan_answer(request);
        QVERIFY(first.plan);
        QVERIFY(!first.rejection);
        QCOMPARE(first.plan->topology().world(), std::int64_t{32});
        QCOMPARE(plan_answer(request, {}, first.plan).plan.get(), first.plan.get());
        request.order = CreationOrder::torch28;  // another plan: built anew
        const PlanAnswer other = plan_answer(request, {}, first.plan);
        QVERIFY(other.plan.get() != first.plan.get());
        QCOMPARE(other.plan->order(), CreationOrder::torch28);
        request.order = CreationOrder::torch29;
        request.gpus_per_node = 4;
        QVERIFY(plan_answer(request, {}, first.plan).plan.get() != first.plan.get());
    }
};

QTEST_APPLESS_MAIN(TestPlanErrors)
#include "tst_plan_errors.moc"
