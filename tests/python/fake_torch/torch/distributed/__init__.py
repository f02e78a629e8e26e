def is_available():
    return True


from .distributed_c10d import *  # noqa: E402,F401,F403  (as torch/distributed/__init__.py does)
from .distributed_c10d import _state  # noqa: E402,F401
