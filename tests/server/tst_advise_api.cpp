// GET /api/v1/advise over real HTTP on loopback (docs/cost-model.md, "meshscope.advice/1"): the ranking the web
// Planner shows, at one global batch and sorted by step time, a global batch a layout does not divide as that
// layout's reason, and every 400 with its exact text and field.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QTest>

#include "collector_fixture.h"
#include "http/advise_api.h"
#include "server_test_support.h"

namespace {
const QByteArray token = "advise-token";

QJsonObject parse(const QByteArray& text) {
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError) qWarning() << error.errorString() << text.left(200);
    return doc.object();
}
}  // namespace

class AdviseApiTest : public QObject {
    Q_OBJECT
    std::unique_ptr<test::RunningCollector> collector_;
    QNetworkAccessManager nam_;

    test::HttpReply get(const QString& target) { return test::http(nam_, "GET", collector_->url + target, {}, token); }

private slots:
    void initTestCase() {
        test::CollectorConfig config;
        config.token = token;
        collector_ = test::start_collector(config);
        QVERIFY(collector_);
    }

    // 64 = 2^6 ranks: cp 2^c and 7 - c values of ep each, 28 layouts, all at the default global batch of 64
    // sequences (what cp 1 runs), fastest step first.
    void ranks_by_step_time() {
        const auto reply = get("/api/v1/advise?model=qwen3-30b-a3b&world=64&hardware=h200&show=100");
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.header("Content-Type"), QByteArray("application/json"));
        const auto doc = parse(reply.body);
        QCOMPARE(doc["schema"].toString(), QStringLiteral("meshscope.advice/1"));
        QCOMPARE(doc["world"].toInt(), 64);
        QCOMPARE(doc["global_batch"].toInt(), 64);
        QCOMPARE(doc["layouts_considered"].toInt(), 28);
        const auto ranked = doc["ranked"].toArray();
        QCOMPARE(ranked.size(), doc["layouts_that_fit"].toInt());
        double previous = 0;
        for (const auto& item : ranked) {
            const auto step = item.toObject()["step"].toObject();
            QVERIFY(step["seconds"].toDouble() >= previous);
            previous = step["seconds"].toDouble();
            QCOMPARE(step["tokens"].toDouble(), 64.0 * 4096.0);
        }
        QVERIFY(doc["why"].toString().startsWith(QStringLiteral("dp 64, cp 1, ep ")));
    }

    // 100 sequences over dp 64: not a multiple, so every cp 1 layout is left out with the reason.
    void global_batch_excludes() {
        const auto reply = get("/api/v1/advise?model=qwen3-30b-a3b&world=64&global_batch=100");
        QCOMPARE(reply.status, 200);
        const auto doc = parse(reply.body);
        QCOMPARE(doc["global_batch"].toInt(), 100);
        int cp_one = 0;
        for (const auto& item : doc["excluded"].toArray()) {
            const auto e = item.toObject();
            if (e["cp"].toInt() != 1) continue;
            ++cp_one;
            QCOMPARE(e["reason"].toString(), QStringLiteral("global batch of 100 sequences is not a multiple of dp x "
                                                            "micro-batch (64 x 1 = 64)"));
        }
        QCOMPARE(cp_one, 7);
    }

    void rejections_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("field");
        QTest::addRow("no model") << "world=8"
                                  << "give model"
                                  << "model";
        QTest::addRow("unknown model")
            << "model=llama&world=8"
            << "unknown model 'llama'; known: qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, mixtral-8x7b, "
               "qwen3.5-35b-a3b"
            << "model";
        QTest::addRow("no world") << "model=qwen3-30b-a3b"
                                  << "give world"
                                  << "world";
        QTest::addRow("world zero") << "model=qwen3-30b-a3b&world=0"
                                    << "world must be positive, got 0."
                                    << "world";
        QTest::addRow("world too large") << "model=qwen3-30b-a3b&world=2097152"
                                         << "The collector ranks at most 1048576 ranks, got world_size 2097152; "
                                            "`meshscope advise` has no such limit."
                                         << "world";
        QTest::addRow("seq not a number") << "model=qwen3-30b-a3b&world=8&seq=long"
                                          << "seq expects an integer, got 'long'."
                                          << "seq";
        QTest::addRow("unknown parameter") << "model=qwen3-30b-a3b&world=8&tp=2"
                                           << "unknown parameter \"tp\""
                                           << "tp";
        QTest::addRow("hardware") << "model=qwen3-30b-a3b&world=8&hardware=x100"
                                  << "unknown hardware 'x100'; known: a100, h100, h200, b200, gb200"
                                  << "hardware";
        QTest::addRow("network") << "model=qwen3-30b-a3b&world=8&network=edr"
                                 << "unknown network 'edr'; known: ndr, hdr"
                                 << "network";
        QTest::addRow("recompute")
            << "model=qwen3-30b-a3b&world=8&recompute=some"
            << "recompute must be one of none, selective, full, megatron-selective, torchtitan-selective, "
               "llamafactory, torchtitan-full, automodel-full, megatron-full, megatron-layernorm-moe-act, got 'some'"
            << "recompute";
        QTest::addRow("overlap") << "model=qwen3-30b-a3b&world=8&overlap_a2a=yes"
                                 << "overlap_a2a must be 0 or 1, got 'yes'."
                                 << "overlap_a2a";
    }
    void rejections() {
        QFETCH(QString, query);
        QFETCH(QString, error);
        QFETCH(QString, field);
        const auto reply = get("/api/v1/advise?" + query);
        QCOMPARE(reply.status, 400);
        const auto doc = parse(reply.body);
        QCOMPARE(doc["error"].toString(), error);
        QCOMPARE(doc["field"].toString(), field);
        QVERIFY(doc["hint"].toString().startsWith(QStringLiteral("hint: GET /api/v1/advise?model=NAME&world=W")));
    }

    // With the collector's cluster profile (serve --cluster-profile): its GPU is the default, its fitted constants
    // price the answer and say so; without one every constant is a preset and the file is null.
    void cluster_profile_constants() {
        meshscope::cost::ClusterProfile p;
        p.hardware = "h200";
        p.network = "ndr";
        p.calibration = {0.41, meshscope::cost::ConstantSource::fitted, "step time from train.log"};
        p.intra_node_gbps = {300, meshscope::cost::ConstantSource::fitted, "records from nccl.log"};
        p.inter_node_gbps = {50, meshscope::cost::ConstantSource::preset, "ndr preset"};
        const auto profile = std::make_shared<const meshscope::cost::LoadedClusterProfile>(
            meshscope::cost::LoadedClusterProfile{"cluster.json", p});
        const auto with = parse(
            QByteArray::fromStdString(meshscope::server::answer_advise("model=qwen3-30b-a3b&world=8", profile).body));
        QCOMPARE(with["cluster"]["hardware"].toString(), QStringLiteral("h200"));
        QCOMPARE(with["cluster"]["calibration"].toDouble(), 0.41);
        QCOMPARE(with["cluster"]["intra_node_gbps"].toDouble(), 300.0);
        const auto constants = with["cluster_profile"]["constants"].toObject();
        QCOMPARE(with["cluster_profile"]["file"].toString(), QStringLiteral("cluster.json"));
        QCOMPARE(constants["calibration"]["source"].toString(), QStringLiteral("fitted"));
        QCOMPARE(constants["calibration"]["basis"].toString(), QStringLiteral("step time from train.log"));
        QCOMPARE(constants["intra_node_gbps"]["source"].toString(), QStringLiteral("fitted"));
        QCOMPARE(constants["inter_node_gbps"]["source"].toString(), QStringLiteral("preset"));
        QCOMPARE(constants["inter_node_gbps"]["label"].toString(), QStringLiteral("network bandwidth"));

        const auto other = parse(QByteArray::fromStdString(
            meshscope::server::answer_advise("model=qwen3-30b-a3b&world=8&hardware=h100", profile).body));
        QCOMPARE(other["cluster_profile"]["note"].toString(),
                 QStringLiteral("the cluster profile was fitted on h200; the cluster is h100"));
        QCOMPARE(other["cluster"]["calibration"].toDouble(), 0.6);

        const auto reply = get("/api/v1/advise?model=qwen3-30b-a3b&world=8");
        const auto none = parse(reply.body);
        QVERIFY(none["cluster_profile"]["file"].isNull());
        for (const char* name : {"calibration", "intra_node_gbps", "inter_node_gbps"})
            QCOMPARE(none["cluster_profile"]["constants"][QLatin1String(name)]["source"].toString(),
                     QStringLiteral("preset"));
    }
};

QTEST_MAIN(AdviseApiTest)
#include "tst_advise_api.moc"
