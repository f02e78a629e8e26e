"""What an executable's --version must print, from sources the program does not use: the project's version in the
top CMakeLists.txt and a commit git knows in the tree the tests run in: HEAD or one before it (the build may be a
commit or two behind the checkout), "-dirty" allowed after it (edited between commit and build)."""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(MeshScope VERSION (\d+\.\d+\.\d+)", text).group(1)


def version_pattern(program):
    """A regex for 'meshscope 0.1.0 (commit 74a8c20a1b2c)' or '... (commit 74a8c20a1b2c-dirty)'; group 1: the
    commit."""
    return re.escape(f"{program} {project_version()} (commit ") + r"([0-9a-f]{12})(?:-dirty)?\)"


def is_commit_of_this_tree(commit):
    """Whether git names commit as HEAD or an ancestor of it."""
    result = subprocess.run(["git", "-C", str(ROOT), "merge-base", "--is-ancestor", commit, "HEAD"],
                            capture_output=True, text=True)
    return result.returncode == 0


def check_version_line(test, text, program, after=r"\n$"):
    """Asserts text is program's version line (then `after`, a regex) naming a commit of this tree."""
    match = re.match(version_pattern(program) + after, text)
    test.assertIsNotNone(match, f"not a version line of {program}: {text!r}")
    test.assertTrue(is_commit_of_this_tree(match.group(1)), f"{match.group(1)} is no commit of this tree")
