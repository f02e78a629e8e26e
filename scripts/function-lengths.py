#!/usr/bin/env python3
"""The product's C++ functions over a length limit (default 80 lines), each with its reason when it has one.

A function is counted from the first line of its declaration (its `template <...>` line, if any) to its closing
brace; a lambda or a local class counts as part of the function that holds it. A function over the limit is
accepted when the comment right above its declaration is `// long: <reason>` (it may wrap over several `//` lines).

    python3 scripts/function-lengths.py            # every function over the limit, longest first
    python3 scripts/function-lengths.py --check    # exit 1 when one over the limit has no `// long:` reason
    python3 scripts/function-lengths.py --self-test  # the scan on planted files: what it must and must not count

The scan is a brace matcher, not a C++ parser: comments, string and character literals (raw strings too) and
preprocessor lines are blanked first, then each `{` opened at namespace or class scope whose declaration has a
parameter list is a function. Standard library only.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The product: what ships in the binaries and libraries (tests, benchmarks, fuzzers and build output are not).
PRODUCT_DIRS = ["core", "app", "server", "net", "simulator", "ui", "clients/cpp", "probe"]
SOURCE_SUFFIXES = (".cpp", ".h", ".hpp", ".cc")
REASON = re.compile(r"^\s*//\s*long:\s*\S")
# Qt's class macros end without a semicolon: blanked so that the next declaration starts after them.
QT_MACRO = re.compile(r"\b(Q_OBJECT|Q_GADGET|Q_NAMESPACE|Q_INVOKABLE|Q_SIGNALS|Q_SLOTS|Q_SIGNAL|Q_SLOT|QML_[A-Z_]+|"
                      r"Q_PROPERTY|Q_ENUM|Q_ENUM_NS|Q_FLAG|Q_DECLARE_[A-Z_]+|Q_IMPORT_[A-Z_]+|Q_DISABLE_COPY[A-Z_]*)\b")
ACCESS = re.compile(r"^(?:(?:public|private|protected|signals|slots|public\s+slots|private\s+slots|"
                    r"protected\s+slots)\s*:(?!:)\s*)+")
CONTROL = {"if", "for", "while", "switch", "catch", "do", "else", "try", "return"}


def blank(text):
    """text with comments, literals and preprocessor lines replaced by spaces (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            j = i
            while j < n and not (text[j] == "\n" and text[j - 1] != "\\"):
                j += 1
            wipe(i, j)
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif c == '"':
            raw = re.search(r'(?:\b|^)(?:u8|u|U|L)?R$', text[max(0, i - 3):i])
            if raw:
                m = re.match(r'"([^()\\\s]{0,16})\(', text[i:])
                end = text.find(")" + m.group(1) + '"', i) if m else -1
                j = n if end < 0 else end + len(m.group(1)) + 2
            else:
                j = i + 1
                while j < n and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                j += 1
            wipe(i + 1, min(j, n) - 1)
            i = j
        elif c == "'" and not (i > 0 and text[i - 1].isalnum()):  # not a digit separator (1'000)
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            wipe(i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


def blank_qt_macros(text):
    out = list(text)
    for m in QT_MACRO.finditer(text):
        j = m.end()
        k = j
        while k < len(text) and text[k] in " \t":
            k += 1
        if k < len(text) and text[k] == "(":  # the macro's arguments, balanced
            depth = 0
            while k < len(text):
                depth += {"(": 1, ")": -1}.get(text[k], 0)
                k += 1
                if depth == 0:
                    break
            j = k
        for p in range(m.start(), j):
            if out[p] != "\n":
                out[p] = " "
    return "".join(out)


def function_name(header):
    """The name before the declaration's first parameter list: "run_serve", "Monitor::add", "operator<<"."""
    depth = 0
    for k, ch in enumerate(header):
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif ch == "(" and depth == 0:
            m = re.search(r"((?:[\w~]+::)*(?:operator\s*\S+?|~?\w+))\s*$", header[:k])
            return m.group(1) if m else "?"
    return "?"


def classify(header):
    """What a `{` at namespace or class scope opens: 'scope' (namespace, class), 'function' or 'other'."""
    h = header.strip()
    if re.match(r"^(inline\s+)?namespace\b", h) or h.startswith("extern"):
        return "scope"
    if re.match(r"^(template\s*<.*>\s*)?(class|struct|union)\b", h, re.S) and "(" not in h.split("{")[0].split(":")[0]:
        return "scope"
    if re.match(r"^(enum)\b", h) or "(" not in h:
        return "other"
    if h.endswith("=") or re.search(r"=\s*$", h):
        return "other"
    first = re.match(r"\w+", h)
    if first and first.group(0) in CONTROL:
        return "other"
    return "function"


def functions(path):
    """(name, first line, last line) of each function defined at namespace or class scope in path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = blank_qt_macros(blank(f.read()))
    line_of = []
    line = 1
    for ch in text:
        line_of.append(line)
        if ch == "\n":
            line += 1
    found = []
    stack = []  # kinds of the open braces
    header_start = 0  # where the current declaration begins (after the last ; { or } at this level)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == ";" and (not stack or stack[-1] == "scope"):
            header_start = i + 1
        elif c == "{":
            if not stack or stack[-1] == "scope":
                header = text[header_start:i]
                access = ACCESS.match(header.lstrip())
                lead = len(header) - len(header.lstrip()) + (access.end() if access else 0)
                kind = classify(header[lead:])
                stack.append(kind)
                if kind == "function":
                    start = header_start + lead
                    while start < i and text[start].isspace():
                        start += 1
                    stack[-1] = ("function", function_name(header[lead:]), line_of[start])
                else:
                    header_start = i + 1
            else:
                stack.append("inner")
        elif c == "}":
            if stack:
                top = stack.pop()
                if isinstance(top, tuple):
                    found.append((top[1], top[2], line_of[i]))
            if not stack or stack[-1] == "scope":
                header_start = i + 1
        i += 1
    return found


def long_reason(lines, first):
    """The `// long: <reason>` comment right above line `first` (1-based), "" when there is none. The comment may
    wrap over several `//` lines; it ends on the line before the declaration."""
    block = []
    k = first - 2
    while k >= 0 and lines[k].lstrip().startswith("//"):
        block.insert(0, lines[k].strip())
        if REASON.match(lines[k]):
            return " ".join(line[2:].strip() for line in block)
        k -= 1
    return ""


def product_files(root):
    for d in PRODUCT_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = sorted(x for x in dirnames if not x.startswith(("build", ".")))
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.join(dirpath, name)


def self_test():
    """The scan on a planted tree: lengths, reasons, and what must not open or close a function."""
    import tempfile

    def body(n):  # a function of exactly n lines
        return ["int f%d() {" % n] + ["    x += 1;"] * (n - 2) + ["}"]

    tricky = ['const char* s = "{{{";', "const char c = '{';", 'const char* r = R"x(}})x";', "// }", "/* { */",
              "#define OPEN {", "int n = 1'000;"]
    cases = [  # (lines, expected [(name, length, has reason)])
        (body(80), [("f80", 80, False)]),
        (["// long: a planted table"] + body(81), [("f81", 81, True)]),
        (["namespace a {", "struct S {", "    Q_OBJECT", "public:", "    void g() const {"] + ["        y();"] * 79 +
         ["    }", "};", "}  // namespace a"], [("g", 81, False)]),
        (tricky + ["int h() {", "    auto l = [] {", "        return 1;", "    };"] + ["    z();"] * 90 + ["}"],
         [("h", 95, False)]),
        (["template <class T>", "T t(T v) {"] + ["    v++;"] * 85 + ["}", "const int table[] = {", "1,", "};"],
         [("t", 88, False)]),
    ]
    failures = 0
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "core"))
        for i, (lines, expected) in enumerate(cases):
            path = os.path.join(root, "core", "case%d.cpp" % i)
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            got = []
            for name, first, last in functions(path):
                got.append((name, last - first + 1, bool(long_reason(lines, first))))
            if got != expected:
                print(f"function-lengths self-test: case {i}: got {got}, expected {expected}")
                failures += 1
    print(f"function-lengths self-test: {len(cases) - failures} of {len(cases)} cases as expected")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when a long function has no `// long:` reason")
    parser.add_argument("--limit", type=int, default=80, help="the most lines a function has without a reason")
    parser.add_argument("--root", default=ROOT, help="the source tree (default: this script's)")
    parser.add_argument("--self-test", action="store_true", help="check the scan on planted files, then exit")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    rows = []
    for path in product_files(args.root):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        for name, first, last in functions(path):
            length = last - first + 1
            if length > args.limit:
                reason = long_reason(lines, first)
                rows.append((length, os.path.relpath(path, args.root), first, name, reason.strip()))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    missing = [r for r in rows if not r[4]]
    for length, path, first, name, reason in rows:
        print(f"{path}:{first}: {name}: {length} lines" + (f"  {reason}" if reason else "  (no `// long:` reason)"))
    print(f"function-lengths: {len(rows)} functions over {args.limit} lines, {len(missing)} without a reason")
    return 1 if args.check and missing else 0


if __name__ == "__main__":
    sys.exit(main())
