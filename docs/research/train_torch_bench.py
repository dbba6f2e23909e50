#!/usr/bin/env python3
"""Times PyTorch on the CPU training sparring's network, (768 -> N)x2 -> 1 with SCReLU, on the same
positions `sparring train bench --dump FILE` trains on (docs/train.md, "Speed"). Not run in CI.

    sparring train bench --dump /tmp/bench.bin
    python3 docs/research/train_torch_bench.py /tmp/bench.bin --hidden 128 --batch 16384

Each record is 132 bytes: score i16, result u8 (half points, side to move), count u8, then 32
side-to-move and 32 other-side feature indices (u16), little-endian. The inputs are sparse: an
EmbeddingBag sums the active features' rows (what a dense 768-wide matmul would waste time on),
and the step is AdamW (decay 0.01) with the weights clamped to [-1.98, 1.98] after it, as in
bullet and sparring.
"""

import argparse
import statistics
import time

import numpy as np
import torch

RECORD = np.dtype(
    [("score", "<i2"), ("result", "u1"), ("count", "u1"), ("stm", "<u2", 32), ("nstm", "<u2", 32)]
)


def batches_of(path, batch):
    data = np.fromfile(path, dtype=RECORD)
    out = []
    for start in range(0, len(data) - batch + 1, batch):
        part = data[start : start + batch]
        counts = part["count"].astype(np.int64)
        mask = np.arange(32)[None, :] < counts[:, None]
        offsets = torch.from_numpy(np.concatenate([[0], np.cumsum(counts)[:-1]]))
        stm = torch.from_numpy(part["stm"][mask].astype(np.int64))
        nstm = torch.from_numpy(part["nstm"][mask].astype(np.int64))
        score = torch.from_numpy(part["score"].astype(np.float32))
        result = torch.from_numpy(part["result"].astype(np.float32) / 2.0)
        target = 0.75 * result + 0.25 * torch.sigmoid(score / 400.0)
        out.append((stm, nstm, offsets, target))
    return out


class Net(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.l0 = torch.nn.EmbeddingBag(768, hidden, mode="sum")
        self.l0b = torch.nn.Parameter(torch.zeros(hidden))
        self.l1 = torch.nn.Linear(2 * hidden, 1)

    def forward(self, stm, nstm, offsets):
        us = torch.clamp(self.l0(stm, offsets) + self.l0b, 0.0, 1.0) ** 2
        them = torch.clamp(self.l0(nstm, offsets) + self.l0b, 0.0, 1.0) ** 2
        return self.l1(torch.cat([us, them], dim=1)).squeeze(1)


def time_steps(hidden, batches, steps):
    torch.manual_seed(1)
    net = Net(hidden)
    opt = torch.optim.AdamW(net.parameters(), lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)

    def step(b):
        stm, nstm, offsets, target = b
        opt.zero_grad(set_to_none=False)
        loss = ((torch.sigmoid(net(stm, nstm, offsets)) - target) ** 2).mean()
        loss.backward()
        opt.step()
        with torch.no_grad():
            for p in net.parameters():
                p.clamp_(-1.98, 1.98)

    step(batches[0])
    start = time.perf_counter()
    for i in range(steps):
        step(batches[i % len(batches)])
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--batch", type=int, default=16384)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    batches = batches_of(args.file, args.batch)
    print(f"torch {torch.__version__}: (768 -> {args.hidden})x2 -> 1, batch {args.batch}, "
          f"{args.steps} steps per run, median of {args.repeat}")
    for threads in [int(t) for t in args.threads.split(",")]:
        torch.set_num_threads(threads)
        rates = [args.steps * args.batch / time_steps(args.hidden, batches, args.steps)
                 for _ in range(args.repeat)]
        runs = ", ".join(f"{r:.0f}" for r in rates)
        print(f"threads {threads}: {statistics.median(rates):.0f} positions/s (runs: {runs})")


if __name__ == "__main__":
    main()
