"""meshscope calibrate as a user runs it: a Hugging Face Trainer log and NCCL Inspector lines of one run in, a
meshscope.cluster-profile/1 out, and advise and check with --cluster-profile predicting the measured step
(docs/calibrate.md). Expected values come from what the inputs were written with: the step time the log's final
metrics give, and the bandwidth the Inspector records were made from."""
import json
import os
import pathlib
import subprocess
import tempfile
import unittest

MESHSCOPE = os.environ["MESHSCOPE_BIN"]

# The run: Qwen3-30B-A3B on one node of 8 H200, ep 8, seq 4096, micro-batch 1, 4 micro-batches a step, no
# recomputation. Its log: 100 steps in 1000 s, 10 s a step.
RUN = ["--model", "qwen3-30b-a3b", "--hardware", "h200", "--seq", "4096", "--micro-batch", "1", "--grad-accum", "4",
       "--recompute", "none"]
MEASURED_STEP = 10.0
LOG = (
    "{'loss': 2.3041, 'grad_norm': 1.25, 'learning_rate': 4.5e-05, 'epoch': 0.5}\n"
    "{'loss': 2.1002, 'grad_norm': 1.01, 'learning_rate': 4e-05, 'epoch': 1.0}\n"
    "{'train_runtime': 1000.0, 'train_samples_per_second': 3.2, 'train_steps_per_second': 0.1, "
    "'train_loss': 2.2, 'epoch': 1.0}\n"
)


def inspector_line(nranks, nnodes, exec_us, busbw):
    # One record as NCCL's plugins/profiler/inspector/inspector_json.cc writes it: one compact object a line.
    return json.dumps({
        "header": {"id": "0x7f8c496ae9f661", "comm_name": "mesh_ep", "rank": 0, "n_ranks": nranks, "nnodes": nnodes},
        "metadata": {"inspector_output_format_version": "v4.0", "git_rev": "", "rec_mechanism": "nccl_profiler_interface",
                     "dump_timestamp_us": 1748030377748202, "hostname": "node-0", "pid": 1},
        "coll_perf": {"coll": "AllGather", "coll_sn": 12, "coll_msg_size_bytes": 3428571428,
                      "coll_exec_time_us": exec_us, "coll_timing_source": "kernel_gpu", "coll_algobw_gbs": 0.0,
                      "coll_busbw_gbs": round(busbw, 6)},
    }, separators=(",", ":")) + "\n"


# 8 ranks of one node: the model's latency of one AllGather is NCCL's base 8.4 us plus 7 ring steps of 3.4 us
# (src/graph/tuning.cc) = 32.2 us. 3 GB on the wire in 10,032 us: 3e9 / (10,032 - 32.2) us = 300.006 GB/s.
WIRE, EXEC_US = 3e9, 10032
NVLINK = WIRE / ((EXEC_US - 32.2) * 1e-6) / 1e9


# The same run as LlamaFactory v1 configures it (no recomputation: enable_activation_checkpointing false).
YAML = ("model: Qwen/Qwen3-30B-A3B\nmicro_batch_size: 1\nglobal_batch_size: 32\ncutoff_len: 4096\n"
        "enable_activation_checkpointing: false\ndist_config:\n  name: fsdpturbo\n  ep_size: 8\n")


def run(*args):
    return subprocess.run([MESHSCOPE, *args], capture_output=True, text=True, timeout=120)


def layout(advice, dp, cp, ep):
    for item in advice["ranked"]:
        if (item["dp"], item["cp"], item["ep"]) == (dp, cp, ep):
            return item
    raise AssertionError(f"dp {dp}, cp {cp}, ep {ep} not ranked")


class Calibrate(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        (self.dir / "train.log").write_text(LOG)
        (self.dir / "nccl.log").write_text(inspector_line(8, 1, EXEC_US, WIRE / (EXEC_US * 1e-6) / 1e9) * 3)
        self.profile = self.dir / "profile.json"

    def tearDown(self):
        self.tmp.cleanup()

    def calibrate(self):
        out = run("calibrate", "--log", str(self.dir / "train.log"), "--nccl-inspector", str(self.dir / "nccl.log"),
                  "--world", "8", "--ep", "8", *RUN, "--out", str(self.profile))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stderr, "")
        return out.stdout

    def test_profile_holds_the_fits_and_their_sources(self):
        text = self.calibrate()
        self.assertIn("measured:                 10.000 s a step (train_runtime 1000 s over 100 steps", text)
        self.assertIn("predicted, this profile:  10.000 s", text)
        self.assertIn("mesh_ep", text)
        self.assertIn("expert.ep", text)
        profile = json.loads(self.profile.read_text())
        self.assertEqual(profile["format"], "meshscope.cluster-profile/1")
        self.assertEqual(profile["hardware"], "h200")
        constants = profile["constants"]
        self.assertEqual(constants["calibration"]["source"], "fitted")
        self.assertEqual(constants["intra_node_gbps"]["source"], "fitted")
        self.assertAlmostEqual(constants["intra_node_gbps"]["value"], NVLINK, places=3)
        self.assertEqual(constants["inter_node_gbps"], {"value": 50.0, "source": "preset", "basis": "ndr preset"})
        (seen,) = profile["evidence"]["layouts"]
        self.assertEqual((seen["dp"], seen["cp"], seen["ep"]), (8, 1, 8))
        self.assertAlmostEqual(seen["measured_seconds"], MEASURED_STEP, places=9)
        self.assertAlmostEqual(seen["predicted_seconds"], MEASURED_STEP, places=6)
        (comm,) = profile["evidence"]["communicators"]
        self.assertEqual((comm["comm"], comm["samples"], comm["placed"]), ("mesh_ep", 3, "expert.ep"))

    def test_advise_with_the_profile_predicts_the_measured_step(self):
        self.calibrate()
        advise = ["advise", "--world", "8", *RUN, "--format", "json"]
        before = json.loads(run(*advise).stdout)
        out = run(*advise, "--cluster-profile", str(self.profile))
        self.assertEqual(out.returncode, 0, out.stderr)
        after = json.loads(out.stdout)
        preset_step = layout(before, 8, 1, 8)["step"]["seconds"]
        step = layout(after, 8, 1, 8)["step"]["seconds"]
        self.assertAlmostEqual(step, MEASURED_STEP, places=6)
        self.assertGreater(abs(preset_step - MEASURED_STEP), 0.5)
        self.assertAlmostEqual(after["cluster"]["intra_node_gbps"], NVLINK, places=3)
        self.assertEqual(after["cluster_profile"]["constants"]["calibration"]["source"], "fitted")
        self.assertEqual(after["cluster_profile"]["constants"]["inter_node_gbps"]["source"], "preset")
        text = run("advise", "--world", "8", *RUN, "--cluster-profile", str(self.profile)).stdout
        first = text.splitlines()[0]
        self.assertTrue(first.startswith(f"cluster profile: {self.profile}: calibration "), first)
        self.assertIn("(fitted: step time of dp 8, cp 1, ep 8 from", first)
        self.assertTrue(first.endswith("network 50 GB/s (preset: ndr preset)"), first)

    def test_check_with_the_profile_predicts_the_measured_step(self):
        self.calibrate()
        yaml = self.dir / "train.yaml"
        yaml.write_text(YAML)
        out = run("check", str(yaml), "--nnodes", "1", "--nproc-per-node", "8", "--cluster-profile", str(self.profile))
        self.assertIn(f"cluster profile: {self.profile}: calibration ", out.stdout)
        self.assertIn("step: 10.000 s (compute ", out.stdout)

    def test_bad_profiles_exit_2_with_the_message(self):
        self.calibrate()
        bad = self.dir / "bad.json"
        bad.write_text(json.dumps({"format": "meshscope.advice/1"}))
        (self.dir / "x.yaml").write_text(YAML)
        cases = [
            (["advise", "--world", "8", *RUN, "--cluster-profile", str(bad)],
             f"meshscope advise: {bad}: field 'format' must be \"meshscope.cluster-profile/1\", got "
             "\"meshscope.advice/1\""),
            (["advise", "--world", "8", "--model", "qwen3-30b-a3b", "--cluster-profile", str(self.dir / "none.json")],
             f"meshscope advise: cannot read cluster profile '{self.dir / 'none.json'}': No such file or directory"),
            (["advise", "--world", "8", "--model", "qwen3-30b-a3b", "--hardware", "h100", "--cluster-profile",
              str(self.profile)],
             f"meshscope advise: {self.profile}: the cluster profile was fitted on h200; the cluster is h100"),
            (["check", str(self.dir / "x.yaml"), "--nnodes", "1", "--nproc-per-node", "8", "--cluster-profile",
              str(bad)],
             f"meshscope check: {bad}: field 'format' must be \"meshscope.cluster-profile/1\", got "
             "\"meshscope.advice/1\""),
            # The Planners read the profile once at start, and a bad one stops them before any window or socket.
            (["serve", "--listen", "127.0.0.1:0", "--db", str(self.dir / "s.db"), "--cluster-profile", str(bad)],
             f"meshscope serve: {bad}: field 'format' must be \"meshscope.cluster-profile/1\", got "
             "\"meshscope.advice/1\""),
            (["serve", "--listen", "127.0.0.1:0", "--db", str(self.dir / "s.db"), "--cluster-profile",
              str(self.dir / "none.json")],
             f"meshscope serve: cannot read cluster profile '{self.dir / 'none.json'}': No such file or directory"),
        ]
        # The dashboard's own refusal, where one is built beside meshscope (the sanitizer tree has none).
        if os.path.exists(os.path.join(os.path.dirname(MESHSCOPE), "meshscope-dashboard")):
            cases.append((["--cluster-profile", str(bad), "--screenshot", str(self.dir / "s.png")],
                          f"meshscope: {bad}: field 'format' must be \"meshscope.cluster-profile/1\", got "
                          "\"meshscope.advice/1\""))
        for args, message in cases:
            with self.subTest(args=args[0:2]):
                out = run(*args)
                self.assertEqual(out.returncode, 2, out.stdout)
                self.assertEqual(out.stderr.splitlines()[0], message)

    def test_calibrate_refusals(self):
        log = str(self.dir / "train.log")
        cases = [
            ([], "meshscope calibrate: give --log or --nccl-inspector (or both)"),
            (["--log", log, "--world", "8"], "meshscope calibrate: --log needs --model or --model-config"),
            (["--log", log, "--model", "qwen3-30b-a3b"], "meshscope calibrate: --log needs --world"),
            (["--log", str(self.dir / "none.log"), "--model", "qwen3-30b-a3b", "--world", "8"],
             f"meshscope calibrate: cannot read training log '{self.dir / 'none.log'}': No such file or directory"),
            (["--nccl-inspector", log],
             f"meshscope calibrate: {log}: no NCCL Inspector collective records (JSON lines with \"coll_perf\" or "
             "nccl_bus_bandwidth_gbs lines)"),
            (["--log", str(self.dir / "nccl.log"), "--model", "qwen3-30b-a3b", "--world", "8"],
             f"meshscope calibrate: {self.dir / 'nccl.log'}: no step time: expected Hugging Face Trainer's final "
             "{'train_runtime': ..., 'train_steps_per_second': ...} or two LlamaFactory step lines with timestamps"),
            (["--log", log, "--model", "qwen3-30b-a3b", "--world", "8", "--efficiency", "0.4"],
             "meshscope calibrate: --efficiency cannot be combined with calibrate: it fits the calibration over the "
             "kernel curves"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                out = run("calibrate", *args)
                self.assertEqual(out.returncode, 2, out.stdout)
                self.assertEqual(out.stderr.splitlines()[0], message)


VENV_PYTHON = os.environ.get("MESHSCOPE_VENV_PYTHON", "")
HERE = pathlib.Path(__file__).resolve().parent
SLOWDOWN = 2.5


@unittest.skipUnless(os.environ.get("MESHSCOPE_CALIBRATE_TORCH"), "the torch job runs as cli.calibrate_torch")
class CalibrateTorchJob(unittest.TestCase):
    """Two runs of a real 8-rank gloo job (calibrate_job.py), the second with each step slowed by SLOWDOWN, logging as
    Hugging Face Trainer does: calibrate reads each log, and the two calibrations differ by the factor injected. The
    job's MLP is not the model priced (a Qwen3-MoE config small enough that the model's communication is a few
    milliseconds of the 0.4 s step): what is checked is that real step times come back, in the ratio injected."""

    def test_a_slowed_run_lowers_the_calibration_by_the_factor(self):
        self.assertTrue(VENV_PYTHON, "MESHSCOPE_VENV_PYTHON is not set: the test needs the project's .venv with torch")
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            config = json.loads((HERE.parent / "cost" / "configs" / "qwen3-30b-a3b.json").read_text())
            config.update({"hidden_size": 2048, "num_hidden_layers": 8, "num_experts": 64, "num_experts_per_tok": 8,
                           "moe_intermediate_size": 768, "vocab_size": 32000, "num_attention_heads": 16,
                           "num_key_value_heads": 4})
            (tmp / "config.json").write_text(json.dumps(config))
            calibration = {}
            for name, slowdown in (("normal", 1.0), ("slowed", SLOWDOWN)):
                log = tmp / f"{name}.log"
                job = subprocess.run([VENV_PYTHON, str(HERE / "calibrate_job.py"), str(log), str(slowdown)],
                                     capture_output=True, text=True, timeout=240)
                self.assertEqual(job.returncode, 0, job.stderr[-2000:])
                profile = tmp / f"{name}.json"
                out = run("calibrate", "--log", str(log), "--model-config", str(tmp / "config.json"), "--world", "8",
                          "--ep", "8", "--seq", "512", "--micro-batch", "1", "--grad-accum", "1", "--recompute",
                          "none", "--out", str(profile))
                self.assertEqual(out.returncode, 0, out.stderr)
                doc = json.loads(profile.read_text())
                (seen,) = doc["evidence"]["layouts"]
                # 8 steps of 0.4 s x the slowdown: the injected step time, plus the loop's own overhead.
                self.assertAlmostEqual(seen["measured_seconds"] / (0.4 * slowdown), 1.0, delta=0.03)
                self.assertAlmostEqual(seen["predicted_seconds"], seen["measured_seconds"], places=6)
                calibration[name] = doc["constants"]["calibration"]["value"]
            self.assertAlmostEqual(calibration["normal"] / calibration["slowed"] / SLOWDOWN, 1.0, delta=0.03)


if __name__ == "__main__":
    unittest.main()
