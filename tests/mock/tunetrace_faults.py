#!/usr/bin/env python3
"""A tunetrace engine for the tuner's error tests (tests/tune_engine.rs): two untapered
parameters (material.pawn, material.knight) answered correctly except for one fault:
  --hang-at N          never answer trace number N (1-based): sleeps, reading nothing more
  --index-at N         at trace number N, name parameter index 7 (only 0 and 1 are declared)
Standard library only.
"""
import sys
import time


def counts(fen):
    board = fen.split()[0]
    return board.count("P") - board.count("p"), board.count("N") - board.count("n")


def main():
    args = sys.argv[1:]
    flags = {}
    while len(args) >= 2 and args[0].startswith("--"):
        flags[args[0]] = int(args[1])
        args = args[2:]
    traces = 0
    for line in sys.stdin:
        words = line.split()
        if words == ["quit"]:
            break
        if words[:2] == ["tunetrace", "params"]:
            print("tapered false")
            print("param 0 material.pawn value 100")
            print("param 1 material.knight value 300")
            print("end", flush=True)
        elif words[:2] == ["tunetrace", "fen"]:
            traces += 1
            if flags.get("--hang-at") == traces:
                time.sleep(3600)
            p, n = counts(" ".join(words[2:]))
            index = 7 if flags.get("--index-at") == traces else 1
            print(f"trace phase 1 scale 1 remainder 0 eval {100 * p + 300 * n} "
                  f"coeffs 0:{p} {index}:{n}", flush=True)


if __name__ == "__main__":
    main()
