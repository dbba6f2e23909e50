#!/usr/bin/env python3
"""An independent reading of bullet's simple (768 -> N)x2 -> 1 inference, for tests/it/nnue.rs.

Usage: nnue_reference.py NET.bin FEN...  prints "eval <cp>" per FEN, as `sparring eval --net
NET.bin --raw FEN...` should. Written from bullet's examples/simple.rs arithmetic as
docs/research/nnue-formats.md section 4 describes it, sharing no code with sparring: the file is
little-endian i16 (feature weights feature by feature, feature biases, output weights for the
side to move then the other side, output bias), padded to 64 bytes; accumulators wrap as i16;
SCReLU is clamp(v, 0, 255)^2; the output is ((sum / 255) + bias) * 400 / (255 * 64), each
division truncating toward zero.
"""

import struct
import sys

QA, QB, SCALE = 255, 64, 400
KINDS = "pnbrqk"


def hidden_size(size):
    for n in range(1, 8193):
        payload = 2 * (771 * n + 1)
        if size in (payload, (payload + 63) // 64 * 64):
            return n
    raise SystemExit(f"{size} bytes is no network size")


def wrap16(v):
    return (v + 32768) % 65536 - 32768


def div_trunc(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def pieces(fen):
    """(is_white, kind, square 0..63 with a1 = 0) for every piece, and whether White moves."""
    fields = fen.split()
    out = []
    for row, text in enumerate(fields[0].split("/")):
        rank, file = 7 - row, 0
        for c in text:
            if c.isdigit():
                file += int(c)
            else:
                out.append((c.isupper(), KINDS.index(c.lower()), rank * 8 + file))
                file += 1
    return out, fields[1] == "w"


def evaluate(values, n, fen):
    l0w = values[: 768 * n]
    l0b = values[768 * n : 769 * n]
    l1w = values[769 * n : 771 * n]
    l1b = values[771 * n]
    placed, white_to_move = pieces(fen)

    def accumulator(white_view):
        acc = list(l0b)
        for is_white, kind, square in placed:
            theirs = 0 if is_white == white_view else 1
            sq = square if white_view else square ^ 56
            feature = 384 * theirs + 64 * kind + sq
            row = l0w[feature * n : (feature + 1) * n]
            acc = [wrap16(a + w) for a, w in zip(acc, row)]
        return acc

    us, them = accumulator(white_to_move), accumulator(not white_to_move)
    total = 0
    for i in range(n):
        total += min(max(us[i], 0), QA) ** 2 * l1w[i]
        total += min(max(them[i], 0), QA) ** 2 * l1w[n + i]
    return div_trunc((div_trunc(total, QA) + l1b) * SCALE, QA * QB)


def main():
    data = open(sys.argv[1], "rb").read()
    n = hidden_size(len(data))
    values = struct.unpack(f"<{771 * n + 1}h", data[: 2 * (771 * n + 1)])
    for fen in sys.argv[2:]:
        print(f"eval {evaluate(values, n, fen)}")


if __name__ == "__main__":
    main()
