#!/usr/bin/env python3
"""Bytes per vocabulary entry and token that torchtitan's loss holds, measured with torch on the CPU.

The loss as torchtitan's train.py runs it (pytorch/torchtitan@9dec370a, lines 131-134 and 303-308;
torchtitan/components/loss.py later):

    pred = model(input_ids)                      # the output layer's bf16 logits
    loss = cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1))
    del pred
    loss.backward()

eagerly, or with the loss under torch.compile (--compile). Every buffer is far above glibc's mmap threshold, so
freeing one returns it to the OS at once and the process's resident high-water mark (VmHWM, reset through
/proc/self/clear_refs) is the live bytes' peak. Prints the tensors autograd saved and, over the loss's start, the
forward's peak, what stays held after `del pred`, and the backward's peak, each in bytes per token and in units
of V (the vocabulary). docs/cost-model-memory.md, "The output layer and the loss", quotes the figures.

    .venv/bin/python scripts/loss-logits-bytes.py [--tokens 1024] [--vocab 128256] [--compile]
"""

import argparse
import sys

import torch
import torch.nn.functional as F


def status_bytes(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/self/status has no {field}")


def reset_peak():
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--vocab", type=int, default=128256)
    parser.add_argument("--compile", action="store_true", help="the loss under torch.compile (inductor)")
    args = parser.parse_args()
    if args.tokens < 1 or args.vocab < 2:
        sys.exit("--tokens must be positive and --vocab at least 2")
    n, v = args.tokens, args.vocab

    torch.manual_seed(0)
    # The output layer's result stands in as a bf16 leaf times 1: MulBackward of a Python scalar saves nothing, so
    # `del pred` frees the bf16 logits as it frees the Linear's output (the Linear saves only its input and weight).
    logits = (torch.randn(n, v) * 2).to(torch.bfloat16).requires_grad_(True)
    labels = torch.randint(0, v, (1, n))

    def loss_fn(pred, labels):
        return F.cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1))

    if args.compile:
        loss_fn = torch.compile(loss_fn)

    saved = []

    def pack(t):
        saved.append((tuple(t.shape), str(t.dtype).replace("torch.", "")))
        return t

    # A first step compiles and loads every kernel.
    pred = logits * 1
    loss_fn(pred.unsqueeze(0), labels).backward()
    del pred
    logits.grad = None

    start = status_bytes("VmRSS")
    reset_peak()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        pred = (logits * 1).unsqueeze(0)
        loss = loss_fn(pred, labels)
    forward_peak = status_bytes("VmHWM") - start
    del pred
    held = status_bytes("VmRSS") - start
    reset_peak()
    loss.backward()
    backward_peak = status_bytes("VmHWM") - start

    print(f"torch {torch.__version__}, {n} tokens, vocabulary {v}, {'compiled' if args.compile else 'eager'}")
    print(f"saved for backward: {saved}")
    for what, size in (("forward peak", forward_peak), ("held after del pred", held),
                       ("backward peak", backward_peak)):
        print(f"{what}: {size / n:,.0f} bytes a token = {size / n / v:.2f} V")


if __name__ == "__main__":
    main()
