#!/usr/bin/env bash
# Regression of every shipped spec (or the ones named: names in runs/ or
# files) at quick scale: runs each into $OUT/<spec> (--fresh: rows of an
# older build are never reused) and tests it with `ldpbench regress`
# against its theory and its baseline $BASELINES/<spec>.csv. This is the
# script of make regress and of the CI recipes of docs/ci.md.
#
#   scripts/regress.sh [SPEC...]                                  # test
#   scripts/regress.sh --update-baseline --reason "why" [SPEC...] # rewrite baselines
#
# Environment: BIN, the ldpbench command (default bin/ldpbench); BASELINES,
# the baselines' directory (default baselines); OUT, the runs' root (default
# out/regress); JOBS, workers per run (default: every core).
#
# Exit status: 0 nothing moved; 1 some spec moved (the cells are printed);
# 2 a spec failed to run. A spec without a baseline is tested against its
# theory only, and named at the end.
set -uo pipefail
BIN=${BIN:-bin/ldpbench}
BASELINES=${BASELINES:-baselines}
OUT=${OUT:-out/regress}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
extra=()
specs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--update-baseline) extra+=(--update-baseline); shift ;;
	--reason) extra+=(--reason "$2"); shift 2 ;;
	--alpha) extra+=(--alpha "$2"); shift 2 ;;
	*) specs+=("$1"); shift ;;
	esac
done
if [ ${#specs[@]} -eq 0 ]; then
	for f in runs/*.toml; do specs+=("$(basename "$f" .toml)"); done
fi
moved=() failed=() nobase=()
mkdir -p "$OUT"
for spec in "${specs[@]}"; do
	name=$(basename "$spec" .toml)
	out="$OUT/$name"
	echo "== $name"
	start=$(date +%s)
	if ! "$BIN" run "$spec" --quick --fresh -j "$JOBS" --out "$out" >"$out.log" 2>&1; then
		if grep -q "data file not found" "$out.log"; then
			# A kind that reads its own tables (fl) refuses rather than
			# skips a file `make data` has not fetched.
			echo "$name: skipped (data not fetched: $(grep -o 'data file not found: [^;]*' "$out.log" | head -1))"
			continue
		fi
		cat "$out.log"
		failed+=("$name")
		continue
	fi
	if grep -q "skipped: data not fetched" "$out.log"; then
		echo "$name: skipped (data not fetched)"
		continue
	fi
	"$BIN" regress "$out" --baseline "$BASELINES/$name.csv" "${extra[@]}"
	case $? in
	0) ;;
	1) moved+=("$name") ;;
	*) failed+=("$name") ;;
	esac
	[ -f "$BASELINES/$name.csv" ] || nobase+=("$name")
	echo "   ($(($(date +%s) - start)) s)"
done
echo
[ ${#nobase[@]} -eq 0 ] || echo "no baseline (theory only): ${nobase[*]}; write them with: scripts/regress.sh --update-baseline --reason \"...\" ${nobase[*]}"
[ ${#failed[@]} -eq 0 ] || { echo "FAILED to run: ${failed[*]}"; exit 2; }
[ ${#moved[@]} -eq 0 ] || { echo "MOVED: ${moved[*]}"; exit 1; }
echo "regress: nothing moved"
