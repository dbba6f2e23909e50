#!/usr/bin/env python3
"""A mock engine that speaks the tunetrace protocol (docs/tune-any-engine.md) with an evaluation
of another shape than sparring's: material P N B R Q plus a rook on the seventh rank, tapered
over phase_max 16 (phase = N + B + 2R + 4Q, at most 16), an endgame scale of 1/2 when no pawn is
left, and an untuned remainder of 8 centipawns for the side to move. Standard library only.

With --king-danger it also declares a non-linear king safety term through a finaliser: four
attack weights (knight, bishop, rook, queen) summed per side over the side's pieces within two
squares (Chebyshev distance) of the enemy king, then `king_safety mg quadratic 100 eg relu 4`:
the side's middlegame sum x adds max(x, 0)·x/100, its endgame sum max(x, 0)/4.

Misbehaviour for the tuner's error tests (never part of a real engine):
  --die-after N      exit after answering N traces
  --malformed-at N   answer trace number N (1-based) with a line that does not parse
  --lie-at N         report an eval 50 cp off at trace number N
  --phase-over-at N  at trace number N, trace (and evaluate) with phase_max + 4 as the phase
  --params-change    declare one parameter fewer from the second `tunetrace params` on
  --bad-final KIND   declare the finaliser as KIND (`cubic:3`, `quadratic:0`: a colon for a space; with
                     --king-danger), or answer a group of finaliser 7 (`undeclared`)
Arguments after the flags are one command to answer before exiting (`tunetrace params`, ...).
"""
import sys

NAMES = ["material.pawn", "material.knight", "material.bishop", "material.rook",
         "material.queen", "rook_on_seventh"]
START = [(90, 120), (310, 290), (320, 300), (480, 520), (950, 930), (20, 35)]
PHASE_MAX = 16
KING_NAMES = ["king_attack.knight", "king_attack.bishop", "king_attack.rook",
              "king_attack.queen"]
KING_START = [(20, 30), (15, 20), (25, 15), (40, 50)]
FINAL = (("quadratic", 100), ("relu", 4))


def final(kind, x):
    name, c = kind
    return max(x, 0) * x / c if name == "quadratic" else max(x, 0) / c


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


def king_attacks(squares):
    """Per side (white, black): attackers by type near the enemy king, as {param index: count}."""
    kings = {ch: sq for sq, ch in squares.items() if ch in "Kk"}
    sides = []
    for attacker, enemy_king in ((str.isupper, "k"), (str.islower, "K")):
        counts = {}
        target = kings.get(enemy_king)
        for sq, ch in squares.items():
            k = "nbrq".find(ch.lower())
            if target is None or k < 0 or not attacker(ch):
                continue
            if max(abs(sq[0] - target[0]), abs(sq[1] - target[1])) <= 2:
                counts[len(NAMES) + k] = counts.get(len(NAMES) + k, 0) + 1
        sides.append(counts)
    return sides


def trace(fen, king_danger=False, phase_over=False):
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
    if phase_over:
        phase = PHASE_MAX + 4
    scale = 0.5 if pieces.count("p") == 0 else 1.0
    remainder = 8 if fen.split()[1] == "w" else -8
    mg = sum(c * START[i][0] for i, c in enumerate(counts))
    eg = sum(c * START[i][1] for i, c in enumerate(counts))
    sides = king_attacks(squares) if king_danger else [{}, {}]
    for sign, side in zip((1, -1), sides):
        x_mg = sum(c * KING_START[i - len(NAMES)][0] for i, c in side.items())
        x_eg = sum(c * KING_START[i - len(NAMES)][1] for i, c in side.items())
        mg += sign * final(FINAL[0], x_mg)
        eg += sign * final(FINAL[1], x_eg)
    value = (mg * phase + eg * scale * (PHASE_MAX - phase)) / PHASE_MAX + remainder
    return phase, scale, remainder, int(round(value)), counts, sides


def main():
    args = sys.argv[1:]
    flags = {}
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        if flag in ("--params-change", "--king-danger"):
            flags[flag] = True
        elif flag == "--bad-final":
            flags[flag] = args.pop(0).replace(":", " ")
        else:
            flags[flag] = int(args.pop(0))
    king = flags.get("--king-danger", False)
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
        if king:
            for i, name in enumerate(KING_NAMES):
                mg, eg = KING_START[i]
                out(f"param {len(NAMES) + i} {name} mg {mg} eg {eg}")
            bad = flags.get("--bad-final")
            mg_kind = bad if bad and bad != "undeclared" else " ".join(map(str, FINAL[0]))
            out(f"finaliser 0 king_safety mg {mg_kind} eg {FINAL[1][0]} {FINAL[1][1]}")
        out("end")

    def answer(fen):
        state["traces"] += 1
        n = state["traces"]
        if "--die-after" in flags and n > flags["--die-after"]:
            sys.exit(3)
        try:
            over = flags.get("--phase-over-at") == n
            phase, scale, remainder, value, counts, sides = trace(fen, king, over)
        except Exception as e:  # a bad FEN
            return f"trace error {e}"
        if flags.get("--malformed-at") == n:
            return "trace phase banana"
        if flags.get("--lie-at") == n:
            value += 50
        pairs = " ".join(f"{i}:{c}" for i, c in enumerate(counts) if c)
        groups = []
        for word, side in zip(("white", "black"), sides):
            if side:
                groups.append(word + "".join(f" {i}:{c}" for i, c in sorted(side.items())))
        if groups:
            pairs += " final 0 " + " ".join(groups)
        if flags.get("--bad-final") == "undeclared":
            pairs += " final 7 white 6:1"
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
