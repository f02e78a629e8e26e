"""A tiny stand-in for torch 2.x's torch.distributed API surface (init_process_group, new_group, split_group,
init_device_mesh / DeviceMesh, collectives), for what the installed torch (2.15, CPU) cannot produce: split_group
from DeviceMesh (it needs a bound CUDA device) and PyTorch 2.8's creation order (FAKE_TORCH_ORDER=2.8). Only
test_torch2_hooks puts this folder on sys.path; everything else runs on real torch."""

__version__ = "2.9.0+fake"
