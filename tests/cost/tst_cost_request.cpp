// CostRequest: every bad input a person can type gives the input it is about and core's exact text (written here by
// hand from the rules in cost_request.h), and a good request gives the inputs it spells out.
#include <QTest>

#include <memory>

#include "meshscope/cost/cost_request.h"

using meshscope::cost::CostField;
using meshscope::cost::CostRequest;

namespace {
// One input of a request, by the name the field takes.
CostRequest with(const QString& name, const QString& text) {
    CostRequest r;
    r.model = "qwen3-30b-a3b";
    const std::string value = text.toStdString();
    if (name == "model") r.model = value;
    if (name == "model_config") r.model_config = value;
    if (name == "hardware") r.hardware = value;
    if (name == "network") r.network = value;
    if (name == "gpus_per_node") r.gpus_per_node = text.toLongLong();
    if (name == "seq") r.seq = value;
    if (name == "micro_batch") r.micro_batch = value;
    if (name == "grad_accum") r.grad_accum = value;
    if (name == "global_batch") r.global_batch = value;
    if (name == "recompute") r.recompute = value;
    if (name == "loss_chunks") r.loss_chunks = value;
    if (name == "overlap_a2a") r.overlap_a2a = value;
    if (name == "efficiency") r.efficiency = value;
    return r;
}
}  // namespace

namespace {
// Fitted on h100 by hand: calibration 0.41 and NVLink 300 GB/s from a run, the network left at ndr's 50 GB/s.
std::shared_ptr<const meshscope::cost::LoadedClusterProfile> h100_profile() {
    using meshscope::cost::ConstantSource;
    meshscope::cost::ClusterProfile p;
    p.hardware = "h100";
    p.network = "ndr";
    p.calibration = {0.41, ConstantSource::fitted, "step time of dp 8, cp 1, ep 8 from train.log"};
    p.intra_node_gbps = {300, ConstantSource::fitted, "3 intra-node collective records from nccl.log"};
    p.inter_node_gbps = {50, ConstantSource::preset, "ndr preset"};
    return std::make_shared<const meshscope::cost::LoadedClusterProfile>(
        meshscope::cost::LoadedClusterProfile{"cluster.json", p});
}
}  // namespace

class CostRequestTest : public QObject {
    Q_OBJECT

private slots:
    void rejections_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        const auto row = [](const char* tag, const char* name, const char* text, const char* field, const char* msg) {
            QTest::addRow("%s", tag) << name << text << field << msg;
        };
        row("no model", "model", "", "model", "give model");
        row("unknown model", "model", "llama", "model",
            "unknown model 'llama'; known: qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, mixtral-8x7b, qwen3.5-35b-a3b");
        row("missing config", "model_config", "/nonexistent/config.json", "model_config",
            "cannot read model config '/nonexistent/config.json': No such file or directory");
        row("seq zero", "seq", "0", "seq", "seq must be positive, got 0.");
        row("seq negative", "seq", "-4", "seq", "seq must be positive, got -4.");
        row("seq word", "seq", "long", "seq", "seq expects an integer, got 'long'.");
        row("seq empty", "seq", "", "seq", "seq expects an integer, got ''.");
        row("seq huge", "seq", "99999999999999999999", "seq", "seq is out of range, got '99999999999999999999'.");
        row("micro-batch zero", "micro_batch", "0", "micro_batch", "micro_batch must be positive, got 0.");
        row("micro-batch fraction", "micro_batch", "1.5", "micro_batch", "micro_batch expects an integer, got '1.5'.");
        row("grad-accum word", "grad_accum", "x", "grad_accum", "grad_accum expects an integer, got 'x'.");
        row("grad-accum zero", "grad_accum", "0", "grad_accum", "grad_accum must be positive, got 0.");
        row("loss chunks zero", "loss_chunks", "0", "loss_chunks", "loss_chunks must be positive, got 0.");
        row("global batch negative", "global_batch", "-5", "global_batch", "global_batch must be at least 0, got -5.");
        row("global batch word", "global_batch", "many", "global_batch",
            "global_batch expects an integer, got 'many'.");
        row("recompute", "recompute", "some", "recompute",
            "recompute must be one of none, selective, full, megatron-selective, torchtitan-selective, llamafactory, "
            "torchtitan-full, automodel-full, megatron-full, megatron-layernorm-moe-act, got 'some'");
        row("overlap", "overlap_a2a", "yes", "overlap_a2a", "overlap_a2a must be 0 or 1, got 'yes'.");
        row("hardware", "hardware", "x100", "hardware",
            "unknown hardware 'x100'; known: a100, h100, h200, b200, gb200");
        row("network", "network", "edr", "network", "unknown network 'edr'; known: ndr, hdr");
        row("gpus per node", "gpus_per_node", "-1", "gpus_per_node", "gpus_per_node must be positive, got -1.");
        row("efficiency above one", "efficiency", "1.5", "efficiency",
            "efficiency must be a number in (0, 1], got '1.5'.");
        row("efficiency zero", "efficiency", "0", "efficiency", "efficiency must be a number in (0, 1], got '0'.");
        row("efficiency word", "efficiency", "fast", "efficiency",
            "efficiency must be a number in (0, 1], got 'fast'.");
    }
    void rejections() {
        QFETCH(QString, name);
        QFETCH(QString, text);
        QFETCH(QString, field);
        QFETCH(QString, message);
        const auto answer = meshscope::cost::cost_answer(with(name, text));
        QVERIFY(!answer.inputs);
        QVERIFY(answer.rejection);
        QCOMPARE(QString::fromStdString(std::string(to_string(answer.rejection->field))), field);
        QCOMPARE(QString::fromStdString(answer.rejection->message), message);
    }

    // Two bad inputs: the first in the documented order is the one named.
    void first_in_order_wins() {
        auto r = with("seq", "0");
        r.hardware = "x100";
        r.micro_batch = "0";
        const auto answer = meshscope::cost::cost_answer(r);
        QVERIFY(answer.rejection);
        QCOMPARE(answer.rejection->field, CostField::seq);
    }

    // Every value the request spells out reaches the inputs: h200's 141 GiB, hdr's 25 GB/s, 4 GPUs a node, and the
    // flat efficiency 0.5 in place of the calibration.
    void good_request() {
        CostRequest r;
        r.model = "Mixtral-8x7B";
        r.hardware = "h200";
        r.network = "hdr";
        r.gpus_per_node = 4;
        r.seq = "+2048";
        r.micro_batch = "2";
        r.grad_accum = "3";
        r.global_batch = "64";
        r.recompute = "llamafactory";
        r.loss_chunks = "8";
        r.overlap_a2a = "1";
        r.efficiency = "0.5";
        const auto answer = meshscope::cost::cost_answer(r);
        QVERIFY(!answer.rejection);
        QVERIFY(answer.inputs);
        const auto& in = *answer.inputs;
        QCOMPARE(in.model.name, std::string("mixtral-8x7b"));
        QCOMPARE(in.training.seq, 2048);
        QCOMPARE(in.training.micro_batch, 2);
        QCOMPARE(in.training.grad_accum, 3);
        QCOMPARE(in.training.global_batch, 64);
        QCOMPARE(in.training.recompute, meshscope::cost::Recompute::full);
        QCOMPARE(in.training.loss_chunks, 8);
        QVERIFY(in.training.overlap_a2a);
        QCOMPARE(in.cluster.hardware, std::string("h200"));
        QCOMPARE(in.cluster.gib_per_gpu, 141.0);
        QCOMPARE(in.cluster.inter.bus_gbps, 25.0);
        QCOMPARE(in.cluster.gpus_per_node, 4);
        QCOMPARE(in.cluster.efficiency, 0.5);
        QCOMPARE(in.cluster.calibration, 0.0);
    }

    // The defaults: selective recompute, no global batch, the hardware's calibration (0.60 on h100) and 8 GPUs a node.
    void defaults() {
        const auto answer = meshscope::cost::cost_answer(with("model", "qwen3-30b-a3b"));
        QVERIFY(answer.inputs);
        QCOMPARE(answer.inputs->training.seq, 4096);
        QCOMPARE(answer.inputs->training.global_batch, 0);
        QCOMPARE(answer.inputs->training.recompute, meshscope::cost::Recompute::selective);
        QCOMPARE(answer.inputs->cluster.calibration, 0.60);
        QCOMPARE(answer.inputs->cluster.gpus_per_node, 8);
    }

    // Without a profile every constant is the preset's: h100's calibration 0.60 and NVLink 450 GB/s, ndr's 50 GB/s.
    void presets_without_a_profile() {
        const auto answer = meshscope::cost::cost_answer(with("model", "qwen3-30b-a3b"));
        QVERIFY(answer.inputs);
        const auto& c = answer.constants;
        QCOMPARE(c.file, std::string());
        QCOMPARE(c.note, std::string());
        QCOMPARE(c.constants.size(), std::size_t{3});
        QCOMPARE(c.constants[0].name, std::string("calibration"));
        QCOMPARE(c.constants[0].constant.value, 0.60);
        QCOMPARE(c.constants[1].constant.value, 450.0);
        QCOMPARE(c.constants[2].constant.value, 50.0);
        for (const auto& one : c.constants) QCOMPARE(one.constant.source, meshscope::cost::ConstantSource::preset);
        QCOMPARE(c.constants[1].constant.basis, std::string("h100 preset"));
    }

    // The profile's constants reach the inputs and say they are fitted; the one it left at the preset says so.
    void profile_on_its_hardware() {
        auto r = with("model", "qwen3-30b-a3b");
        r.cluster_profile = h100_profile();
        const auto answer = meshscope::cost::cost_answer(r);
        QVERIFY(answer.inputs);
        QCOMPARE(answer.inputs->cluster.calibration, 0.41);
        QCOMPARE(answer.inputs->cluster.intra.bus_gbps, 300.0);
        QCOMPARE(answer.inputs->cluster.inter.bus_gbps, 50.0);
        const auto& c = answer.constants;
        QCOMPARE(c.file, std::string("cluster.json"));
        QCOMPARE(c.note, std::string());
        QCOMPARE(c.constants[0].constant.source, meshscope::cost::ConstantSource::fitted);
        QCOMPARE(c.constants[1].constant.source, meshscope::cost::ConstantSource::fitted);
        QCOMPARE(c.constants[2].constant.source, meshscope::cost::ConstantSource::preset);
        const auto json = meshscope::cost::cluster_constants_json(c);
        QCOMPARE(json["file"].get<std::string>(), std::string("cluster.json"));
        QCOMPARE(json["constants"]["calibration"]["source"].get<std::string>(), std::string("fitted"));
        QCOMPARE(json["constants"]["intra_node_gbps"]["label"].get<std::string>(), std::string("NVLink bandwidth"));
        QCOMPARE(json["constants"]["inter_node_gbps"]["unit"].get<std::string>(), std::string("GB/s"));
    }

    // On another GPU the profile does not apply: the presets (h200's NVLink 450 GB/s), and why.
    void profile_on_other_hardware() {
        auto r = with("hardware", "h200");
        r.cluster_profile = h100_profile();
        const auto answer = meshscope::cost::cost_answer(r);
        QVERIFY(answer.inputs);
        QCOMPARE(answer.inputs->cluster.calibration, 0.60);
        QCOMPARE(answer.inputs->cluster.intra.bus_gbps, 450.0);
        QCOMPARE(answer.constants.note, std::string("the cluster profile was fitted on h100; the cluster is h200"));
        QCOMPARE(answer.constants.constants[0].constant.source, meshscope::cost::ConstantSource::preset);
        QVERIFY(meshscope::cost::cluster_constants_json(meshscope::cost::ClusterConstants{})["file"].is_null());
    }
};

QTEST_APPLESS_MAIN(CostRequestTest)
#include "tst_cost_request.moc"
