"""meshscope-probe's NCCL backend is built (against the NCCL and CUDA runtime wheels of the project's .venv, or
a CUDA toolkit), and without a GPU `--backend nccl` exits 3 with its message instead of crashing or hanging.
CUDA_VISIBLE_DEVICES is emptied, so this holds on a machine with GPUs too.

    nccl_without_gpu.py MESHSCOPE_PROBE_BIN SOURCE     SOURCE: wheels | toolkit | none (what CMake found)

With the wheels, the versions the binary reports must be the pinned wheels' (tests/torch/requirements.txt):
nvidia-nccl-cu13 X.Y.Z is NCCL X.Y.Z, nvidia-cuda-runtime 13.2.x is CUDA runtime 13020 (major * 1000 + minor * 10).
"""

import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from expected_version import check_version_line  # noqa: E402

PROBE, SOURCE = sys.argv[1], sys.argv[2]


def pinned(package):
    with open(os.path.join(HERE, "..", "torch", "requirements.txt"), encoding="utf-8") as handle:
        for line in handle:
            if line.startswith(package + "=="):
                return line.split("==", 1)[1].strip()
    raise LookupError(package)


class NcclWithoutGpuTest(unittest.TestCase):
    def run_probe(self, *args):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MESHSCOPE_", "RANK", "WORLD_SIZE"))}
        env.update(CUDA_VISIBLE_DEVICES="", RANK="0", WORLD_SIZE="1", LOCAL_RANK="0")
        return subprocess.run([PROBE, *args], capture_output=True, text=True, timeout=60, env=env)

    def test_built_with_nccl(self):
        self.assertIn(SOURCE, ("wheels", "toolkit"), "CMake found no NCCL: run scripts/bootstrap.sh torch, then cmake")
        out = self.run_probe("--version")
        self.assertEqual(out.returncode, 0, out.stderr)
        if SOURCE == "wheels":
            major, minor = pinned("nvidia-cuda-runtime").split(".")[:2]
            check_version_line(self, out.stdout, "meshscope-probe", after=re.escape(
                f" (gloo; NCCL {pinned('nvidia-nccl-cu13')}, CUDA runtime {int(major) * 1000 + int(minor) * 10})\n")
                + "$")
        else:
            check_version_line(self, out.stdout, "meshscope-probe",
                               after=r" \(gloo; NCCL \d+\.\d+\.\d+, CUDA runtime \d+\)\n$")

    def test_backend_nccl_without_a_gpu_exits_3(self):
        # The collector is never reached: the backend is refused before any rendezvous.
        out = self.run_probe("--backend", "nccl", "--dp", "1", "--collector", "http://127.0.0.1:9", "--timeout", "5")
        self.assertEqual(out.returncode, 3, out.stdout + out.stderr)
        self.assertEqual(out.stdout, "")
        # cudaGetDeviceCount's own words vary with the driver (none here: "CUDA driver version is insufficient
        # for CUDA runtime version"; a GPU machine with none visible: "no CUDA-capable device is detected")
        self.assertRegex(out.stderr, r"^meshscope-probe: no CUDA device visible: "
                                     r"(.+ \(cudaGetDeviceCount\)|cudaGetDeviceCount found 0 devices)\n$")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
