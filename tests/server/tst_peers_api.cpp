// GET /api/v1/peers over real HTTP on loopback (docs/peers.md): meshscope.peers/1 with the groups worked by hand
// (shared/docs/domain.md section 3: W16, cp 2, ep 2), a framework's refusal inside a 200 answer, and every 400
// with its exact text, hint and field.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QTest>

#include "collector_fixture.h"
#include "server_test_support.h"

namespace {
const QByteArray token = "peers-token";

QJsonObject parse(const QByteArray& text) {
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError) qWarning() << error.errorString() << text.left(200);
    return doc.object();
}

QJsonArray pairs(std::initializer_list<std::pair<int, int>> values) {
    QJsonArray out;
    for (const auto& [a, b] : values) out.append(QJsonArray{a, b});
    return out;
}
}  // namespace

class PeersApiTest : public QObject {
    Q_OBJECT
    std::unique_ptr<test::RunningCollector> collector_;
    QNetworkAccessManager nam_;

    test::HttpReply get(const QString& target, const QByteArray& with_token = token) {
        return test::http(nam_, "GET", collector_->url + target, {}, with_token);
    }

private slots:
    void initTestCase() {
        test::CollectorConfig config;
        config.token = token;
        collector_ = test::start_collector(config);
        QVERIFY(collector_);
    }

    // domain.md's case: FSDPTurbo's ep groups stride by cp, TorchTitan's and Megatron-Core's are consecutive.
    void domain_case() {
        const auto reply = get("/api/v1/peers?world=16&cp=2&ep=2&gpus_per_node=8");
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.header("Content-Type"), QByteArray("application/json"));
        const auto doc = parse(reply.body);
        QCOMPARE(doc["schema"].toString(), QStringLiteral("meshscope.peers/1"));
        QCOMPARE(doc["world"].toInt(), 16);
        QCOMPARE(doc["cp"].toInt(), 2);
        QCOMPARE(doc["ep"].toInt(), 2);
        QCOMPARE(doc["gpus_per_node"].toInt(), 8);
        const auto frameworks = doc["frameworks"].toArray();
        QCOMPARE(frameworks.size(), 3);
        const auto fsdpturbo = frameworks[0].toObject();
        QCOMPARE(fsdpturbo["framework"].toString(), QStringLiteral("fsdpturbo"));
        const auto ep = fsdpturbo["dims"].toArray()[0].toObject();
        QCOMPARE(ep["name"].toString(), QStringLiteral("ep"));
        QCOMPARE(ep["groups"].toArray(), pairs({{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
        QCOMPARE(ep["cross_node_groups"].toInt(), 0);
        QStringList names;
        for (const auto& dim : fsdpturbo["dims"].toArray()) names << dim.toObject()["name"].toString();
        QCOMPARE(names, (QStringList{"ep", "edp", "efsdp", "expert_cp"}));
        const auto consecutive = pairs({{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        for (int i : {1, 2}) {
            const auto framework = frameworks[i].toObject();
            QCOMPARE(framework["framework"].toString(),
                     i == 1 ? QStringLiteral("torchtitan") : QStringLiteral("megatron"));
            QCOMPARE(framework["dims"].toArray()[0].toObject()["groups"].toArray(), consecutive);
            // efsdp / expt_dp: [0, 2, ..., 14] and [1, 3, ..., 15], both across the two nodes.
            const auto across = framework["dims"].toArray()[1].toObject();
            QCOMPARE(across["name"].toString(), i == 1 ? QStringLiteral("efsdp") : QStringLiteral("expt_dp"));
            QCOMPARE(across["groups"].toArray().size(), 2);
            QCOMPARE(across["cross_node_groups"].toInt(), 2);
        }
        // cp and gpus_per_node default to 1 and 8.
        QCOMPARE(parse(get("/api/v1/peers?world=16&ep=2").body)["cp"].toInt(), 1);
        QCOMPARE(parse(get("/api/v1/peers?ep=2&world=16").body)["gpus_per_node"].toInt(), 8);
    }

    // A shape FSDPTurbo refuses and the peers accept: still 200, the refusal in its framework's entry.
    void refusal_is_data() {
        const auto reply = get("/api/v1/peers?world=16&cp=4&ep=8");
        QCOMPARE(reply.status, 200);
        const auto frameworks = parse(reply.body)["frameworks"].toArray();
        const auto fsdpturbo = frameworks[0].toObject();
        QVERIFY(!fsdpturbo.contains("dims"));
        QCOMPARE(fsdpturbo["error"].toObject()["type"].toString(), QStringLiteral("ValueError"));
        QCOMPARE(fsdpturbo["error"].toObject()["message"].toString(),
                 QStringLiteral("dp_size must be divisible by ep_size, got 4 % 8 != 0."));
        QVERIFY(frameworks[1].toObject().contains("dims"));
        const auto all_refuse = parse(get("/api/v1/peers?world=16&cp=3&ep=1").body)["frameworks"].toArray();
        QCOMPARE(all_refuse[1].toObject()["error"].toObject()["type"].toString(), QStringLiteral("AssertionError"));
        QCOMPARE(all_refuse[2].toObject()["error"].toObject()["message"].toString(),
                 QStringLiteral("world_size (16) is not divisible by 3"));
    }

    void rejections_data() {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("hint");
        QTest::addColumn<QString>("field");
        const QString usage = "hint: GET /api/v1/peers?world=W&ep=E[&cp=C][&gpus_per_node=G]";
        QTest::addRow("no world") << "/api/v1/peers?ep=2"
                                  << "give world" << usage << "world";
        QTest::addRow("no ep") << "/api/v1/peers?world=16"
                               << "give ep" << usage << "ep";
        QTest::addRow("unknown") << "/api/v1/peers?world=16&ep=2&dp=8"
                                 << "unknown parameter \"dp\"" << usage << "dp";
        QTest::addRow("not an integer") << "/api/v1/peers?world=16&ep=two"
                                        << "ep expects an integer, got 'two'." << usage << "ep";
        QTest::addRow("out of range") << "/api/v1/peers?world=99999999999999999999&ep=2"
                                      << "world is out of range, got '99999999999999999999'." << usage << "world";
        QTest::addRow("cp 0") << "/api/v1/peers?world=16&ep=2&cp=0"
                              << "cp_size must be positive, got 0."
                              << "hint: cp is a positive integer that divides world"
                              << "cp";
        QTest::addRow("ep 0") << "/api/v1/peers?world=16&ep=0"
                              << "ep_size must be positive, got 0."
                              << "hint: ep is a positive integer; each framework says which ep it takes"
                              << "ep";
        QTest::addRow("gpus 0") << "/api/v1/peers?world=16&ep=2&gpus_per_node=0"
                                << "gpus_per_node must be positive, got 0."
                                << "hint: --gpus-per-node is a positive integer (8 on H100/H200 nodes)"
                                << "gpus_per_node";
        QTest::addRow("too large") << "/api/v1/peers?world=65537&ep=1"
                                   << "world_size (65537) exceeds the largest world meshscope lays out for peers "
                                      "(65536)."
                                   << "hint: meshscope lays out peers for worlds of 1 to 65536 ranks"
                                   << "world";
    }
    void rejections() {
        QFETCH(QString, target);
        QFETCH(QString, error);
        QFETCH(QString, hint);
        QFETCH(QString, field);
        const auto reply = get(target);
        QCOMPARE(reply.status, 400);
        const auto body = parse(reply.body);
        QCOMPARE(body["error"].toString(), error);
        QCOMPARE(body["hint"].toString(), hint);
        QCOMPARE(body["field"].toString(), field);
    }
};

QTEST_GUILESS_MAIN(PeersApiTest)
#include "tst_peers_api.moc"
