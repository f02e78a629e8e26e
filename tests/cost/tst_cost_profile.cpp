// meshscope.cluster-profile/1 and `meshscope calibrate`'s fits (docs/calibrate.md): the profile reader's every
// refusal, the training-log and NCCL Inspector readers on lines in their documented formats, and the fits on
// hand-worked inputs.
#include <QTest>

#include <cmath>
#include <cstdio>

#include "cost_test_support.h"
#include "meshscope/cost/calibrate.h"
#include "meshscope/cost/cluster_profile.h"
#include "meshscope/cost/presets.h"
#include "meshscope/mesh/placement.h"

using namespace meshscope;
using namespace meshscope::cost;

namespace {
// A profile every refusal below breaks in one place.
nlohmann::json good_profile() {
    return nlohmann::json::parse(R"({
  "format": "meshscope.cluster-profile/1", "hardware": "h100", "network": "ndr", "gpus_per_node": 8,
  "constants": {
    "calibration": {"value": 0.5, "source": "fitted", "basis": "step time of dp 8, cp 1, ep 8 from train.log"},
    "intra_node_gbps": {"value": 400, "source": "fitted", "basis": "12 intra-node collective records"},
    "inter_node_gbps": {"value": 50, "source": "preset", "basis": "ndr preset"}},
  "evidence": {
    "layouts": [{"source": "train.log", "model": "qwen3-30b-a3b", "dp": 8, "cp": 1, "ep": 8, "gpus_per_node": 8,
                 "seq": 4096, "micro_batch": 1, "grad_accum": 4, "measured_seconds": 2.0,
                 "preset_seconds": 1.7, "predicted_seconds": 2.0, "calibration": 0.5}],
    "communicators": [{"source": "nccl.log", "comm": "mesh_dp", "collective": "AllGather", "nranks": 8,
                       "nnodes": 1, "samples": 12, "bus_gbps": 400, "link": "intra_node", "placed": "data.dp",
                       "why": ""}]}})");
}

RunLayout run_layout(std::int64_t world, std::int64_t cp, std::int64_t ep, std::int64_t gpus_per_node) {
    const auto t = Topology::from_world(world, cp, ep).value();
    return RunLayout{t, mesh_dims(t, Placement::make(world, gpus_per_node).value())};
}

std::string json_record(const char* comm, const char* coll, int nranks, int nnodes, double exec_us, double busbw) {
    // One record as inspector_json.cc writes it (compact, one object a line; doubles with %lf).
    char line[1024];
    std::snprintf(line, sizeof line,
                  R"({"header":{"id":"0x7f8c496ae9f661","comm_name":"%s","rank":0,"n_ranks":%d,"nnodes":%d},)"
                  R"("metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":)"
                  R"("nccl_profiler_interface","dump_timestamp_us":1748030377748202,"hostname":"node-0","pid":1},)"
                  R"("coll_perf":{"coll":"%s","coll_sn":1407,"coll_msg_size_bytes":17179869184,)"
                  R"("coll_exec_time_us":%.0f,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":1.0,)"
                  R"("coll_busbw_gbs":%lf}})",
                  comm, nranks, nnodes, coll, exec_us, busbw);
    return std::string(line) + "\n";
}
}  // namespace

class CostProfileTest : public QObject {
    Q_OBJECT
private slots:
    void profile_round_trips() {
        const auto p = cluster_profile_from_json(good_profile().dump(), "p.json");
        QVERIFY2(p, p ? "" : p.error().what());
        QCOMPARE(p->calibration.value, 0.5);
        QCOMPARE(p->calibration.source, ConstantSource::fitted);
        QCOMPARE(p->inter_node_gbps.source, ConstantSource::preset);
        QCOMPARE(p->layouts.size(), std::size_t{1});
        QCOMPARE(p->communicators.front().placed, std::string("data.dp"));
        const auto again = cluster_profile_from_json(cluster_profile_json(*p).dump(), "p.json");
        QVERIFY(again);
        QCOMPARE(cluster_profile_json(*again).dump(), cluster_profile_json(*p).dump());
        QCOMPARE(QString::fromStdString(profile_constants_text(*p)),
                 QString("calibration 0.5 (fitted: step time of dp 8, cp 1, ep 8 from train.log); NVLink 400 GB/s "
                         "(fitted: 12 intra-node collective records); network 50 GB/s (preset: ndr preset)"));
    }

    void profile_refusals_data() {
        QTest::addColumn<QString>("pointer");  // JSON pointer to change; empty: the text replaces the document
        QTest::addColumn<QString>("value");    // JSON; "<remove>" removes the field
        QTest::addColumn<QString>("message");
        const auto row = [](const char* name, const char* pointer, const char* value, const char* message) {
            QTest::newRow(name) << pointer << value << message;
        };
        row("not JSON", "", "{\"format\": ", "p.json is not valid JSON (byte 12).");
        row("not an object", "", "[1]", "p.json is not a JSON object.");
        row("no format", "/format", "<remove>", "p.json: missing field 'format'");
        row("format not text", "/format", "1", "p.json: field 'format' must be a string, got 1");
        row("other format", "/format", "\"meshscope.advice/1\"",
            "p.json: field 'format' must be \"meshscope.cluster-profile/1\", got \"meshscope.advice/1\"");
        row("no hardware", "/hardware", "<remove>", "p.json: missing field 'hardware'");
        row("unknown hardware", "/hardware", "\"x100\"",
            "p.json: unknown hardware 'x100'; known: a100, h100, h200, b200, gb200");
        row("unknown network", "/network", "\"edr\"", "p.json: unknown network 'edr'; known: ndr, hdr");
        row("node size zero", "/gpus_per_node", "0", "p.json: field 'gpus_per_node' must be a positive integer, got 0");
        row("node size text", "/gpus_per_node", "\"8\"",
            "p.json: field 'gpus_per_node' must be a positive integer, got \"8\"");
        row("no constants", "/constants", "<remove>", "p.json: missing field 'constants'");
        row("constants not object", "/constants", "[]", "p.json: field 'constants' must be an object, got []");
        row("no calibration", "/constants/calibration", "<remove>", "p.json: missing field 'constants.calibration'");
        row("calibration too high", "/constants/calibration/value", "3",
            "p.json: field 'constants.calibration.value' must be a number in (0, 2], got 3");
        row("calibration zero", "/constants/calibration/value", "0",
            "p.json: field 'constants.calibration.value' must be a number in (0, 2], got 0");
        row("calibration text", "/constants/calibration/value", "\"0.5\"",
            "p.json: field 'constants.calibration.value' must be a number in (0, 2], got \"0.5\"");
        row("bandwidth negative", "/constants/intra_node_gbps/value", "-1",
            "p.json: field 'constants.intra_node_gbps.value' must be a number in (0, 10000], got -1");
        row("no inter-node", "/constants/inter_node_gbps", "<remove>",
            "p.json: missing field 'constants.inter_node_gbps'");
        row("unknown source", "/constants/inter_node_gbps/source", "\"guess\"",
            "p.json: field 'constants.inter_node_gbps.source' must be \"preset\" or \"fitted\", got \"guess\"");
        row("no basis", "/constants/calibration/basis", "<remove>",
            "p.json: missing field 'constants.calibration.basis'");
        row("no evidence", "/evidence", "<remove>", "p.json: missing field 'evidence'");
        row("layouts not array", "/evidence/layouts", "{}",
            "p.json: field 'evidence.layouts' must be an array, got {}");
        row("layout not object", "/evidence/layouts/0", "7",
            "p.json: field 'evidence.layouts[0]' must be an object, got 7");
        row("layout dp negative", "/evidence/layouts/0/dp", "-1",
            "p.json: field 'evidence.layouts[0].dp' must be a positive integer, got -1");
        row("layout no measured", "/evidence/layouts/0/measured_seconds", "<remove>",
            "p.json: missing field 'evidence.layouts[0].measured_seconds'");
        row("layout measured zero", "/evidence/layouts/0/measured_seconds", "0",
            "p.json: field 'evidence.layouts[0].measured_seconds' must be a number in (0, inf], got 0");
        row("no communicators", "/evidence/communicators", "<remove>",
            "p.json: missing field 'evidence.communicators'");
        row("communicator nranks", "/evidence/communicators/0/nranks", "0",
            "p.json: field 'evidence.communicators[0].nranks' must be a positive integer, got 0");
        row("communicator link", "/evidence/communicators/0/link", "\"nvlink\"",
            "p.json: field 'evidence.communicators[0].link' must be \"intra_node\" or \"inter_node\", got \"nvlink\"");
        row("communicator placed", "/evidence/communicators/0/placed", "3",
            "p.json: field 'evidence.communicators[0].placed' must be a string, got 3");
    }
    void profile_refusals() {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, message);
        std::string text;
        if (pointer.isEmpty()) {
            text = value.toStdString();
        } else {
            auto doc = good_profile();
            const nlohmann::json::json_pointer at(pointer.toStdString());
            if (value == "<remove>")
                doc[at.parent_pointer()].erase(at.back());
            else
                doc[at] = nlohmann::json::parse(value.toStdString());
            text = doc.dump();
        }
        const auto p = cluster_profile_from_json(text, "p.json");
        QVERIFY(!p);
        QCOMPARE(QString::fromStdString(p.error().message()), message);
    }

    void profile_file_missing() {
        const auto p = load_cluster_profile("/nonexistent/profile.json");
        QVERIFY(!p);
        QCOMPARE(QString::fromStdString(p.error().message()),
                 QString("cannot read cluster profile '/nonexistent/profile.json': No such file or directory"));
    }

    void profile_applies_to_its_hardware_only() {
        const auto p = cluster_profile_from_json(good_profile().dump(), "p.json").value();
        const auto h100 = apply_cluster_profile(make_cluster("h100", "ndr").value(), p);
        QVERIFY(h100);
        QCOMPARE(h100->calibration, 0.5);
        QCOMPARE(h100->intra.bus_gbps, 400.0);
        QCOMPARE(h100->inter.bus_gbps, 50.0);
        const auto h200 = apply_cluster_profile(make_cluster("h200", "ndr").value(), p);
        QVERIFY(!h200);
        QCOMPARE(QString::fromStdString(h200.error().message()),
                 QString("the cluster profile was fitted on h100; the cluster is h200"));
    }

    // Training logs: the step time each format gives, worked by hand.
    void training_log_step_time_data() {
        QTest::addColumn<QString>("log");
        QTest::addColumn<double>("seconds");
        QTest::addColumn<qlonglong>("steps");
        QTest::addColumn<qlonglong>("loss_lines");
        // transformers' ProgressCallback writes str(logs) per logging step and the final speed metrics
        // (trainer_utils.speed_metrics: runtime rounded to 4 decimals, per-second rates to 3).
        QTest::newRow("Hugging Face Trainer")
            << "{'loss': 2.3041, 'grad_norm': 1.25, 'learning_rate': 4.5e-05, 'epoch': 0.1}\n"
               "{'loss': 2.1002, 'grad_norm': 1.01, 'learning_rate': 4e-05, 'epoch': 0.2}\n"
               "{'train_runtime': 250.1234, 'train_samples_per_second': 12.794, 'train_steps_per_second': 0.4, "
               "'train_loss': 2.2, 'epoch': 1.0}\n"
            << 250.1234 / 100.0 << 100LL << 2LL;
        // 0.81 steps a second over 123.4567 s: 99.99 -> 100 steps.
        QTest::newRow("rounded rate") << "{'train_runtime': 123.4567, 'train_steps_per_second': 0.81}\n"
                                      << 1.234567 << 100LL << 0LL;
        // LlamaFactory v1's LoggingCallback through its logger ("[%(levelname)s|%(asctime)s] %(name)s:%(lineno)s
        // >> %(message)s"): step 10 at 10:00:05, step 30 at 10:01:05: 60 s over 20 steps.
        QTest::newRow("LlamaFactory v1")
            << "[INFO|2026-01-02 10:00:05] llamafactory.v1.utils.callbacks.logging_callback:67 >> epoch: 0, step: "
               "10, loss: 2.3041, grad_norm: 1.2500, learning_rate: 4.5e-05, total_steps: 100\n"
               "[INFO|2026-01-02 10:00:35] llamafactory.v1.utils.callbacks.logging_callback:67 >> epoch: 0, step: "
               "20, loss: 2.2041, grad_norm: 1.2000, learning_rate: 4e-05, total_steps: 100\n"
               "[INFO|2026-01-02 10:01:05] llamafactory.v1.utils.callbacks.logging_callback:67 >> epoch: 0, step: "
               "30, loss: 2.1041, grad_norm: 1.1000, learning_rate: 3.5e-05, total_steps: 100\n"
            << 3.0 << 20LL << 3LL;
        // Across midnight and a month's end.
        QTest::newRow("LlamaFactory across midnight")
            << "[INFO|2026-01-31 23:59:50] x:1 >> epoch: 0, step: 1, loss: 2.0\n"
               "[INFO|2026-02-01 00:00:10] x:1 >> epoch: 0, step: 5, loss: 1.9\n"
            << 5.0 << 4LL << 2LL;
    }
    void training_log_step_time() {
        QFETCH(QString, log);
        QFETCH(double, seconds);
        QFETCH(qlonglong, steps);
        QFETCH(qlonglong, loss_lines);
        const auto t = read_training_log(log.toStdString(), "train.log");
        QVERIFY2(t, t ? "" : t.error().what());
        QVERIFY(std::abs(t->seconds - seconds) < 1e-9 * seconds);
        QCOMPARE(t->steps, steps);
        QCOMPARE(t->loss_lines, loss_lines);
    }

    void training_log_refusals_data() {
        QTest::addColumn<QString>("log");
        QTest::addColumn<QString>("message");
        const QString none =
            "train.log: no step time: expected Hugging Face Trainer's final {'train_runtime': ..., "
            "'train_steps_per_second': ...} or two LlamaFactory step lines with timestamps";
        QTest::newRow("empty") << "" << none;
        QTest::newRow("loss lines only") << "{'loss': 2.3, 'grad_norm': 1.0, 'learning_rate': 1e-05, 'epoch': 0.1}\n"
                                         << none;
        QTest::newRow("one timestamped step") << "[INFO|2026-01-02 10:00:05] x:1 >> epoch: 0, step: 10, loss: 2.3\n"
                                              << none;
        QTest::newRow("no steps") << "{'train_runtime': 1.0, 'train_steps_per_second': 0.0}\n"
                                  << "train.log: train_steps_per_second 0 gives no steps";
    }
    void training_log_refusals() {
        QFETCH(QString, log);
        QFETCH(QString, message);
        const auto t = read_training_log(log.toStdString(), "train.log");
        QVERIFY(!t);
        QCOMPARE(QString::fromStdString(t.error().message()), message);
    }

    // A log whose step time implies a known calibration: on one GPU nothing is communicated, and compute time is
    // the FLOPs over peak x calibration (docs/cost-model-compute.md), so a step measured twice as long as the model
    // predicts at the preset's 0.60 implies 0.30, and 0.75 of it implies 0.80.
    void calibration_from_a_step_time_data() {
        QTest::addColumn<double>("factor");
        QTest::addColumn<double>("calibration");
        QTest::newRow("twice as slow") << 2.0 << 0.30;
        QTest::newRow("faster") << 0.75 << 0.80;
        QTest::newRow("as predicted") << 1.0 << 0.60;
    }
    void calibration_from_a_step_time() {
        QFETCH(double, factor);
        QFETCH(double, calibration);
        const auto in = CostInputs::make(find_model_preset("qwen3-30b-a3b").value(),
                                         TrainingSpec::make(4096, 1, 4, Recompute::selective).value(),
                                         make_cluster("h100", "ndr").value());
        const auto layout = run_layout(1, 1, 1, 8);
        const double predicted = cost_layout(in, layout.topology, layout.dims).step.seconds;
        const auto fit = fit_calibration(in, layout, predicted * factor);
        QVERIFY2(fit, fit ? "" : fit.error().what());
        QVERIFY2(std::abs(fit->calibration - calibration) < 1e-9, std::to_string(fit->calibration).c_str());
        QVERIFY(std::abs(fit->fitted.step.seconds - predicted * factor) < 1e-9 * predicted);
        QCOMPARE(fit->preset.step.seconds, predicted);
    }

    // With communication: on 16 GPUs of 2 nodes the fitted calibration makes the whole step, compute plus exposed
    // communication, equal the measured one.
    void calibration_with_communication() {
        auto in = CostInputs::make(find_model_preset("qwen3-30b-a3b").value(),
                                   TrainingSpec::make(4096, 1, 4, Recompute::selective).value(),
                                   make_cluster("h100", "ndr").value());
        const auto layout = run_layout(16, 1, 8, 8);
        const auto fit = fit_calibration(in, layout, 5.0);
        QVERIFY(fit);
        QVERIFY(std::abs(fit->fitted.step.seconds - 5.0) < 1e-9);
        QVERIFY(fit->fitted.step.exposed_seconds > 0);
        // Too short for any calibration: the communication alone is longer.
        const auto none = fit_calibration(in, layout, 0.001);
        QVERIFY(!none);
        QVERIFY2(QString::fromStdString(none.error().message())
                     .startsWith("dp 16, cp 1, ep 8: a step of 0.001 s is shorter than the model's "),
                 none.error().what());
    }

    // NCCL Inspector records in its documented formats with known link bandwidths. round_cluster: 10 us a launch,
    // 2 us a ring step inside a node, 20 us over the network. AllGather on 4 ranks of one node: latency 10 + 3 x 2
    // = 16 us; 800 MB on the wire at 80 GB/s is 10,000 us, so Inspector measures 10,016 us and writes bus bandwidth
    // 8e8 / 10,016 us = 79.872 GB/s. AllReduce on 16 ranks over 2 nodes: 2 passes, 2 steps over the network and
    // 28 inside nodes: 10 + 2 x 20 + 28 x 2 = 106 us; 400 MB at 20 GB/s is 20,000 us: 20,106 us, 19.8946 GB/s.
    void bandwidths_from_inspector_json() {
        const std::string text = json_record("mesh_ep", "AllGather", 4, 1, 10016, 8e8 / 10016e-6 / 1e9) +
                                 json_record("mesh_ep", "AllGather", 4, 1, 10016, 8e8 / 10016e-6 / 1e9) +
                                 json_record("unknown", "AllReduce", 16, 2, 20106, 4e8 / 20106e-6 / 1e9) +
                                 R"({"header":{"id":"0x1","rank":0,"n_ranks":4,"nnodes":1},"metadata":{},)"
                                 R"("p2p_perf":{"p2p":"Send","p2p_busbw_gbs":3.0}})"
                                 "\n";
        const auto read = read_nccl_inspector(text, "nccl.log");
        QVERIFY2(read, read ? "" : read.error().what());
        QCOMPARE(read->format, std::string("json"));
        QCOMPARE(read->samples.size(), std::size_t{3});
        QCOMPARE(read->p2p, std::int64_t{1});
        QCOMPARE(read->samples[2].comm, std::string("0x7f8c496ae9f661"));  // comm_name "unknown": the id
        const auto fit = fit_bandwidths({{"nccl.log", *read}}, costtest::round_cluster(8), run_layout(16, 1, 4, 8));
        QVERIFY(fit.intra_gbps && fit.inter_gbps);
        QVERIFY2(std::abs(*fit.intra_gbps - 80.0) < 1e-4, std::to_string(*fit.intra_gbps).c_str());
        QVERIFY2(std::abs(*fit.inter_gbps - 20.0) < 1e-4, std::to_string(*fit.inter_gbps).c_str());
        QCOMPARE(fit.intra_samples, std::int64_t{2});
        QCOMPARE(fit.inter_samples, std::int64_t{1});
        QCOMPARE(fit.communicators.size(), std::size_t{2});
        QCOMPARE(fit.communicators[0].samples, std::int64_t{2});
        QCOMPARE(fit.communicators[0].placed, std::string("expert.ep"));
        QCOMPARE(fit.communicators[1].placed, std::string("world"));
    }

    void bandwidths_from_inspector_prometheus() {
        // inspector_prom.cc's lines: labels in its order, values with %.6g.
        const std::string labels_intra =
            R"(version="v5.1",slurm_job_id="unknown",node="n0",gpu="GPU0",comm_name="DP Group 0",n_nodes="1",)"
            R"(nranks="4",collective="ReduceScatter",message_size="762-763MB",algo_proto="Ring_Simple")";
        const std::string labels_inter =
            R"(version="v5.1",slurm_job_id="unknown",node="n0",gpu="GPU0",comm_name="world",n_nodes="2",)"
            R"(nranks="16",collective="AllReduce",message_size="381-382MB",algo_proto="Ring_Simple")";
        char text[4096];
        std::snprintf(text, sizeof text,
                      "# HELP nccl_bus_bandwidth_gbs NCCL bus bandwidth\n"
                      "nccl_bus_bandwidth_gbs{%s} %.6g\nnccl_collective_exec_time_microseconds{%s} %.6g\n"
                      "nccl_bus_bandwidth_gbs{%s} %.6g\nnccl_collective_exec_time_microseconds{%s} %.6g\n"
                      "nccl_p2p_bus_bandwidth_gbs{%s} 3\n",
                      labels_intra.c_str(), 8e8 / 10016e-6 / 1e9, labels_intra.c_str(), 10016.0, labels_inter.c_str(),
                      4e8 / 20106e-6 / 1e9, labels_inter.c_str(), 20106.0, labels_intra.c_str());
        const auto read = read_nccl_inspector(text, "metrics.prom");
        QVERIFY2(read, read ? "" : read.error().what());
        QCOMPARE(read->format, std::string("prometheus"));
        QCOMPARE(read->samples.size(), std::size_t{2});
        QCOMPARE(read->p2p, std::int64_t{1});
        const auto fit = fit_bandwidths({{"metrics.prom", *read}}, costtest::round_cluster(8), std::nullopt);
        QVERIFY(fit.intra_gbps && fit.inter_gbps);
        QVERIFY2(std::abs(*fit.intra_gbps - 80.0) < 1e-3, std::to_string(*fit.intra_gbps).c_str());
        QVERIFY2(std::abs(*fit.inter_gbps - 20.0) < 1e-3, std::to_string(*fit.inter_gbps).c_str());
        QCOMPARE(fit.communicators[0].comm, std::string("DP Group 0"));
        QCOMPARE(fit.communicators[0].why, std::string("no layout given"));
    }

    // Placement on the dims of a run on 2 nodes of 8 (data mesh (dp, cp), expert mesh (efsdp, ep)): dp 8, cp 2, ep 4
    // unless the row says.
    void communicators_placed_on_dims_data() {
        QTest::addColumn<QString>("comm");
        QTest::addColumn<int>("nranks");
        QTest::addColumn<int>("nnodes");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("ep");
        QTest::addColumn<QString>("placed");
        QTest::addColumn<QString>("why");
        QTest::newRow("world") << "default_pg" << 16 << 2 << 2 << 4 << "world"
                               << "";
        QTest::newRow("dp across nodes") << "x" << 8 << 2 << 2 << 4 << "data.dp"
                                         << "";
        QTest::newRow("ep") << "x" << 4 << 1 << 2 << 4 << "expert.ep"
                            << "";
        QTest::newRow("no such dim") << "x" << 3 << 1 << 2 << 4 << ""
                                     << "no dim of dp 8, cp 2, ep 4 has 3 ranks over 1 node";
        // dp 16 is the world's size: the name decides, else it is the world.
        QTest::newRow("world-sized dp by name") << "mesh_dp" << 16 << 2 << 1 << 4 << "data.dp"
                                                << "";
        QTest::newRow("world-sized dp unnamed") << "pg 0" << 16 << 2 << 1 << 4 << "world"
                                                << "";
        // cp 2, ep 2 and the expert mesh's expert_cp 2 are each pairs of ranks inside a node.
        QTest::newRow("cp or ep unnamed") << "x" << 2 << 1 << 2 << 2 << ""
                                          << "data.cp, expert.ep or expert.expert_cp: each has 2 ranks over 1 node "
                                             "and the communicator's name does not say which";
        QTest::newRow("cp by name") << "mesh_cp" << 2 << 1 << 2 << 2 << "data.cp"
                                    << "";
        QTest::newRow("ep by name") << "EP group 3" << 2 << 1 << 2 << 2 << "expert.ep"
                                    << "";
    }
    void communicators_placed_on_dims() {
        QFETCH(QString, comm);
        QFETCH(int, nranks);
        QFETCH(int, nnodes);
        QFETCH(int, cp);
        QFETCH(int, ep);
        QFETCH(QString, placed);
        QFETCH(QString, why);
        InspectorRead read;
        read.samples.push_back({comm.toStdString(), "AllGather", nranks, nnodes, 10.0, 1e6});
        const auto layout = run_layout(16, cp, ep, 8);
        const auto fit = fit_bandwidths({{"f", read}}, costtest::round_cluster(8), layout);
        QCOMPARE(fit.communicators.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(fit.communicators[0].placed), placed);
        QCOMPARE(QString::fromStdString(fit.communicators[0].why), why);
    }

    void inspector_refusals_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("nothing") << "hello\n"
                                 << "f: no NCCL Inspector collective records (JSON lines with \"coll_perf\" or "
                                    "nccl_bus_bandwidth_gbs lines)";
        QTest::newRow("bad JSON line") << "\n{\"header\": \n"
                                       << "f line 2 is not valid JSON (byte 12).";
        QTest::newRow("no n_ranks") << R"({"header":{"nnodes":1},"coll_perf":{"coll":"AllReduce"}})"
                                    << "f line 1: missing field 'header.n_ranks'";
        QTest::newRow("busbw text")
            << R"({"header":{"n_ranks":2,"nnodes":1},"coll_perf":{"coll":"AllReduce","coll_exec_time_us":5,)"
               R"("coll_busbw_gbs":"fast"}})"
            << "f line 1: field 'coll_perf.coll_busbw_gbs' must be a number, got \"fast\"";
        QTest::newRow("prometheus without time")
            << R"(nccl_bus_bandwidth_gbs{comm_name="a",n_nodes="1",nranks="2",collective="AllReduce"} 5)"
            << "f line 1: nccl_bus_bandwidth_gbs has no nccl_collective_exec_time_microseconds with the same labels";
        QTest::newRow("prometheus bad nranks")
            << "nccl_bus_bandwidth_gbs{n_nodes=\"1\",nranks=\"x\",collective=\"AllReduce\"} 5\n"
               "nccl_collective_exec_time_microseconds{n_nodes=\"1\",nranks=\"x\",collective=\"AllReduce\"} 5\n"
            << "f line 1: label 'nranks' must be a positive integer, got \"x\"";
        QTest::newRow("prometheus malformed") << "nccl_bus_bandwidth_gbs{nranks=4} 5\n"
                                              << "f line 1 is not a Prometheus sample (name{label=\"value\",...} "
                                                 "number)";
    }
    void inspector_refusals() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const auto read = read_nccl_inspector(text.toStdString(), "f");
        QVERIFY(!read);
        QCOMPARE(QString::fromStdString(read.error().message()), message);
    }
};

QTEST_GUILESS_MAIN(CostProfileTest)
#include "tst_cost_profile.moc"
