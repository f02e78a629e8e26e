import itertools
import os

from torch.distributed.distributed_c10d import new_group, split_group

__all__ = ["DeviceMesh", "init_device_mesh"]


def _outer_dims(ndim, dim):
    """The other dims, outermost first, in the order a PyTorch version walks them to create dim's groups:
    >= 2.9 lexicographically; <= 2.8 (FAKE_TORCH_ORDER=2.8) by rows of mesh.swapdims(-1, dim), where the last dim
    takes dim's place."""
    if os.environ.get("FAKE_TORCH_ORDER") == "2.8" and dim != ndim - 1:
        return list(range(dim)) + [ndim - 1] + list(range(dim + 1, ndim - 1))
    return [i for i in range(ndim) if i != dim]


def _lines(shape, dim):
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    outer = _outer_dims(len(shape), dim)
    for coord in itertools.product(*(range(shape[i]) for i in outer)):
        base = sum(c * strides[i] for c, i in zip(coord, outer))
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
