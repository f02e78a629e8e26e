"""meshscope's one command table, as a user meets it: `meshscope --help`, the README's command list, the message of
a headless install (meshscope without meshscope-dashboard beside it), bash completion, and every executable's
--version (its expected text from the top CMakeLists.txt and git, not from the program)."""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent / "support"))
from expected_version import check_version_line  # noqa: E402

MESHSCOPE = os.environ["MESHSCOPE_BIN"]
DASHBOARD = os.environ.get("MESHSCOPE_DASHBOARD_BIN", "")
PROBE = os.environ.get("MESHSCOPE_PROBE_BIN", "")


def run(*args, **kwargs):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=60, **kwargs)


def help_commands():
    out = run(MESHSCOPE, "--help")
    assert out.returncode == 0, out.stderr
    block = out.stdout.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines()]


class CommandTable(unittest.TestCase):
    def test_help_lists_commands_that_each_answer_help(self):
        names = help_commands()
        # the commands a user of the docs knows, written out here: none may go missing from the table
        for known in ("plan", "advise", "check", "peers", "serve", "relay", "simulate", "replay", "export",
                      "diagnose", "import", "ras", "completion"):
            self.assertIn(known, names)
        for name in names:
            with self.subTest(command=name):
                out = run(MESHSCOPE, name, "--help")
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertTrue(out.stdout.strip(), "no help text")

    def test_readme_lists_every_command_and_no_other(self):
        readme = (ROOT / "README.md").read_text()
        table = readme.split("## What is in the box", 1)[1].split("\n## ", 1)[0]
        first_cells = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `meshscope")]
        listed = set()
        for cell in first_cells:
            # `meshscope plan ...`, `meshscope export / replay ...`; flags (`meshscope --connect`) name no command
            match = re.match(r" `meshscope ([a-z]+(?: / [a-z]+)*)", cell)
            if match:
                listed.update(match.group(1).split(" / "))
        self.assertEqual(listed, set(help_commands()))

    def test_headless_install_names_the_commands_of_the_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            alone = pathlib.Path(tmp) / "meshscope"
            shutil.copy(MESHSCOPE, alone)  # no meshscope-dashboard beside it: a headless install
            out = run(str(alone))
            self.assertEqual(out.returncode, 1)
            names = help_commands()
            sentence = ", ".join(names[:-1]) + " and " + names[-1]
            self.assertIn(f"This is a headless install: the commands are {sentence} (meshscope --help).",
                          out.stderr)

    def test_unknown_command(self):
        out = run(MESHSCOPE, "diagnoze")
        self.assertEqual(out.returncode, 2)
        self.assertTrue(out.stderr.startswith("meshscope: unknown command 'diagnoze'\n"), out.stderr)

    def test_version_of_every_executable(self):
        programs = [("meshscope", MESHSCOPE, "--version"), ("meshscope", MESHSCOPE, "-V")]
        if DASHBOARD:
            programs += [("meshscope-dashboard", DASHBOARD, "--version")]
        for name, path, flag in programs:
            with self.subTest(program=name, flag=flag):
                out = run(path, flag, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
                self.assertEqual(out.returncode, 0, out.stderr)
                check_version_line(self, out.stdout, name)
        if PROBE:  # the probe adds its backends after the line (tests/probe checks them)
            out = run(PROBE, "--version")
            self.assertEqual(out.returncode, 0, out.stderr)
            check_version_line(self, out.stdout, "meshscope-probe", after=r" \(gloo; ")


class Completion(unittest.TestCase):
    def complete(self, *words):
        """COMPREPLY of the script for the command line `words` (the last word being completed)."""
        script = run(MESHSCOPE, "completion", "bash")
        self.assertEqual(script.returncode, 0, script.stderr)
        words_text = " ".join(f"'{w}'" for w in words)
        program = (f"source /dev/stdin; COMP_WORDS=({words_text}); COMP_CWORD={len(words) - 1}; _meshscope; "
                   'printf "%s\\n" "${COMPREPLY[@]}"')
        path = f"{os.path.dirname(MESHSCOPE)}:{os.environ.get('PATH', '')}"  # the word meshscope is the built one
        out = run("bash", "-c", program, input=script.stdout, env={**os.environ, "PATH": path})
        self.assertEqual(out.returncode, 0, out.stderr)
        return sorted(filter(None, out.stdout.splitlines()))

    def test_commands(self):
        self.assertEqual(self.complete("meshscope", "di"), ["diagnose"])
        self.assertEqual(self.complete("meshscope", "r"), ["ras", "relay", "replay"])
        self.assertEqual(self.complete("meshscope", "--v"), ["--version"])

    def test_a_commands_flags_from_its_help(self):
        self.assertEqual(self.complete("meshscope", "plan", "--d"), ["--dp"])
        flags = self.complete("meshscope", "diagnose", "--")
        for flag in ("--plan", "--dp", "--cp", "--ep", "--format"):
            self.assertIn(flag, flags)

    def test_errors(self):
        rows = [
            ((), "meshscope completion: give a shell (bash)\n"),
            (("zsh",), "meshscope completion: 'zsh' is not a shell it knows (bash)\n"),
            (("bash", "extra"), "meshscope completion: one shell only, got 2 arguments\n"),
        ]
        for args, first_line in rows:
            with self.subTest(args=args):
                out = run(MESHSCOPE, "completion", *args)
                self.assertEqual(out.returncode, 2)
                self.assertTrue(out.stderr.startswith(first_line), out.stderr)
                self.assertEqual(out.stdout, "")


if __name__ == "__main__":
    unittest.main()
