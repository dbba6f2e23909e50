#!/bin/bash
# A sharded match on one machine (or several, with GNU parallel's -S), then the merge:
#
#   SPARRING=target/release/sparring CONFIG=configs/selfplay.toml SHARDS=16 \
#     configs/cluster/parallel.sh
#
# The one-liners it runs (N shards, J at a time; each shard plays one game at a time):
#   parallel -j J sparring match CONFIG --shard {}/N --out OUT/shard-{}-of-N --resume \
#     --concurrency 1 ::: $(seq 0 N-1) && sparring merge OUT/merged OUT/shard-*-of-N
#   seq 0 N-1 | xargs -P J -I{} sparring match CONFIG --shard {}/N --out OUT/shard-{}-of-N \
#     --resume --concurrency 1 && sparring merge OUT/merged OUT/shard-*-of-N
# GNU parallel is used when installed (USE_XARGS=1 forces xargs, which every system has).
# Rerunning the script resumes unfinished shards and merges again.

set -euo pipefail

SPARRING=${SPARRING:-sparring}
CONFIG=${CONFIG:-configs/gauntlet.toml}
OUT=${OUT:-results/parallel-run}
SHARDS=${SHARDS:-16}
JOBS=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
MERGED=${MERGED:-$OUT/merged}
USE_XARGS=${USE_XARGS:-}

mkdir -p "$OUT"
if [ -z "$USE_XARGS" ] && command -v parallel >/dev/null 2>&1; then
  # -q: parallel passes the arguments as they are (no shell word splitting of the paths).
  parallel --will-cite -q -j "$JOBS" "$SPARRING" match "$CONFIG" --shard "{}/$SHARDS" \
    --out "$OUT/shard-{}-of-$SHARDS" --resume --concurrency 1 --progress lines \
    ::: $(seq 0 $((SHARDS - 1)))
else
  # xargs exits with 123 when a shard failed; set -e then stops before the merge.
  seq 0 $((SHARDS - 1)) | xargs -P "$JOBS" -I{} "$SPARRING" match "$CONFIG" \
    --shard "{}/$SHARDS" --out "$OUT/shard-{}-of-$SHARDS" --resume --concurrency 1 \
    --progress lines
fi

"$SPARRING" merge "$MERGED" "$OUT"/shard-*-of-"$SHARDS"
