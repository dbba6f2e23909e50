#!/bin/bash
# An SPRT match on Slurm, played in waves until the test decides. This one script is both the
# driver (run it on a login node, with bash) and the array task the driver submits for each
# wave (under sbatch, where SLURM_ARRAY_TASK_ID is set).
#
#   SPARRING=$PWD/target/release/sparring CONFIG=run.toml OUT=results/sprt-run \
#     WAVE_PAIRS=512 SHARDS=32 bash configs/cluster/slurm-waves.sh
#
# CONFIG needs an [sprt] table; its tournament.rounds is the upper bound of the run. Wave K is
# pairs K*WAVE_PAIRS up to (K+1)*WAVE_PAIRS of the run, played as an array of SHARDS tasks
# (`sparring match CONFIG --wave K --wave-pairs WAVE_PAIRS --shard env --shards SHARDS`).
# After each wave the driver merges every wave so far into MERGED and reads the merge's last
# line (docs/scale-out.md, "SPRT in waves"): `verdict: continue with wave K` submits wave K;
# anything else (`H1 accepted (stopped by SPRT after wave K)`, `H0 accepted ...`, `decided
# ...`, `undecided (all games played)`) ends the run, and MERGED holds its result. Run the
# driver again after a failure: it merges what is there first, so it submits the first wave
# that is not complete (whose finished games --resume keeps).
#SBATCH --job-name=sparring-wave
#SBATCH --cpus-per-task=1
#SBATCH --output=sparring-wave-%A_%a.log
#SBATCH --requeue

set -euo pipefail

# Overridable from the environment (sbatch passes the submitting shell's environment on).
SPARRING=${SPARRING:-sparring}              # the binary (a path on shared storage, or on PATH)
CONFIG=${CONFIG:-configs/gauntlet.toml}     # the run's configuration, with an [sprt] table
OUT=${OUT:-results/waves-run}               # shared directory: OUT/wave-K-shard-I-of-N
MERGED=${MERGED:-$OUT/merged}               # the merge of the waves so far
WAVE_PAIRS=${WAVE_PAIRS:-512}               # pairs per wave (one size for the whole run)
SHARDS=${SHARDS:-32}                        # array tasks per wave

if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
  # One task of wave WAVE: the array ids are the shard indexes 0..SHARDS-1.
  : "${WAVE:?not submitted by the driver: run this script with bash, not sbatch}"
  shard_dir="$OUT/wave-$WAVE-shard-$SLURM_ARRAY_TASK_ID-of-$SHARDS"
  mkdir -p "$shard_dir"
  # A requeued task may find the lock of its killed predecessor on another node (Slurm runs
  # one task per array id at a time): remove it, and --resume keeps the finished games.
  rm -f "$shard_dir/sparring.lock"
  concurrency=()
  if [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then
    concurrency=(--concurrency "$SLURM_CPUS_PER_TASK")
  fi
  exec "$SPARRING" match "$CONFIG" --wave "$WAVE" --wave-pairs "$WAVE_PAIRS" \
    --shard env --shards "$SHARDS" --out "$shard_dir" --resume --progress lines \
    ${concurrency[@]+"${concurrency[@]}"}
fi

# The driver.
wave=0
while :; do
  shopt -s nullglob
  dirs=("$OUT"/wave-*-shard-*-of-"$SHARDS")
  shopt -u nullglob
  if [ ${#dirs[@]} -gt 0 ]; then
    if ! report=$("$SPARRING" merge --partial "$MERGED" "${dirs[@]}" 2>&1); then
      printf '%s\n' "$report" >&2
      exit 2
    fi
    printf '%s\n' "$report"
    verdict=$(printf '%s\n' "$report" | sed -n 's/^verdict: //p')
    case $verdict in
      "continue with wave "*) wave=${verdict#continue with wave } ;;
      "")
        echo "slurm-waves.sh: the merge printed no verdict: does $CONFIG have an [sprt] table?" >&2
        exit 2 ;;
      *)
        echo "done: $verdict; the result is in $MERGED"
        exit 0 ;;
    esac
  fi
  echo "wave $wave: $SHARDS tasks of $WAVE_PAIRS pairs in all"
  # --wait: sbatch returns when the array has finished, non-zero if a task failed (then this
  # driver stops: rerun it, and the wave's tasks resume).
  WAVE=$wave sbatch --wait --array=0-$((SHARDS - 1)) "$0" >/dev/null
done
