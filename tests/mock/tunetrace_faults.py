#!/usr/bin/env python3
"""A tunetrace engine for the tuner's error tests (tests/it/tune_engine.rs): two untapered
parameters (material.pawn, material.knight) answered correctly except for one fault:
  --hang-at N             never answer trace number N (1-based): sleeps, reading nothing more
  --index-at N            at trace number N, name parameter index 7 (only 0 and 1 are declared)
  --die-mid-line N        at trace number N, write half a trace line, a complaint on standard
                          error, and exit with status 3
  --huge-remainder-at N   at trace number N, report remainder and eval 1e300 (which add up)
  --die-at-params N       at the N-th `tunetrace params`, complain on standard error and exit
                          with status 4 (N = 2: when asked again after the fit)
  --hang-at-params N      at the N-th `tunetrace params`, never answer
  --duplicate-name I      declare parameter I under parameter 0's name (material.pawn)
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
    params = 0
    for line in sys.stdin:
        words = line.split()
        if words == ["quit"]:
            break
        if words[:2] == ["tunetrace", "params"]:
            params += 1
            if flags.get("--die-at-params") == params:
                sys.stderr.write(f"tunetrace_faults: no parameters at request {params}\n")
                sys.stderr.flush()
                sys.exit(4)
            if flags.get("--hang-at-params") == params:
                time.sleep(3600)
            names = ["material.pawn", "material.knight"]
            if "--duplicate-name" in flags:
                names[flags["--duplicate-name"]] = names[0]
            print("tapered false")
            print(f"param 0 {names[0]} value 100")
            print(f"param 1 {names[1]} value 300")
            print("end", flush=True)
        elif words[:2] == ["tunetrace", "fen"]:
            traces += 1
            if flags.get("--hang-at") == traces:
                time.sleep(3600)
            p, n = counts(" ".join(words[2:]))
            if flags.get("--die-mid-line") == traces:
                sys.stdout.write("trace phase 1 scale 1 rem")
                sys.stdout.flush()
                sys.stderr.write(f"tunetrace_faults: dying in the middle of trace {traces}\n")
                sys.stderr.flush()
                sys.exit(3)
            index = 7 if flags.get("--index-at") == traces else 1
            remainder = 1e300 if flags.get("--huge-remainder-at") == traces else 0
            print(f"trace phase 1 scale 1 remainder {remainder} "
                  f"eval {remainder + 100 * p + 300 * n} coeffs 0:{p} {index}:{n}", flush=True)


if __name__ == "__main__":
    main()
