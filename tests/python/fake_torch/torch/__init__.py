"""A tiny stand-in for torch 2.x's torch.distributed API surface (init_process_group, new_group, split_group,
init_device_mesh / DeviceMesh, collectives), for testing the reporter's hooks on functions Debian's torch 1.13
does not have. Only test_torch2_hooks puts this folder on sys.path; the real-job tests use real torch."""

__version__ = "2.9.0+fake"
