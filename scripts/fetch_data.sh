#!/usr/bin/env bash
# Fetch the real datasets into data/ and check their sha256.
#
# Nothing here is needed by `make test` or `make figures`: both run on
# synthetic data, and read the two UCI files from ../shared/data when it
# exists beside a developer checkout (not when LDPBENCH_NO_SHARED is set,
# as for the loaders). Every file that can be fetched is fetched; each one
# that cannot is named with the reason, again in a summary at the end, and
# the script then exits 1 (runs that need a missing file skip it with a
# message). A file whose hash does not match is removed, since a wrong file
# would silently change every result computed on it.
#
# Offline, a download fails at once: each host's name is resolved once,
# before its first download, and a host that does not resolve is not asked
# again (curl's --retry would otherwise retry a DNS failure, with back-off,
# for every file). Downloads and unpacked files are written to a temporary
# file in data/ and renamed only when complete and, where pinned, when the
# sha256 matches, so data/ never holds a partial file, even after Ctrl-C.
# Data files are never committed.
#
# Sources and licences: docs/data.md.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p data

shared=../shared/data
if [ -n "${LDPBENCH_NO_SHARED:-}" ]; then
	shared="" # the loaders do not look there either
fi

# Temporary files in flight, removed however the script ends.
tmps=()
cleanup() {
	local f
	for f in "${tmps[@]+"${tmps[@]}"}"; do rm -f "$f"; done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# newtmp OUT: print a fresh temporary path in data/ (same file system as
# data/OUT, so that mv is a rename) and remember it for cleanup.
newtmp() {
	mktemp "data/.$1.XXXXXX"
}

failed=() # one "file (datasets): why" per file not made
fail() {
	echo "FAIL    $1"
	failed+=("$1")
}

proxied() {
	[ -n "${https_proxy:-}${HTTPS_PROXY:-}${http_proxy:-}${HTTP_PROXY:-}${all_proxy:-}${ALL_PROXY:-}" ]
}

# resolves HOST: whether HOST's name resolves, asked once per host; when
# not, unresolved[HOST] says why. With a proxy the proxy resolves names, so
# curl is asked (without --retry, which would retry a DNS failure), as it
# is where there is no getent; otherwise getent, bounded by timeout when
# there is one. Without curl or getent the download itself decides.
declare -A dns=() unresolved=()
resolves() {
	local host=$1
	if [ -z "${dns[$host]+set}" ]; then
		dns[$host]=yes
		if command -v curl >/dev/null && { proxied || ! command -v getent >/dev/null; }; then
			curl -s -o /dev/null --connect-timeout 5 --max-time 10 -I "https://$host/"
			case $? in
			5) dns[$host]=no unresolved[$host]="cannot resolve the proxy for $host" ;;
			6) dns[$host]=no unresolved[$host]="cannot resolve host $host" ;;
			esac
		elif command -v getent >/dev/null; then
			local t=()
			if command -v timeout >/dev/null; then t=(timeout 3); fi
			if ! "${t[@]+"${t[@]}"}" getent hosts "$host" >/dev/null 2>&1; then
				dns[$host]=no unresolved[$host]="cannot resolve host $host"
			fi
		fi
	fi
	[ "${dns[$host]}" = yes ]
}

# download URL DEST: curl retries transient failures (HTTP 5xx, timeouts)
# twice; the host was resolved first, so it does not retry a DNS failure.
download() {
	if command -v curl >/dev/null; then
		curl -fsSL --retry 2 --connect-timeout 20 -o "$2" "$1"
	elif command -v wget >/dev/null; then
		wget -q --tries=3 --connect-timeout=20 -O "$2" "$1"
	else
		echo "neither curl nor wget is installed" >&2
		return 1
	fi
}

# fetch FILE URL SHA256 [DATASETS]: put data/FILE (for the catalogue entries
# DATASETS) from URL, unless it is already in data/ or the shared fallback.
# SHA256 "-" = not yet pinned: the hash is printed so that it can be.
fetch() {
	local name=$1 url=$2 want=$3 what="$1${4:+ ($4)}" dest="data/$1"
	local got
	if [ -f "$dest" ]; then
		echo "have    $dest"
		got=$(sha256sum "$dest" | cut -d' ' -f1)
		if [ "$want" != "-" ] && [ "$got" != "$want" ]; then
			rm -f "$dest"
			fail "$what: sha256 $got, want $want; removed"
			return 0
		fi
	elif [ -n "$shared" ] && [ -f "$shared/$name" ]; then
		echo "have    $shared/$name (the loaders read it there)"
		return 0
	else
		local host=${url#*://}
		host=${host%%/*}
		if ! resolves "$host"; then
			fail "$what: ${unresolved[$host]} (no network, or DNS fails); not fetched"
			return 0
		fi
		echo "fetch   $url"
		local tmp
		tmp=$(newtmp "$name") || {
			fail "$what: cannot create a temporary file in data/"
			return 0
		}
		tmps+=("$tmp")
		if ! download "$url" "$tmp"; then
			rm -f "$tmp"
			fail "$what: download from $host failed; not fetched"
			return 0
		fi
		got=$(sha256sum "$tmp" | cut -d' ' -f1)
		if [ "$want" != "-" ] && [ "$got" != "$want" ]; then
			rm -f "$tmp"
			fail "$what: downloaded sha256 $got, want $want; discarded"
			return 0
		fi
		mv -f "$tmp" "$dest"
	fi
	if [ "$want" = "-" ]; then
		echo "        $name sha256 $got (not pinned yet: pin it in scripts/fetch_data.sh)"
	else
		echo "ok      $name"
	fi
}

# unpack OUT SRC DATASETS COMMAND...: write data/OUT (for the catalogue
# entries DATASETS) from the standard output of COMMAND, which reads
# data/SRC, through a temporary file, unless OUT exists or SRC was not
# fetched.
unpack() {
	local out=$1 src=$2 what="$1 ($3)"
	shift 3
	if [ -f "data/$out" ] || [ ! -f "data/$src" ]; then
		return 0
	fi
	local tmp
	tmp=$(newtmp "$out") || {
		fail "$what: cannot create a temporary file in data/"
		return 0
	}
	tmps+=("$tmp")
	if "$@" >"$tmp"; then
		mv -f "$tmp" "data/$out"
		echo "ok      $out unpacked"
	else
		rm -f "$tmp"
		fail "$what: unpacking data/$src failed"
	fi
}

# derive OUT SRC ARGS...: write data/OUT from the fetched file SRC (in data/
# or the shared fallback) with scripts/extract (a module of its own, so that
# its Parquet dependencies stay out of ldpbench's go.mod) run as
# `go -C scripts/extract run . ARGS -in SRC -out OUT` on absolute paths,
# unless OUT exists. The extracts are what the loaders read: plain numbers
# where the published file is Parquet (Taxi) or a quoted CSV (Retirement).
# They are a deterministic function of SRC, so only SRC is hashed; extract
# itself writes OUT through a temporary file.
derive() {
	local out=$1 src=$2
	shift 2
	if [ -f "data/$out" ] || { [ -n "$shared" ] && [ -f "$shared/$out" ]; }; then
		echo "have    $out"
		return 0
	fi
	local from=""
	for d in data $shared; do
		if [ -f "$d/$src" ]; then
			from="$d/$src"
			break
		fi
	done
	if [ -z "$from" ]; then
		echo "SKIP    $out: $src is not fetched"
		return 0
	fi
	echo "derive  data/$out from $from"
	if ! go -C scripts/extract run . "$@" -in "$PWD/$from" -out "$PWD/data/$out"; then
		fail "$out: extraction from $from failed"
	fi
}

# UCI MAGIC Gamma Telescope (CC BY 4.0, DOI 10.24432/C52C8B)
fetch magic04.data https://archive.ics.uci.edu/ml/machine-learning-databases/magic/magic04.data \
	e9314b7ebd4b4b59a3b3d65f7316663963777b16a46786877651dbbaa640b36a "magic-*"
# UCI Statlog Shuttle, test split (CC BY 4.0, DOI 10.24432/C5WS31)
fetch shuttle.tst https://archive.ics.uci.edu/ml/machine-learning-databases/statlog/shuttle/shuttle.tst \
	f776934a628d9b94c482cb058a76ddaa63823e0f74aec065813c9dff3b89d661 "shuttle-*"
# NYC TLC yellow taxi trips (pick-up time of day): 2023-01 for the N-output paper, 2018-01 for Privacy for Free
fetch yellow_tripdata_2023-01.parquet https://d37ci6vzurychx.cloudfront.net/trip-data/yellow_tripdata_2023-01.parquet - nytaxi
fetch yellow_tripdata_2018-01.parquet https://d37ci6vzurychx.cloudfront.net/trip-data/yellow_tripdata_2018-01.parquet - taxi
# Du et al.'s Taxi (docs/multiservice.md): pick-up seconds of day and the
# same floored to the minute; the dataset "taxi" reads the latter for the
# first 1,048,575 trips. The 2023 extract serves Baek & Chung's NYtaxi
# (column 0).
derive yellow_tripdata_2018-01.pickup.csv yellow_tripdata_2018-01.parquet taxi
derive yellow_tripdata_2023-01.pickup.csv yellow_tripdata_2023-01.parquet taxi
# UCI Individual Household Electric Power Consumption (Voltage; CC BY 4.0, DOI 10.24432/C58K54)
fetch household_power_consumption.zip "https://archive.ics.uci.edu/static/public/235/individual+household+electric+power+consumption.zip" - voltage
if command -v unzip >/dev/null; then
	unpack household_power_consumption.txt household_power_consumption.zip voltage \
		unzip -p data/household_power_consumption.zip household_power_consumption.txt
else
	unpack household_power_consumption.txt household_power_consumption.zip voltage \
		python3 -c 'import shutil,sys,zipfile; shutil.copyfileobj(zipfile.ZipFile(sys.argv[1]).open("household_power_consumption.txt"), sys.stdout.buffer)' data/household_power_consumption.zip
fi
# San Francisco Employee Compensation (DataSF 88g8-5mnd)
# (a live export, updated as DataSF adds fiscal years: its hash is printed,
# not pinned). Du et al.'s Retirement (docs/multiservice.md) is its column
# "Total Compensation"; the dataset "retirement" keeps [10,000, 60,000].
fetch sf_employee_compensation.csv "https://data.sfgov.org/api/views/88g8-5mnd/rows.csv?accessType=DOWNLOAD" - retirement
derive sf_total_compensation.csv sf_employee_compensation.csv csvcol -col "Total Compensation"
# SensIT Vehicle (LIBSVM mirror)
fetch vehicle_combined_scale.bz2 https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/vehicle/combined_scale.bz2 - vehicle
fetch vehicle_combined_scale.t.bz2 https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/vehicle/combined_scale.t.bz2 - vehicle
# WISDM activity recognition v1.1
fetch WISDM_ar_latest.tar.gz https://www.cis.fordham.edu/wisdm/includes/datasets/latest/WISDM_ar_latest.tar.gz - wisdm
# Plain-text copies of SensIT Vehicle and WISDM's raw file: kind fl reads
# the archives above, and its specs name these copies so that a run skips
# them (with a message) until `make data` has fetched them.
for f in vehicle_combined_scale vehicle_combined_scale.t; do
	if command -v bunzip2 >/dev/null; then
		unpack "$f" "$f.bz2" vehicle bunzip2 -kc "data/$f.bz2"
	else
		unpack "$f" "$f.bz2" vehicle python3 -c 'import bz2,shutil,sys; shutil.copyfileobj(bz2.open(sys.argv[1]), sys.stdout.buffer)' "data/$f.bz2"
	fi
done
unpack WISDM_ar_v1.1_raw.txt WISDM_ar_latest.tar.gz wisdm \
	tar -xzOf data/WISDM_ar_latest.tar.gz --wildcards '*WISDM_ar_v1.1_raw.txt'

cat <<'TXT'

Not downloadable by script (see docs/data.md):
  Taobao (Tianchi dataset 56): needs a login; ldpbench uses a synthetic stand-in.
  IPUMS International BR/MX: registration and a per-extract licence; never redistributable.
  MIMIC-IV v2.2: PhysioNet credentialed access; never redistributable.
  AQUILA: not public.
TXT

if [ ${#failed[@]} -gt 0 ]; then
	echo
	echo "Not fetched (${#failed[@]}); runs that need these skip them with a message:"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo
echo "All fetchable datasets are in place."
