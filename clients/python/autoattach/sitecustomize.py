"""MeshScope auto-attach: put this directory first on PYTHONPATH and set MESHSCOPE_URL.

    PYTHONPATH=/path/to/clients/python/autoattach:$PYTHONPATH MESHSCOPE_URL=http://head:7077 torchrun ... train.py

Without MESHSCOPE_URL nothing is imported and nothing starts. Either way the sitecustomize this file shadows
(Debian's, a virtualenv's, your own) still runs, after ours.
"""


def _meshscope_attach():
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    if os.environ.get("MESHSCOPE_URL"):
        package_root = os.path.dirname(here)  # clients/python: holds meshscope_report
        try:
            if package_root not in sys.path:
                sys.path.append(package_root)
            import meshscope_report

            meshscope_report.install()
        except Exception:
            pass

    # Chain to the next sitecustomize on the path, as if this one were not there.
    try:
        import importlib.machinery
        import importlib.util

        others = [p for p in sys.path if os.path.abspath(p or ".") != here]
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
    except Exception:
        pass


_meshscope_attach()
del _meshscope_attach
