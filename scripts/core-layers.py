#!/usr/bin/env python3
"""Checks that core's libraries use each other one way only (docs/architecture.md, "Core's libraries").

Every source and header of core lives in one library's folder (core/src/LIB, core/include/meshscope/LIB), and
includes only core headers of its own library or of the libraries it may use. Prints each include against the
direction and exits 1; exits 0 when there is none. Usage: core-layers.py [CORE_DIR]"""
import pathlib
import re
import sys

# What each library may use: the one place the direction is written (core/CMakeLists.txt links the same).
USES = {
    "mesh": set(),
    "monitor": {"mesh"},
    "records": {"monitor", "mesh"},
    "cost": {"mesh"},
    "tour": {"monitor", "mesh"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def library_of_file(core: pathlib.Path, path: pathlib.Path):
    rel = path.relative_to(core).parts
    if rel[:1] == ("src",) and len(rel) >= 3:
        return rel[1]
    if rel[:2] == ("include", "meshscope") and len(rel) >= 4:
        return rel[2]
    return None


def library_of_include(name: str):
    parts = name.split("/")
    if parts[0] == "meshscope" and len(parts) >= 3:
        return parts[1]
    if len(parts) >= 2 and parts[0] in USES:  # a library's private header, through core/src
        return parts[0]
    return None


def problems(core: pathlib.Path):
    found = []
    for path in sorted(list(core.glob("src/**/*")) + list(core.glob("include/**/*"))):
        if path.suffix not in (".h", ".hpp", ".cpp") or not path.is_file():
            continue
        rel = path.relative_to(core)
        lib = library_of_file(core, path)
        if lib not in USES:
            found.append(f"{rel}: outside every library's folder ({', '.join(USES)})")
            continue
        for name in INCLUDE.findall(path.read_text(encoding="utf-8", errors="replace")):
            used = library_of_include(name)
            if used is None or used == lib:
                continue
            if used not in USES:
                found.append(f"{rel}: includes {name}, which is in no library")
            elif used not in USES[lib]:
                may = ", ".join(sorted(USES[lib])) or "no other library"
                found.append(f"{rel}: includes {name}: {lib} may not use {used} (it may use {may})")
    return found


def main() -> int:
    core = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent / "core")
    found = problems(core)
    for line in found:
        print(line)
    if found:
        print(f"core-layers: {len(found)} include(s) against the direction of core's libraries")
        return 1
    print("core-layers: every include follows mesh <- monitor <- records; mesh <- cost; monitor, mesh <- tour")
    return 0


if __name__ == "__main__":
    sys.exit(main())
