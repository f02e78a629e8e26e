// Topology: the sizes FSDPTurbo derives from (dp, cp, ep), and its validation order and texts.
#include <QTest>

#include "meshscope/mesh/topology.h"
#include "test_support.h"

using namespace meshscope;

class TopologyTest : public QObject {
    Q_OBJECT
private slots:
    void sizes_data() {
        QTest::addColumn<qint64>("dp");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<qint64>("efsdp");
        QTest::addColumn<qint64>("edp");
        QTest::addColumn<qint64>("world");
        QTest::addColumn<bool>("expert");
        QTest::addRow("dp16 ep8") << 16LL << 1LL << 8LL << 2LL << 1LL << 16LL << true;
        QTest::addRow("dp8 cp2 ep2") << 8LL << 2LL << 2LL << 4LL << 1LL << 16LL << true;
        QTest::addRow("ep1 has no expert mesh") << 16LL << 2LL << 1LL << 1LL << 1LL << 32LL << false;
        QTest::addRow("ep = dp") << 16LL << 1LL << 16LL << 1LL << 1LL << 16LL << true;
        QTest::addRow("A3 CP2/EP4/EFSDP2") << 8LL << 2LL << 4LL << 2LL << 1LL << 16LL << true;
        QTest::addRow("one rank") << 1LL << 1LL << 1LL << 1LL << 1LL << 1LL << false;
        QTest::addRow("2^20") << (1LL << 19) << 2LL << 8LL << (1LL << 16) << 1LL << (1LL << 20) << true;
    }
    void sizes() {
        QFETCH(qint64, dp);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(qint64, efsdp);
        QFETCH(qint64, edp);
        QFETCH(qint64, world);
        QFETCH(bool, expert);
        const auto t = Topology::make(dp, cp, ep);
        QVERIFY(t.has_value());
        QCOMPARE(t->dp, dp);
        QCOMPARE(t->cp, cp);
        QCOMPARE(t->ep, ep);
        QCOMPARE(t->efsdp, efsdp);
        QCOMPARE(t->edp, edp);
        QCOMPARE(t->world(), world);
        QCOMPARE(t->has_expert_mesh(), expert);
        const auto from_world = Topology::from_world(world, cp, ep);
        QVERIFY(from_world.has_value());
        QVERIFY(*from_world == *t);
    }

    void tuple_string() {
        QCOMPARE(QString::fromStdString(Topology::make(16, 1, 2)->tuple_string()), QStringLiteral("(16, 1, 2)"));
        QCOMPARE(QString::fromStdString(Topology::make(8, 2, 4)->tuple_string()), QStringLiteral("(8, 2, 4)"));
    }

    // Every message character for character, and the first failing check wins (FSDPTurbo's order).
    void errors_data() {
        QTest::addColumn<bool>("from_world");
        QTest::addColumn<qint64>("dp_or_world");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<QString>("message");
        QTest::addRow("ep 0") << false << 16LL << 1LL << 0LL << "ep_size must be positive, got 0.";
        QTest::addRow("ep -4") << false << 16LL << 1LL << -4LL << "ep_size must be positive, got -4.";
        QTest::addRow("ep 3 of 16") << false << 16LL << 1LL << 3LL
                                    << "dp_size must be divisible by ep_size, got 16 % 3 != 0.";
        QTest::addRow("ep above dp") << false << 4LL << 2LL << 8LL
                                     << "dp_size must be divisible by ep_size, got 4 % 8 != 0.";
        QTest::addRow("ep checked before divisibility")
            << false << 7LL << 1LL << 0LL << "ep_size must be positive, got 0.";
        QTest::addRow("dp 0") << false << 0LL << 1LL << 1LL << "dp_size must be positive, got 0.";
        QTest::addRow("dp -2") << false << -2LL << 1LL << 2LL << "dp_size must be positive, got -2.";
        QTest::addRow("cp 0") << false << 8LL << 0LL << 2LL << "cp_size must be positive, got 0.";
        QTest::addRow("cp -1") << false << 8LL << -1LL << 2LL << "cp_size must be positive, got -1.";
        QTest::addRow("dp before ep") << false << 0LL << 1LL << 0LL << "dp_size must be positive, got 0.";
        QTest::addRow("world too big") << false << (1LL << 40) << 2LL << 1LL
                                       << "world_size (1099511627776 * 2) exceeds the supported maximum of "
                                          "1099511627776.";
        QTest::addRow("world 16 cp 3") << true << 16LL << 3LL << 1LL
                                       << "world_size (16) must be divisible by cp_size (3).";
        QTest::addRow("world cp before ep")
            << true << 16LL << 3LL << 0LL << "world_size (16) must be divisible by cp_size (3).";
        QTest::addRow("world 0") << true << 0LL << 1LL << 1LL << "world_size must be positive, got 0.";
        QTest::addRow("world -8") << true << -8LL << 1LL << 1LL << "world_size must be positive, got -8.";
        QTest::addRow("world cp 0") << true << 16LL << 0LL << 1LL << "cp_size must be positive, got 0.";
        QTest::addRow("world then ep") << true << 16LL << 2LL << 3LL
                                       << "dp_size must be divisible by ep_size, got 8 % 3 != 0.";
        QTest::addRow("world then ep 0") << true << 16LL << 2LL << 0LL << "ep_size must be positive, got 0.";
    }
    void errors() {
        QFETCH(bool, from_world);
        QFETCH(qint64, dp_or_world);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(QString, message);
        const auto t = from_world ? Topology::from_world(dp_or_world, cp, ep) : Topology::make(dp_or_world, cp, ep);
        COMPARE_ERROR(t, ErrorType::value_error, message.toStdString());
        // value() rethrows it as the typed subclass, so callers can catch ValueError as in Python.
        QVERIFY_THROWS_EXCEPTION(ValueError, (void)t.value());
    }

    // LlamaFactory's model mesh: defaults (1, world), and its checks in its order and words, before the data
    // mesh's and FSDPTurbo's.
    void model_mesh_data() {
        QTest::addColumn<qint64>("world");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<qint64>("mp_replicate");
        QTest::addColumn<qint64>("mp_shard");  // 0: not given (default world / mp_replicate)
        QTest::addColumn<QString>("result");   // "(r, s)" or the error text
        QTest::addRow("defaults") << 16LL << 1LL << 1LL << 1LL << 0LL << "(1, 16)";
        QTest::addRow("mp_replicate 2") << 16LL << 1LL << 2LL << 2LL << 0LL << "(2, 8)";
        QTest::addRow("both given") << 16LL << 2LL << 2LL << 4LL << 4LL << "(4, 4)";
        QTest::addRow("shard only, = world") << 8LL << 1LL << 1LL << 1LL << 8LL << "(1, 8)";
        QTest::addRow("all replicate") << 6LL << 1LL << 1LL << 6LL << 0LL << "(6, 1)";
        QTest::addRow("replicate 3 of 16")
            << 16LL << 1LL << 1LL << 3LL << 0LL << "world_size (16) must be divisible by mp_replicate_size (3).";
        QTest::addRow("replicate above world")
            << 4LL << 1LL << 1LL << 8LL << 0LL << "world_size (4) must be divisible by mp_replicate_size (8).";
        QTest::addRow("product differs") << 16LL << 1LL << 1LL << 2LL << 4LL
                                         << "mp_replicate_size * mp_shard_size must equal to world_size, got 2 * 4 "
                                            "!= 16.";
        QTest::addRow("shard only, not world") << 16LL << 1LL << 1LL << 1LL << 8LL
                                               << "mp_replicate_size * mp_shard_size must equal to world_size, got 1 "
                                                  "* 8 != 16.";
        QTest::addRow("shard negative") << 16LL << 1LL << 1LL << 2LL << -8LL
                                        << "mp_replicate_size * mp_shard_size must equal to world_size, got 2 * -8 "
                                           "!= 16.";
        QTest::addRow("replicate 0 (ours)")
            << 16LL << 1LL << 1LL << 0LL << 0LL << "mp_replicate_size must be positive, got 0.";
        QTest::addRow("model before cp") << 16LL << 3LL << 1LL << 3LL << 0LL
                                         << "world_size (16) must be divisible by mp_replicate_size (3).";
        QTest::addRow("model before ep") << 16LL << 2LL << 3LL << 2LL << 4LL
                                         << "mp_replicate_size * mp_shard_size must equal to world_size, got 2 * 4 "
                                            "!= 16.";
        QTest::addRow("then cp") << 16LL << 3LL << 1LL << 2LL << 0LL
                                 << "world_size (16) must be divisible by cp_size (3).";
        QTest::addRow("then ep") << 16LL << 2LL << 3LL << 2LL << 0LL
                                 << "dp_size must be divisible by ep_size, got 8 % 3 != 0.";
    }
    void model_mesh() {
        QFETCH(qint64, world);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(qint64, mp_replicate);
        QFETCH(qint64, mp_shard);
        QFETCH(QString, result);
        const ModelMeshSizes sizes{mp_replicate, mp_shard ? std::optional<std::int64_t>(mp_shard) : std::nullopt};
        const auto by_world = Topology::from_world(world, cp, ep, sizes);
        if (!result.startsWith('(')) {
            COMPARE_ERROR(by_world, ErrorType::value_error, result.toStdString());
            // From dp, the data mesh's own checks pass by construction; the model mesh's still come first.
            if (world % cp == 0) {
                const auto by_dp = Topology::make(world / cp, cp, ep, sizes);
                QVERIFY(!by_dp.has_value());
                if (!result.contains("cp_size")) COMPARE_ERROR(by_dp, ErrorType::value_error, result.toStdString());
            }
            return;
        }
        QVERIFY2(by_world.has_value(), by_world.has_value() ? "" : by_world.error().what());
        QCOMPARE(QStringLiteral("(%1, %2)").arg(by_world->mp_replicate).arg(by_world->mp_shard), result);
        QVERIFY(*by_world == Topology::make(world / cp, cp, ep, sizes).value());
        // The model mesh is not part of FSDPTurbo's tuple.
        QCOMPARE(QString::fromStdString(by_world->tuple_string()),
                 QStringLiteral("(%1, %2, %3)").arg(world / cp).arg(cp).arg(ep));
    }

    void valid_sizes_data() {
        QTest::addColumn<qint64>("n");
        QTest::addColumn<Ints>("divisors");
        QTest::addRow("16") << 16LL << Ints{1, 2, 4, 8, 16};
        QTest::addRow("12") << 12LL << Ints{1, 2, 3, 4, 6, 12};
        QTest::addRow("prime") << 13LL << Ints{1, 13};
        QTest::addRow("square") << 36LL << Ints{1, 2, 3, 4, 6, 9, 12, 18, 36};
        QTest::addRow("one") << 1LL << Ints{1};
        QTest::addRow("zero") << 0LL << Ints{};
        QTest::addRow("negative") << -4LL << Ints{};
    }
    void valid_sizes() {
        QFETCH(qint64, n);
        QFETCH(Ints, divisors);
        COMPARE_INTS(valid_ep_sizes(n), divisors);
        COMPARE_INTS(valid_cp_sizes(n), divisors);
        for (std::int64_t ep : valid_ep_sizes(n)) QVERIFY(Topology::make(n, 1, ep).has_value());
    }
};

QTEST_GUILESS_MAIN(TopologyTest)
#include "tst_topology.moc"
