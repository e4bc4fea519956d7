#!/usr/bin/env bash
# Submits a spec as N shards (a Slurm job array) and the merge job that
# waits for all of them (--dependency=afterok), and prints both job ids.
#
#   deploy/slurm/submit.sh SPEC N OUTROOT [run flags, e.g. --quick]
#
# Extra sbatch options (partition, time, account) go in SBATCH_* variables,
# e.g. SBATCH_PARTITION=long SBATCH_TIMELIMIT=2:00:00, which sbatch reads.
# The merged results land in OUTROOT/merged.
set -euo pipefail
if [ $# -lt 3 ]; then
	echo "usage: $0 SPEC N OUTROOT [run flags...]" >&2
	exit 2
fi
spec=$1 n=$2 root=$3
shift 3
case $n in '' | *[!0-9]* | 0) echo "$0: N = '$n': want a shard count ≥ 1" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$root"
array=$(sbatch --parsable --array="0-$((n - 1))" --output="$root/shard-%a.out" "$here/shard.sbatch" "$spec" "$root" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --output="$root/merge.out" "$here/merge.sbatch" "$root" "$n")
merge=${merge%%;*}
echo "shards: job $array (array 0-$((n - 1))); merge: job $merge (afterok:$array) -> $root/merged"
