#!/bin/bash
# The self-play tuning loop (`sparring loop`) on Slurm: every generation's self-play, gate waves
# and anchor gauntlet played as job arrays, with the same generations.csv and champion as one
# machine. This one script is both the driver (run it with bash, on a login node or as a job of
# its own) and the array task the driver submits for each stage (under sbatch, where
# SLURM_ARRAY_TASK_ID is set).
#
#   SPARRING=$PWD/target/release/sparring CONFIG=configs/loop.toml OUT=results/loop \
#     SHARDS=32 bash configs/cluster/slurm-loop.sh
#
# The driver repeats: `sparring loop CONFIG --out OUT --resume --staged` merges the shards of the
# stages played so far, runs the tune (and SPSA) itself, and prints the next match stage to play
# (`next: gen 3 gate wave 1`, with `next-config:`, `next-args:` and `next-out:` lines; docs/loop.md,
# "On a cluster"); the driver submits it as an array of SHARDS tasks, each running
# `sparring match NEXT_CONFIG NEXT_ARGS --shard env --shards SHARDS --out NEXT_OUT/shard-I-of-SHARDS`,
# and waits for it (sbatch --wait). It stops on `next: done`. Run it again after a failure: a stage
# whose shards are incomplete is submitted again, and --resume keeps their finished games.
#SBATCH --job-name=sparring-loop
#SBATCH --cpus-per-task=1
#SBATCH --output=sparring-loop-%A_%a.log
#SBATCH --requeue

set -euo pipefail

# Overridable from the environment (sbatch passes the submitting shell's environment on).
SPARRING=${SPARRING:-sparring}              # the binary (a path on shared storage, or on PATH)
CONFIG=${CONFIG:-configs/loop.toml}         # the loop's configuration
OUT=${OUT:-results/loop}                    # the loop's directory, on shared storage
SHARDS=${SHARDS:-32}                        # array tasks per stage (or gate wave)
GENERATIONS=${GENERATIONS:-}                # non-empty: play up to this generation

if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
  # One shard of the stage the driver submitted: the array ids are the shard indexes.
  : "${NEXT_CONFIG:?not submitted by the driver: run this script with bash, not sbatch}"
  shard_dir="$NEXT_OUT/shard-$SLURM_ARRAY_TASK_ID-of-$SHARDS"
  mkdir -p "$shard_dir"
  # A requeued task may find the lock of its killed predecessor on another node (Slurm runs
  # one task per array id at a time): remove it, and --resume keeps the finished games.
  rm -f "$shard_dir/sparring.lock"
  concurrency=()
  if [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then
    concurrency=(--concurrency "$SLURM_CPUS_PER_TASK")
  fi
  # NEXT_ARGS is empty or `--wave K --wave-pairs W`: split into words on purpose.
  # shellcheck disable=SC2086
  exec "$SPARRING" match "$NEXT_CONFIG" $NEXT_ARGS --shard env --shards "$SHARDS" \
    --out "$shard_dir" --resume --progress lines ${concurrency[@]+"${concurrency[@]}"}
fi

# The driver.
generations=()
if [ -n "$GENERATIONS" ]; then
  generations=(--generations "$GENERATIONS")
fi
while :; do
  if ! step=$("$SPARRING" loop "$CONFIG" --out "$OUT" --resume --staged \
      ${generations[@]+"${generations[@]}"}); then
    echo "slurm-loop.sh: sparring loop --staged failed" >&2
    exit 1
  fi
  printf '%s\n' "$step"
  next=$(printf '%s\n' "$step" | sed -n 's/^next: //p')
  case $next in
    done) echo "done: the ladder is in $OUT/generations.csv"; exit 0 ;;
    "") echo "slurm-loop.sh: sparring loop --staged printed no next: line" >&2; exit 2 ;;
  esac
  NEXT_CONFIG=$(printf '%s\n' "$step" | sed -n 's/^next-config: //p')
  NEXT_ARGS=$(printf '%s\n' "$step" | sed -n 's/^next-args: //p')
  NEXT_OUT=$(printf '%s\n' "$step" | sed -n 's/^next-out: //p')
  export NEXT_CONFIG NEXT_ARGS NEXT_OUT SPARRING SHARDS
  echo "$next: $SHARDS tasks"
  # --wait: sbatch returns when the array has finished, non-zero if a task failed (then this
  # driver stops: rerun it, and the stage's tasks resume).
  sbatch --wait --array=0-$((SHARDS - 1)) "$0" >/dev/null
done
