#!/bin/bash
# One shard of a sparring match per Slurm array task, into a shared directory.
#
#   sbatch --array=0-63 configs/cluster/slurm-match.sh     (or slurm-submit.sh: shards + merge)
#
# The array ids are the shard indexes 0..SHARDS-1 (`--shard env --shards N` takes the index
# from SLURM_ARRAY_TASK_ID itself), so an array may also be one wave of a larger split
# (`sbatch --array=64-127` with SHARDS=256). Slurm starts the job in the directory sbatch was
# run from: run it from the repository (or wherever CONFIG's relative paths point from).
#SBATCH --job-name=sparring-match
#SBATCH --array=0-63
#SBATCH --cpus-per-task=1
#SBATCH --output=sparring-match-%A_%a.log
#SBATCH --requeue

set -euo pipefail

# Overridable from the environment (sbatch passes the submitting shell's environment on).
SPARRING=${SPARRING:-sparring}              # the binary (a path on shared storage, or on PATH)
CONFIG=${CONFIG:-configs/gauntlet.toml}     # the run's configuration
OUT=${OUT:-results/cluster-run}             # shared directory: OUT/shard-I-of-N per shard
SHARDS=${SHARDS:-64}                        # N: the split (the array covers 0..N-1)

: "${SLURM_ARRAY_TASK_ID:?not a Slurm array task: submit with sbatch --array=0-$((SHARDS - 1))}"
shard_dir="$OUT/shard-$SLURM_ARRAY_TASK_ID-of-$SHARDS"
mkdir -p "$shard_dir"

# Slurm runs one task per array id at a time. A task killed by preemption, a time limit or a
# node failure leaves its lock file, which a requeued task on another node may not take over:
# remove it, and --resume continues the shard's finished games (a fresh shard just starts).
rm -f "$shard_dir/sparring.lock"

# One game per allocated CPU; without --cpus-per-task the configuration's concurrency holds.
# (The ${a[@]+...} form: bash before 4.4 calls an empty array unbound under set -u.)
concurrency=()
if [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then
  concurrency=(--concurrency "$SLURM_CPUS_PER_TASK")
fi

exec "$SPARRING" match "$CONFIG" --shard env --shards "$SHARDS" \
  --out "$shard_dir" --resume --progress lines ${concurrency[@]+"${concurrency[@]}"}
