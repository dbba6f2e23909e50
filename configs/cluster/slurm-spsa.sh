#!/bin/bash
# A sharded `sparring spsa` run as ONE Slurm job of N tasks (one shard per task), all on
# shared storage:
#
#   sbatch configs/cluster/slurm-spsa.sh                    (8 tasks: --ntasks=8 below)
#   sbatch --ntasks=16 configs/cluster/slurm-spsa.sh        (16 shards: CONFIG needs >= 16 pairs)
#
# Not a job array: SPSA shards wait for each other after every iteration, so all N must run at
# once. An array may start only some of its tasks, which would then hold their slots waiting for
# tasks that never start; one job of N tasks is allocated all at once (a gang) or not at all.
# Slurm starts the job in the directory sbatch was run from: run it from the repository (or
# wherever CONFIG's relative paths point from).
#SBATCH --job-name=sparring-spsa
#SBATCH --ntasks=8
#SBATCH --cpus-per-task=1
#SBATCH --output=sparring-spsa-%j.log
#SBATCH --requeue

set -euo pipefail

# Overridable from the environment (sbatch passes the submitting shell's environment on).
SPARRING=${SPARRING:-sparring}                          # the binary (shared storage, or PATH)
CONFIG=${CONFIG:-configs/cluster/spsa-shards.toml}      # pairs_per_iteration >= the task count
SHARED=${SHARED:-results/cluster-spsa}                  # the run directory every shard shares

: "${SLURM_NTASKS:?not a Slurm job: submit with sbatch (it sets SLURM_NTASKS from --ntasks)}"
export SPARRING CONFIG SHARED
mkdir -p "$SHARED"

# One srun step starts every shard: task SLURM_PROCID plays shard SLURM_PROCID of SLURM_NTASKS.
# A shard killed with the job (preemption, node failure, time limit; --requeue) leaves its lock,
# which a task on another node cannot check: Slurm runs one task per shard, so it is removed,
# and --resume continues each shard (its finished pair files are kept; a fresh shard just
# starts). --kill-on-bad-exit: a shard that fails (a bad configuration, say) ends the others
# rather than leaving them waiting for it.
srun --kill-on-bad-exit=1 bash -c '
  set -eu
  shard_dir="$SHARED/shard-$SLURM_PROCID-of-$SLURM_NTASKS"
  mkdir -p "$shard_dir"
  rm -f "$shard_dir/sparring.lock"
  concurrency=""
  if [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then concurrency="--concurrency $SLURM_CPUS_PER_TASK"; fi
  exec "$SPARRING" spsa "$CONFIG" --shard "$SLURM_PROCID/$SLURM_NTASKS" --shared "$SHARED" \
    --resume $concurrency
'

# Every shard has finished: the run's files are in SHARED (written by shard 0).
echo "tuned values: $SHARED/tuned.toml (trajectory: $SHARED/trajectory.csv)"
