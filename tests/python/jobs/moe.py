"""A small mixture-of-experts model trained the way FSDPTurbo lays it out (shared/docs/domain.md section 1):
the experts are split over the ep group (each ep rank holds n_experts / ep of them; tokens travel to them and
back with all_to_all_single) and sharded over efsdp with FSDP2's fully_shard, the rest is sharded over the data
mesh's dp sub-mesh. CPU, gloo, float32; a few thousand parameters, so one step takes about a second."""

import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard


class _AllToAll(torch.autograd.Function):
    """dist.all_to_all_single with its gradient: the backward sends each gradient back the way it came."""

    @staticmethod
    def forward(ctx, x, send_counts, recv_counts, group):
        ctx.counts, ctx.group = (send_counts, recv_counts), group
        out = x.new_empty((sum(recv_counts),) + tuple(x.shape[1:]))
        dist.all_to_all_single(out, x.contiguous(), recv_counts, send_counts, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        send_counts, recv_counts = ctx.counts
        out = grad.new_empty((sum(send_counts),) + tuple(grad.shape[1:]))
        dist.all_to_all_single(out, grad.contiguous(), send_counts, recv_counts, group=ctx.group)
        return out, None, None, None


class Experts(torch.nn.Module):
    """This ep rank's experts: two-layer MLPs, one weight tensor per layer for all of them (sharded by FSDP2)."""

    def __init__(self, n_local, hidden):
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.randn(n_local, hidden, 2 * hidden) * 0.1)
        self.w2 = torch.nn.Parameter(torch.randn(n_local, 2 * hidden, hidden) * 0.1)

    def forward(self, tokens, local_expert):
        out = torch.zeros_like(tokens)
        for e in range(self.w1.shape[0]):
            index = (local_expert == e).nonzero().squeeze(-1)
            hidden = torch.relu(tokens.index_select(0, index) @ self.w1[e]) @ self.w2[e]
            out = out.index_copy(0, index, hidden)
        return out


class MoELayer(torch.nn.Module):
    """Top-1 routing over n_experts experts, expert e held by ep rank e // (n_experts / ep)."""

    def __init__(self, hidden, n_experts, ep_group):
        super().__init__()
        self.ep_group = ep_group
        self.ep = dist.get_world_size(ep_group)
        self.n_local = n_experts // self.ep
        self.router = torch.nn.Linear(hidden, n_experts, bias=False)
        self.experts = Experts(self.n_local, hidden)
        self.tokens_received = 0

    def forward(self, x):
        logits = self.router(x)
        expert = logits.argmax(-1)
        weight = torch.softmax(logits, -1).gather(-1, expert[:, None])
        owner = expert // self.n_local
        order = torch.argsort(owner, stable=True)
        send = torch.bincount(owner, minlength=self.ep)
        recv = torch.empty_like(send)
        dist.all_to_all_single(recv, send, group=self.ep_group)  # how many tokens each peer sends
        send_counts, recv_counts = send.tolist(), recv.tolist()
        tokens = _AllToAll.apply(x.index_select(0, order), send_counts, recv_counts, self.ep_group)
        local = torch.empty(sum(recv_counts), dtype=torch.long)
        dist.all_to_all_single(local, (expert % self.n_local).index_select(0, order), recv_counts, send_counts,
                               group=self.ep_group)
        self.tokens_received = len(local)
        back = _AllToAll.apply(self.experts(tokens, local), recv_counts, send_counts, self.ep_group)
        combined = torch.zeros_like(back).index_copy(0, order, back)
        return x + weight * combined


def train_one_step(data_mesh, expert_mesh, ep_group, efsdp_mesh, seed, hidden=16, n_experts=4, tokens=32):
    """Build the model, shard it as FSDPTurbo does, run one forward, backward and optimizer step. Returns what
    the test checks: the loss, that every parameter got a gradient, and that the all-to-all delivered tokens."""
    torch.manual_seed(0)  # the same initial weights on every rank
    model = torch.nn.Sequential(torch.nn.Linear(hidden, hidden), MoELayer(hidden, n_experts, ep_group))
    if efsdp_mesh is not None:
        fully_shard(model[1].experts, mesh=efsdp_mesh)  # experts: sharded over efsdp (split over ep above)
    fully_shard(model, mesh=data_mesh["dp"])  # the rest: FSDPTurbo's outer FSDP2 on the dp sub-mesh
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(seed)  # each rank its own batch
    loss = model(torch.randn(tokens, hidden)).pow(2).mean()
    loss.backward()
    optimizer.step()
    grads = [p.grad is not None for p in model.parameters()]
    return {"loss": float(loss.detach()), "all_params_have_grads": all(grads) and bool(grads),
            "tokens_received": model[1].tokens_received}
