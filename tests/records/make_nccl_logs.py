"""Writes NCCL_DEBUG=INFO logs of an 8-rank job, line for line in the formats of NCCL's src/init.cc and
src/debug.cc at the tags named below, for the layout dp 8, cp 1, ep 4 (FSDPTurbo's expert mesh (1, 2, 4, 1)):
the world communicator (ncclCommInitRankConfig, as torch creates it), then ncclCommSplit of it for the efsdp
groups [0, 4], [1, 5], [2, 6], [3, 7] (color = group index, key = rank) and the ep groups [0, 1, 2, 3],
[4, 5, 6, 7] (color = group index), as torch's new_group does when it splits the default group.

  v2.23-torchrun.log   NCCL 2.23.4 under torchrun's "[rankN]:" prefix; nothing injected.
  v2.26-mpirun.log     NCCL 2.26.2 (splitCount) under mpirun --tag-output "[1,N]<stdout>:"; rank 6 never starts
                       the ep split, so ranks 4, 5, 7 start ep group 1 and never complete it.
  v2.29-per-rank/      NCCL 2.29.7 ("[Rank N]" prefix, childCount), one file per process (NCCL_DEBUG_FILE=%h.%p),
                       timestamps on; rank 5 splits efsdp with color 0 instead of 1, so NCCL builds [0, 4, 5] and
                       [1] where the plan has [0, 4] and [1, 5].

Usage: make_nccl_logs.py OUT_DIR
"""
import os
import sys

WORLD = 8
EFSDP = [[0, 4], [1, 5], [2, 6], [3, 7]]
EP = [[0, 1, 2, 3], [4, 5, 6, 7]]
WORLD_ID = "0x7c0ffee0d15ea5e1"


def host(r):
    return f"node{r // 4}"


def pid(r):
    return 41000 + r


def comm(r, k):
    return f"0x55{r:02x}{k:02x}a0001000"


def prefix(r, dev=None):
    return f"{host(r)}:{pid(r)}:{pid(r) + 100} [{r % 4 if dev is None else dev}]"


def job(version, fault=None):
    """Yields (rank, line) in the order the ranks print them (interleaved by rank within each phase)."""
    fn = "ncclCommInitRankConfig"
    bus = lambda r: f"{(r % 4) + 1}b000"
    head = lambda r, k: f"comm {comm(r, k)} rank"
    for r in range(WORLD):
        yield r, f"{prefix(r)} NCCL INFO NCCL version {version}+cuda12.8"
    for r in range(WORLD):
        start = f"{fn} {head(r, 0)} {r} nranks {WORLD} cudaDev {r % 4} nvmlDev {r % 4} busId {bus(r)} commId {WORLD_ID} - Init START"
        if version.startswith("2.29"):
            start = f"[Rank {r}] " + start
        yield r, f"{prefix(r)} NCCL INFO {start}"
    for r in range(WORLD):
        yield r, f"{prefix(r)} NCCL INFO comm {comm(r, 0)} rank {r} nRanks {WORLD} nNodes 2 localRanks 4 localRank {r % 4} MNNVL 0"
    for r in range(WORLD):
        yield r, f"{prefix(r)} NCCL INFO {fn} {head(r, 0)} {r} nranks {WORLD} cudaDev {r % 4} nvmlDev {r % 4} busId {bus(r)} commId {WORLD_ID} - Init COMPLETE"
        yield r, f"{prefix(r)} NCCL INFO Init timings - {fn}: rank {r} nranks {WORLD} total 0.61 (kernels 0.20, alloc 0.01, bootstrap 0.30, allgathers 0.01, topo 0.05, graphs 0.01, connections 0.02, rest 0.01)"
    count_word = "splitCount" if version.startswith("2.26") else "childCount" if version.startswith("2.29") else None
    for split, groups in ((1, EFSDP), (2, EP)):
        colors = {}
        for index, members in enumerate(groups):
            for m in members:
                colors[m] = index
        if fault == "rank5-color" and split == 1:
            colors[5] = 0
        members_of = {}
        for r, c in colors.items():
            members_of.setdefault(c, []).append(r)
        skip = {6} if fault == "rank6-no-ep" and split == 2 else set()
        for phase in ("START", "COMPLETE"):
            for r in range(WORLD):
                if r in skip:
                    continue
                group = sorted(members_of[colors[r]])
                if phase == "COMPLETE" and any(s in group for s in skip):
                    continue  # its communicator waits for the member that never came
                n = len(group)
                k = group.index(r)
                counted = f"parent {comm(r, 0)} {count_word} {split} " if count_word else f"parent {comm(r, 0)} "
                tail = "- Init START" if phase == "START" else " - Init COMPLETE"
                line = (f"ncclCommSplit comm {comm(r, split)} rank {k} nranks {n} cudaDev {r % 4} nvmlDev {r % 4} "
                        f"busId {bus(r)} {counted}color {colors[r]} key {r}{tail}")
                yield r, f"{prefix(r)} NCCL INFO {line}"
    if fault == "rank6-no-ep":
        for r in (4, 5, 7):
            yield r, ""
            yield r, f"{prefix(r)} misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer node1<{pid(6)}>"
            yield r, f"{prefix(r)} NCCL INFO comm {comm(r, 2)} rank {[4, 5, 7].index(r) if r != 7 else 3} nRanks 4 cudaDev {r % 4} busId {bus(r)} - Abort START"


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "v2.23-torchrun.log"), "w") as f:
        for r, line in job("2.23.4"):
            f.write(f"[rank{r}]:{line}\n")
    with open(os.path.join(out, "v2.26-mpirun.log"), "w") as f:
        f.write("Warning: Permanently added 'node1' (ED25519) to the list of known hosts.\n")
        for r, line in job("2.26.2", "rank6-no-ep"):
            f.write(f"[1,{r}]<stdout>:{line}\n")
    per_rank = os.path.join(out, "v2.29-per-rank")
    os.makedirs(per_rank, exist_ok=True)
    files = {r: open(os.path.join(per_rank, f"{host(r)}.{pid(r)}"), "w") for r in range(WORLD)}
    second = 0
    for r, line in job("2.29.7", "rank5-color"):
        second += 1
        stamp = f"[2026-12-03 14:{second // 60:02d}:{second % 60:02d}.{(second * 7919) % 1000000:06d}] "
        files[r].write(f"{stamp}{line}\n" if line else "\n")
    for f in files.values():
        f.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
