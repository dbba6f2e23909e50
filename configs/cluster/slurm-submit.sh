#!/bin/bash
# Submits a sharded match to Slurm: the array of shards, then the merge once every shard has
# succeeded. Run from the directory CONFIG's relative paths start from (the repository):
#
#   SPARRING=$PWD/target/release/sparring CONFIG=configs/gauntlet.toml SHARDS=64 \
#     configs/cluster/slurm-submit.sh
#
# If a shard fails, the merge stays pending (DependencyNeverSatisfied): rerun the failed ids
# (`sbatch --array=17,42 configs/cluster/slurm-match.sh`, which resumes them) and run
# slurm-merge.sh; or merge what is there with PARTIAL=1 sbatch configs/cluster/slurm-merge.sh.

set -euo pipefail

export SPARRING=${SPARRING:-sparring}
export CONFIG=${CONFIG:-configs/gauntlet.toml}
export OUT=${OUT:-results/cluster-run}
export SHARDS=${SHARDS:-64}
export MERGED=${MERGED:-$OUT/merged}
here=$(cd "$(dirname "$0")" && pwd)

# --parsable prints "jobid" or "jobid;cluster"; the array's job id stands for all its tasks.
array_job=$(sbatch --parsable --array="0-$((SHARDS - 1))" "$here/slurm-match.sh")
array_job=${array_job%%;*}
echo "shards: job $array_job (array 0-$((SHARDS - 1)))"

merge_job=$(sbatch --parsable --dependency="afterok:$array_job" --kill-on-invalid-dep=no \
  "$here/slurm-merge.sh")
merge_job=${merge_job%%;*}
echo "merge: job $merge_job (after $array_job) into $MERGED"
