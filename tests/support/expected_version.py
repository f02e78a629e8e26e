"""What an executable's --version must print, from sources the program does not use: the project's version in the
top CMakeLists.txt and the commit git names for the tree the tests run in ("-dirty" allowed after it: the tree may
have been edited between build and test)."""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(MeshScope VERSION (\d+\.\d+\.\d+)", text).group(1)


def head_commit():
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()


def version_pattern(program):
    """A regex for the line: 'meshscope 0.1.0 (commit 74a8c20a1b2c)' or '... (commit 74a8c20a1b2c-dirty)'."""
    return re.escape(f"{program} {project_version()} (commit {head_commit()}") + r"(-dirty)?\)"
