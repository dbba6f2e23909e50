#!/usr/bin/env python3
"""A mock engine that speaks the tunetrace protocol (docs/tune-any-engine.md) with an evaluation
of another shape than sparring's: material P N B R Q plus a rook on the seventh rank, tapered
over phase_max 16 (phase = N + B + 2R + 4Q, at most 16), an endgame scale of 1/2 when no pawn is
left, and an untuned remainder of 8 centipawns for the side to move. Standard library only.

Misbehaviour for the tuner's error tests (never part of a real engine):
  --die-after N      exit after answering N traces
  --malformed-at N   answer trace number N (1-based) with a line that does not parse
  --lie-at N         report an eval 50 cp off at trace number N
  --params-change    declare one parameter fewer from the second `tunetrace params` on
Arguments after the flags are one command to answer before exiting (`tunetrace params`, ...).
"""
import sys

NAMES = ["material.pawn", "material.knight", "material.bishop", "material.rook",
         "material.queen", "rook_on_seventh"]
START = [(90, 120), (310, 290), (320, 300), (480, 520), (950, 930), (20, 35)]
PHASE_MAX = 16


def board_of(fen):
    squares = {}
    rows = fen.split()[0].split("/")
    for r, row in enumerate(rows):
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                squares[(7 - r, f)] = ch
                f += 1
    return squares


def trace(fen):
    squares = board_of(fen)
    counts = [0] * len(NAMES)
    for (rank, _), ch in squares.items():
        sign = 1 if ch.isupper() else -1
        k = "pnbrq".find(ch.lower())
        if k >= 0:
            counts[k] += sign
        if ch == "R" and rank == 6:
            counts[5] += 1
        if ch == "r" and rank == 1:
            counts[5] -= 1
    pieces = "".join(squares.values()).lower()
    phase = min(PHASE_MAX, pieces.count("n") + pieces.count("b") + 2 * pieces.count("r")
                + 4 * pieces.count("q"))
    scale = 0.5 if pieces.count("p") == 0 else 1.0
    remainder = 8 if fen.split()[1] == "w" else -8
    mg = sum(c * START[i][0] for i, c in enumerate(counts))
    eg = sum(c * START[i][1] for i, c in enumerate(counts))
    value = (mg * phase + eg * scale * (PHASE_MAX - phase)) / PHASE_MAX + remainder
    return phase, scale, remainder, int(round(value)), counts


def main():
    args = sys.argv[1:]
    flags = {}
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        flags[flag] = True if flag == "--params-change" else int(args.pop(0))
    state = {"traces": 0, "params": 0}

    def out(line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def params():
        state["params"] += 1
        count = len(NAMES)
        if flags.get("--params-change") and state["params"] > 1:
            count -= 1
        out("tapered true")
        out(f"phase_max {PHASE_MAX}")
        for i in range(count):
            out(f"param {i} {NAMES[i]} mg {START[i][0]} eg {START[i][1]}")
        out("end")

    def answer(fen):
        state["traces"] += 1
        n = state["traces"]
        if "--die-after" in flags and n > flags["--die-after"]:
            sys.exit(3)
        try:
            phase, scale, remainder, value, counts = trace(fen)
        except Exception as e:  # a bad FEN
            return f"trace error {e}"
        if flags.get("--malformed-at") == n:
            return "trace phase banana"
        if flags.get("--lie-at") == n:
            value += 50
        pairs = " ".join(f"{i}:{c}" for i, c in enumerate(counts) if c)
        return f"trace phase {phase} scale {scale} remainder {remainder} eval {value} coeffs {pairs}"

    def handle(line):
        words = line.split()
        if not words:
            return True
        if words[0] == "quit":
            return False
        if words[0] == "uci":
            out("id name tunetrace-mock")
            out("uciok")
        elif words[0] == "isready":
            out("readyok")
        elif words[:2] == ["tunetrace", "params"]:
            params()
        elif words[:2] == ["tunetrace", "fen"]:
            out(answer(" ".join(words[2:])))
        elif words[:2] == ["tunetrace", "file"]:
            with open(" ".join(words[2:])) as f:
                for fen in f:
                    if fen.strip():
                        out(answer(fen))
            out("end")
        return True

    if args:
        handle(" ".join(args))
        return
    for line in sys.stdin:
        if not handle(line):
            break


if __name__ == "__main__":
    main()
