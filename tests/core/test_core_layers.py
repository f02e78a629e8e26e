"""scripts/core-layers.py on the real core (no include against the direction) and on copies of it with one
include against the direction planted, each of which it must name."""
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECKER = ROOT / "scripts" / "core-layers.py"


def run(core):
    return subprocess.run([sys.executable, str(CHECKER), str(core)], capture_output=True, text=True, timeout=60)


class CoreLayers(unittest.TestCase):
    def test_the_real_core_follows_the_direction(self):
        result = run(ROOT / "core")
        self.assertEqual(result.returncode, 0, result.stdout)

    def planted(self, file, include):
        """A copy of core with `include` added at the top of `file`; the checker's answer."""
        with tempfile.TemporaryDirectory() as tmp:
            core = pathlib.Path(tmp) / "core"
            shutil.copytree(ROOT / "core", core)
            target = core / file
            target.write_text(f"#include {include}\n" + target.read_text())
            return run(core)

    def test_each_wrong_way_include_is_named(self):
        rows = [
            # (file, planted include, the line expected), each against the direction written in the issue's
            # picture: mesh uses nothing, cost does not use monitor, monitor does not use records or tour.
            ("src/mesh/plan.cpp", '"meshscope/monitor/event.h"',
             'src/mesh/plan.cpp: includes meshscope/monitor/event.h: mesh may not use monitor (it may use no other library)'),
            ("include/meshscope/cost/advice.h", "<meshscope/records/diagnose.h>",
             'include/meshscope/cost/advice.h: includes meshscope/records/diagnose.h: cost may not use records (it may use mesh)'),
            ("src/monitor/monitor.cpp", '"records/diagnose_internal.h"',
             'src/monitor/monitor.cpp: includes records/diagnose_internal.h: monitor may not use records (it may use mesh)'),
            ("src/monitor/finding.cpp", '"meshscope/tour/tour.h"',
             'src/monitor/finding.cpp: includes meshscope/tour/tour.h: monitor may not use tour (it may use mesh)'),
        ]
        for file, include, expected in rows:
            with self.subTest(file=file, include=include):
                result = self.planted(file, include)
                self.assertEqual(result.returncode, 1, result.stdout)
                self.assertIn(expected, result.stdout.splitlines())

    def test_a_file_outside_every_library_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            core = pathlib.Path(tmp) / "core"
            shutil.copytree(ROOT / "core", core)
            (core / "src" / "stray.cpp").write_text("int stray;\n")
            result = run(core)
            self.assertEqual(result.returncode, 1)
            self.assertIn("src/stray.cpp: outside every library's folder (mesh, monitor, records, cost, tour)",
                          result.stdout.splitlines())

    def test_every_library_is_built_in_cmake(self):
        # the checker's libraries and core/CMakeLists.txt's are the same five
        cmake = (ROOT / "core" / "CMakeLists.txt").read_text()
        for lib in ("mesh", "monitor", "records", "cost", "tour"):
            self.assertIn(f"meshscope_core_library({lib} ", cmake)


if __name__ == "__main__":
    unittest.main()
