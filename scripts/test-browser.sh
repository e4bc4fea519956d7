#!/usr/bin/env bash
# make test-browser: `ldpbench report`'s pages in a real, headless Chromium.
#
# Installs Debian's chromium with apt if it is missing (root), runs two
# shipped specs into a directory of its own (noutput-tables at quick scale:
# figures and tables with their best cells; central-fig3a at its paper
# scale, a few seconds: figures and claims), tests the second with
# `ldpbench regress` so that its page carries a verdict, writes their pages
# and an index with `ldpbench report`, then opens the index and both pages
# with scripts/browsertest. That fails on a console error, a request off
# the machine, an image that does not load, a relative link to a missing
# file, or a run page without its figures, and keeps a screenshot of each
# page in $SHOTS (default out/browser) to look at.
# Environment: LDPBENCH (default bin/ldpbench), SHOTS, CHROME (a Chromium
# binary other than the one on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
LDPBENCH=${LDPBENCH:-bin/ldpbench}
SHOTS=${SHOTS:-out/browser}

say() { echo "test-browser: $*"; }
die() { echo "test-browser: FAIL: $*" >&2; exit 1; }

[ -x "$LDPBENCH" ] || die "$LDPBENCH is not built (make build)"
if [ -z "${CHROME:-}" ] && ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null && ! command -v google-chrome >/dev/null; then
	[ "$(id -u)" = 0 ] || die "no Chromium on PATH, and installing Debian's needs root (apt-get install chromium), or set CHROME"
	say "installing Debian's chromium"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$LDPBENCH" run --quick --out "$work/noutput-tables" runs/noutput-tables.toml >/dev/null
"$LDPBENCH" run --quick --out "$work/central-fig3a" runs/central-fig3a.toml >/dev/null
"$LDPBENCH" regress "$work/central-fig3a" >/dev/null
"$LDPBENCH" report --out "$work/index.html" "$work/noutput-tables" "$work/central-fig3a"
grep -q 'regress' "$work/central-fig3a/report.html" || die "central-fig3a's page has no regress verdict"

chrome=()
[ -n "${CHROME:-}" ] && chrome=(-chrome "$CHROME")
shots=$(mkdir -p "$SHOTS" && cd "$SHOTS" && pwd)
go -C scripts/browsertest run . -shots "$shots" "${chrome[@]}" \
	"$work/index.html" "$work/noutput-tables/report.html" "$work/central-fig3a/report.html"
say "PASS; screenshots in $SHOTS"
