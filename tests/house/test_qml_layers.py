"""scripts/qml-layers.py on the real tree (every QML import one way) and on copies of qml/ and ui/ with one import
against the direction planted, each of which it must name."""
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECKER = ROOT / "scripts" / "qml-layers.py"


def run(root):
    return subprocess.run([sys.executable, str(CHECKER), str(root)], capture_output=True, text=True, timeout=60)


class QmlLayers(unittest.TestCase):
    def test_the_real_tree_follows_the_direction(self):
        result = run(ROOT)
        self.assertEqual(result.returncode, 0, result.stdout)

    def planted(self, file, edit):
        """A copy of qml/ and ui/ with `file` changed by `edit` (its text -> the new text); the checker's answer."""
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            for folder in ("qml", "ui"):
                shutil.copytree(ROOT / folder, root / folder)
            target = root / file
            target.write_text(edit(target.read_text() if target.exists() else ""))
            return run(root)

    def test_each_wrong_way_import_is_named(self):
        rows = [
            # (file, planted import, the line expected): no feature imports the window, Style imports no module
            # of ours, the Live page and the planner do not import each other or the teaching mode.
            ("ui/planner/qml/PlannerPage.qml", "MeshScope",
             "ui/planner/qml/PlannerPage.qml: imports MeshScope: MeshScope.Planner may not use MeshScope (it may use "
             "MeshScope.Common, MeshScope.Grid, MeshScope.Style)"),
            ("ui/style/qml/Theme.qml", "MeshScope.Planner",
             "ui/style/qml/Theme.qml: imports MeshScope.Planner: MeshScope.Style may not use MeshScope.Planner (it may "
             "use no other MeshScope module)"),
            ("ui/live/qml/LivePage.qml", "MeshScope.Teach",
             "ui/live/qml/LivePage.qml: imports MeshScope.Teach: MeshScope.Live may not use MeshScope.Teach (it may "
             "use MeshScope.Common, MeshScope.Grid, MeshScope.Style)"),
            ("ui/planner/qml/PlanInputs.qml", "MeshScope.Live",
             "ui/planner/qml/PlanInputs.qml: imports MeshScope.Live: MeshScope.Planner may not use MeshScope.Live (it "
             "may use MeshScope.Common, MeshScope.Grid, MeshScope.Style)"),
            ("ui/teach/qml/ToursPage.qml", "MeshScope",
             "ui/teach/qml/ToursPage.qml: imports MeshScope: MeshScope.Teach may not use MeshScope (it may use "
             "MeshScope.Common, MeshScope.Grid, MeshScope.Live, MeshScope.Planner, MeshScope.Style)"),
            ("qml/Dashboard.qml", "MeshScope.Settings",
             "qml/Dashboard.qml: imports MeshScope.Settings, which is no module of the dashboard (MeshScope, "
             "MeshScope.Teach, MeshScope.Planner, MeshScope.Live, MeshScope.Grid, MeshScope.Common, MeshScope.Style)"),
        ]
        for file, module, expected in rows:
            with self.subTest(file=file, module=module):
                result = self.planted(file, lambda text: f"import {module}\n" + text)
                self.assertEqual(result.returncode, 1, result.stdout)
                self.assertIn(expected, result.stdout.splitlines())

    def test_a_wrong_way_module_dependency_is_named(self):
        # The module graph qmllint and qmlcachegen read: a feature's qt_add_qml_module naming the window.
        result = self.planted("ui/planner/CMakeLists.txt",
                              lambda text: text.replace("DEPENDENCIES MeshScope.Grid", "DEPENDENCIES MeshScope MeshScope.Grid"))
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("ui/planner/CMakeLists.txt: DEPENDENCIES MeshScope: MeshScope.Planner may not use MeshScope (it "
                      "may use MeshScope.Common, MeshScope.Grid, MeshScope.Style)", result.stdout.splitlines())
        result = self.planted("ui/style/CMakeLists.txt",
                              lambda text: text.replace("  SOURCES\n", "  IMPORTS MeshScope.Live\n  SOURCES\n", 1))
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("ui/style/CMakeLists.txt: IMPORTS MeshScope.Live: MeshScope.Style may not use MeshScope.Live (it "
                      "may use no other MeshScope module)", result.stdout.splitlines())

    def test_a_file_outside_every_module_folder_is_named(self):
        rows = [
            ("ui/planner/Stray.qml", "ui/planner/Stray.qml"),                      # beside the C++, not in qml/
            ("qml/pages/Stray.qml", "qml/pages/Stray.qml"),                        # below the window's folder
            ("ui/planner/qml/parts/Stray.qml", "ui/planner/qml/parts/Stray.qml"),  # below a feature's qml/
        ]
        for file, name in rows:
            with self.subTest(file=file):
                with tempfile.TemporaryDirectory() as tmp:
                    root = pathlib.Path(tmp)
                    for folder in ("qml", "ui"):
                        shutil.copytree(ROOT / folder, root / folder)
                    (root / file).parent.mkdir(parents=True, exist_ok=True)
                    (root / file).write_text("import QtQuick\nItem {}\n")
                    result = run(root)
                self.assertEqual(result.returncode, 1, result.stdout)
                self.assertIn(f"{name}: outside every module's folder (qml/, ui/FEATURE/qml/)", result.stdout.splitlines())

    def test_every_module_is_built_in_cmake(self):
        # the checker's folders hold the qt_add_qml_module of the module it names
        checker = CHECKER.read_text()
        for uri, folder in (("MeshScope", "qml"), ("MeshScope.Planner", "ui/planner"), ("MeshScope.Live", "ui/live"),
                            ("MeshScope.Teach", "ui/teach"), ("MeshScope.Style", "ui/style")):
            self.assertIn(f"URI {uri}\n", (ROOT / folder / "CMakeLists.txt").read_text())
            self.assertIn(f'"{uri}": "{folder}"', checker)


if __name__ == "__main__":
    unittest.main()
