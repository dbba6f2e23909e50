#!/bin/bash
# Merges the shards of slurm-match.sh into the files one machine would have written. Queued by
# slurm-submit.sh after the whole array (sbatch --dependency=afterok:<array job id>).
#SBATCH --job-name=sparring-merge
#SBATCH --cpus-per-task=1
#SBATCH --output=sparring-merge-%j.log

set -euo pipefail

SPARRING=${SPARRING:-sparring}
OUT=${OUT:-results/cluster-run}             # where slurm-match.sh wrote OUT/shard-I-of-N
SHARDS=${SHARDS:-64}
MERGED=${MERGED:-$OUT/merged}               # games.pgn, games.csv, summary.csv, ... go here
PARTIAL=${PARTIAL:-}                        # non-empty: merge what is there (--partial)

shopt -s nullglob
shard_dirs=("$OUT"/shard-*-of-"$SHARDS")
if [ ${#shard_dirs[@]} -eq 0 ]; then
  echo "slurm-merge.sh: no shard directories $OUT/shard-*-of-$SHARDS" >&2
  exit 2
fi

# A shard that is missing or unfinished is named with the command that completes it, and
# nothing is written (exit status 2) unless PARTIAL is set.
exec "$SPARRING" merge ${PARTIAL:+--partial} "$MERGED" "${shard_dirs[@]}"
