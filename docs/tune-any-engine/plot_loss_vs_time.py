#!/usr/bin/env python3
"""Draws both tuners' loss against wall time as one SVG (docs/tune-any-engine.md).

usage: plot_loss_vs_time.py OUT.svg CONVERGED_MSE NAME=FILE[@OFFSET] ...

Each FILE is either a texel-tuner log timestamped by stamp.py ("  1.223 [1s] Epoch 500 (...),
error 0.1128..., LR 1": seconds since the process started) or a sparring history.csv
(epoch,train_mse,validation_mse,seconds: seconds since optimising began; @OFFSET adds the
process's loading time so both curves count from process start). The y axis is the excess
over CONVERGED_MSE on a log scale, so both curves' approach to the minimum stays visible.
"""
import csv
import math
import re
import sys

COLOURS = ["#c0392b", "#2471a3", "#229954", "#7d3c98"]
EPOCH = re.compile(r"^\s*([0-9.]+) .*Epoch (\d+) .*error ([0-9.]+)")


def points(path, offset):
    if path.endswith(".csv"):
        with open(path) as f:
            return [(offset + float(r["seconds"]), float(r["train_mse"])) for r in csv.DictReader(f)]
    out = []
    with open(path) as f:
        for line in f:
            m = EPOCH.match(line)
            if m:
                out.append((float(m.group(1)), float(m.group(3))))
    return out


def main():
    out, converged, series = sys.argv[1], float(sys.argv[2]), []
    for arg in sys.argv[3:]:
        name, spec = arg.split("=", 1)
        path, _, offset = spec.partition("@")
        series.append((name, points(path, float(offset or 0))))
    floor = 1e-10
    xs = [x for _, p in series for x, _ in p]
    ys = [max(y - converged, floor) for _, p in series for _, y in p]
    x_max = max(xs) * 1.05
    y_lo, y_hi = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    w, h, left, bottom, top, right = 640, 400, 70, 50, 30, 170
    px = lambda x: left + x / x_max * (w - left - right)
    py = lambda y: top + (y_hi - math.log10(max(y - converged, floor))) / (y_hi - y_lo) * (h - top - bottom)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="18">Texel loss above the converged MSE ({converged}) against wall time</text>']
    for e in range(y_lo, y_hi + 1):
        y = top + (y_hi - e) / (y_hi - y_lo) * (h - top - bottom)
        svg.append(f'<line x1="{left}" x2="{w - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">1e{e}</text>')
    step = 10 ** math.floor(math.log10(x_max / 2))
    t = 0.0
    while t <= x_max:
        x = px(t)
        svg.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{h - bottom}" stroke="#eee"/>')
        svg.append(f'<text x="{x:.1f}" y="{h - bottom + 16}" text-anchor="middle">{t:g}</text>')
        t += step
    svg.append(f'<text x="{(left + w - right) / 2}" y="{h - 10}" text-anchor="middle">seconds since the process started</text>')
    for i, (name, p) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in p)
        svg.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        for x, y in p:
            svg.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{colour}"/>')
        ly = top + 20 + 18 * i
        svg.append(f'<rect x="{w - right + 10}" y="{ly - 9}" width="14" height="4" fill="{colour}"/>')
        svg.append(f'<text x="{w - right + 30}" y="{ly - 3}">{name}</text>')
    svg.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
