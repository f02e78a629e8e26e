import itertools
import os

from torch.distributed.distributed_c10d import new_group, split_group

__all__ = ["DeviceMesh", "init_device_mesh"]


def _lines(shape, dim):
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    others = [range(n) if i != dim else range(1) for i, n in enumerate(shape)]
    for coord in itertools.product(*others):
        base = sum(c * s for c, s in zip(coord, strides))
        yield [base + k * strides[dim] for k in range(shape[dim])]


class DeviceMesh:
    def __init__(self, device_type, mesh, *, mesh_dim_names=None, _init_backend=True):
        self.shape = []
        level = mesh
        while isinstance(level, list):
            self.shape.append(len(level))
            level = level[0]
        self.mesh_dim_names = mesh_dim_names
        self.groups = []
        for dim in range(len(self.shape)):
            lines = list(_lines(self.shape, dim))
            if os.environ.get("FAKE_TORCH_SPLIT"):
                self.groups.append(split_group(None, lines))
            else:
                self.groups.extend(new_group(line) for line in lines)


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None):
    total = 1
    for n in mesh_shape:
        total *= n
    flat = list(range(total))
    for size in reversed(mesh_shape[1:]):
        flat = [flat[i:i + size] for i in range(0, len(flat), size)]
    return DeviceMesh(device_type, flat, mesh_dim_names=mesh_dim_names)
