"""ctest entry: run one test module with unittest. Exit 0 on success, 1 on any failure, 77 (ctest
SKIP_RETURN_CODE) when every test was skipped. Only a test that needs a GPU may skip; one that misses
torch or `meshscope serve` fails, since the test command provides both."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    suite = unittest.defaultTestLoader.loadTestsFromNames(sys.argv[1:])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        return 1
    if result.testsRun and len(result.skipped) == result.testsRun:
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
