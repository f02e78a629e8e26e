#!/usr/bin/env python3
"""Checks that the dashboard's QML modules import each other one way only (docs/architecture.md, "QML modules").

Every .qml file of the product lives in one module's folder: qml/ (MeshScope, the window) or ui/FEATURE/qml/ (that
feature's module). A file imports only its own module and the MeshScope modules its module may use, and each
qt_add_qml_module (qml/CMakeLists.txt, ui/*/CMakeLists.txt) names only those in IMPORTS and DEPENDENCIES. Prints
each import against the direction and exits 1; exits 0 when there is none. Usage: qml-layers.py [SOURCE_DIR]"""
import pathlib
import re
import sys

# The folder of each module's CMakeLists.txt and QML files, relative to the source tree.
FOLDERS = {
    "MeshScope": "qml",
    "MeshScope.Teach": "ui/teach",
    "MeshScope.Planner": "ui/planner",
    "MeshScope.Live": "ui/live",
    "MeshScope.Grid": "ui/grid",
    "MeshScope.Common": "ui/common",
    "MeshScope.Style": "ui/style",
}
# What each module may import: the one place the direction is written. The window sits on top; no feature
# imports it, the planner and the Live page do not import each other, and MeshScope.Style imports no module of ours.
USES = {
    "MeshScope": {"MeshScope.Teach", "MeshScope.Planner", "MeshScope.Live", "MeshScope.Grid", "MeshScope.Common",
                  "MeshScope.Style"},
    "MeshScope.Teach": {"MeshScope.Planner", "MeshScope.Live", "MeshScope.Grid", "MeshScope.Common",
                        "MeshScope.Style"},
    "MeshScope.Planner": {"MeshScope.Grid", "MeshScope.Common", "MeshScope.Style"},
    "MeshScope.Live": {"MeshScope.Grid", "MeshScope.Common", "MeshScope.Style"},
    "MeshScope.Grid": set(),
    "MeshScope.Common": set(),
    "MeshScope.Style": set(),
}
IMPORT = re.compile(r"^\s*import\s+(MeshScope(?:\.\w+)*)\b", re.M)
QML_MODULE = re.compile(r"qt_add_qml_module\s*\((.*?)\)\s*$", re.S | re.M)
# qt_add_qml_module's keywords: a list after IMPORTS or DEPENDENCIES runs to the next one.
KEYWORDS = {"URI", "VERSION", "CLASS_NAME", "PLUGIN_TARGET", "RESOURCE_PREFIX", "IMPORTS", "DEPENDENCIES",
            "OPTIONAL_IMPORTS", "DEFAULT_IMPORTS", "PAST_MAJOR_VERSIONS", "SOURCES", "QML_FILES", "RESOURCES",
            "OUTPUT_DIRECTORY", "TYPEINFO", "NO_PLUGIN", "STATIC", "SHARED", "NO_GENERATE_QMLDIR", "NO_LINT",
            "NO_CACHEGEN", "NO_RESOURCE_TARGET_PATH", "NO_IMPORT_SCAN", "DESIGNER_SUPPORTED", "OUTPUT_TARGETS"}


def module_of_file(rel: pathlib.PurePosixPath):
    """The module a .qml file belongs to by its folder, or None."""
    if rel.parts[0] == "qml":
        return "MeshScope" if len(rel.parts) == 2 else None
    for uri, folder in FOLDERS.items():
        parts = pathlib.PurePosixPath(folder).parts
        if rel.parts[:len(parts)] == parts and rel.parts[len(parts):-1] == ("qml",):
            return uri
    return None


def verdict(module: str, used: str):
    if used == module:
        return None
    if used not in USES:
        return f"{used}, which is no module of the dashboard ({', '.join(USES)})"
    if used not in USES[module]:
        may = ", ".join(sorted(USES[module])) or "no other MeshScope module"
        return f"{used}: {module} may not use {used} (it may use {may})"
    return None


def cmake_problems(root: pathlib.Path, module: str, folder: str):
    cmake = root / folder / "CMakeLists.txt"
    found = []
    for body in QML_MODULE.findall(cmake.read_text(encoding="utf-8")):
        words = [w for line in body.splitlines() for w in line.split("#", 1)[0].split()]
        uri = words[words.index("URI") + 1] if "URI" in words else None
        if uri != module:
            found.append(f"{folder}/CMakeLists.txt: module {uri}, expected {module} in {folder}")
            continue
        section = None
        for word in words:
            if word in KEYWORDS:
                section = word
            elif section in ("IMPORTS", "DEPENDENCIES") and word.startswith("MeshScope"):
                if (why := verdict(module, word)) is not None:
                    found.append(f"{folder}/CMakeLists.txt: {section} {why}")
    return found


def problems(root: pathlib.Path):
    found = []
    files = sorted(list((root / "qml").rglob("*.qml")) + list((root / "ui").rglob("*.qml")))
    for path in files:
        rel = pathlib.PurePosixPath(path.relative_to(root).as_posix())
        module = module_of_file(rel)
        if module is None:
            found.append(f"{rel}: outside every module's folder (qml/, ui/FEATURE/qml/)")
            continue
        for used in IMPORT.findall(path.read_text(encoding="utf-8", errors="replace")):
            if (why := verdict(module, used)) is not None:
                found.append(f"{rel}: imports {why}")
    for module, folder in FOLDERS.items():
        found += cmake_problems(root, module, folder)
    return found


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    found = problems(root)
    for line in found:
        print(line)
    if found:
        print(f"qml-layers: {len(found)} file(s) or import(s) against the QML modules' folders and direction")
        return 1
    print("qml-layers: every import follows MeshScope -> Teach -> Planner, Live -> Grid, Common, Style")
    return 0


if __name__ == "__main__":
    sys.exit(main())
