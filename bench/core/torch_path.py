#!/usr/bin/python3
"""PyTorch's own tensor path for the mesh bench_device_mesh measures: the expert mesh of dp=2^19, cp=2, ep=8,
shape (1, 65536, 8, 2), 2^20 ranks.

Groups: what DeviceMesh._init_process_groups computes before creating any communicator, for every dim:
  torch28: mesh.swapdims(-1, d).reshape(-1, shape[d]).tolist()
  torch29: mesh.permute(*other_dims, d).reshape(-1, shape[d]).tolist()
Coordinates: every rank's coordinate, vectorized (PyTorch itself finds one rank's with (mesh == rank).nonzero(),
which for all ranks would be quadratic): stack((arange // stride_d) % shape_d for d).T.tolist().

Prints one line per measurement: "<name> <best ms> <median ms>".
Usage: torch_path.py [repetitions]
"""
import statistics
import sys
import time

import torch

SHAPE = (1, 1 << 16, 8, 2)
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def groups(order):
    mesh = torch.arange(1 << 20).view(*SHAPE)
    out = []
    for d in range(len(SHAPE)):
        if order == "torch28":
            rows = mesh.swapdims(-1, d).reshape(-1, SHAPE[d])
        else:
            others = [i for i in range(len(SHAPE)) if i != d]
            rows = mesh.permute(*others, d).reshape(-1, SHAPE[d])
        out.append(rows.tolist())
    return out


def coordinates():
    ranks = torch.arange(1 << 20)
    strides = [1] * len(SHAPE)
    for i in range(len(SHAPE) - 2, -1, -1):
        strides[i] = strides[i + 1] * SHAPE[i + 1]
    return torch.stack([(ranks // s) % n for s, n in zip(strides, SHAPE)], dim=1).tolist()


def measure(name, fn):
    times = []
    for _ in range(REPS):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    print(f"{name} {min(times):.1f} {statistics.median(times):.1f}", flush=True)


torch.set_num_threads(1)
measure("coordinates", coordinates)
for order in ("torch29", "torch28"):
    measure(f"all_groups_{order}", lambda: groups(order))
    measure(f"coordinates_and_all_groups_{order}", lambda: (coordinates(), groups(order)))
