#!/usr/bin/env bash
# Fetch the real datasets into data/ and check their sha256.
#
# Nothing here is needed by `make test` or `make figures`: both run on
# synthetic data, and read the two UCI files from ../shared/data when it
# exists beside a developer checkout. A dataset whose download fails is
# reported and skipped (exit 0); a dataset whose hash does not match is
# removed and reported (exit 1), since a wrong file would silently change
# every result computed on it. Data files are never committed.
#
# Sources and licences: docs/data.md.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p data

fetcher() {
	if command -v curl >/dev/null; then
		curl -fsSL --retry 2 -o "$2" "$1"
	elif command -v wget >/dev/null; then
		wget -q -O "$2" "$1"
	else
		echo "neither curl nor wget is installed" >&2
		return 1
	fi
}

status=0

# fetch NAME URL SHA256 (SHA256 "-" = not yet pinned: print it so it can be)
fetch() {
	local name=$1 url=$2 want=$3 dest="data/$1"
	if [ -f "$dest" ]; then
		echo "have    $dest"
	elif [ -f "../shared/data/$name" ]; then
		echo "have    ../shared/data/$name (the loaders read it there)"
		return 0
	else
		echo "fetch   $url"
		if ! fetcher "$url" "$dest.part"; then
			rm -f "$dest.part"
			echo "SKIP    $name: download failed; runs that need it skip it with a message"
			return 0
		fi
		mv "$dest.part" "$dest"
	fi
	local got
	got=$(sha256sum "$dest" | cut -d' ' -f1)
	if [ "$want" = "-" ]; then
		echo "        $name sha256 $got (not pinned yet: pin it in scripts/fetch_data.sh)"
	elif [ "$got" != "$want" ]; then
		echo "BAD     $name: sha256 $got, want $want; removed"
		rm -f "$dest"
		status=1
	else
		echo "ok      $name"
	fi
}

# UCI MAGIC Gamma Telescope (CC BY 4.0, DOI 10.24432/C52C8B)
fetch magic04.data https://archive.ics.uci.edu/ml/machine-learning-databases/magic/magic04.data \
	e9314b7ebd4b4b59a3b3d65f7316663963777b16a46786877651dbbaa640b36a
# UCI Statlog Shuttle, test split (CC BY 4.0, DOI 10.24432/C5WS31)
fetch shuttle.tst https://archive.ics.uci.edu/ml/machine-learning-databases/statlog/shuttle/shuttle.tst \
	f776934a628d9b94c482cb058a76ddaa63823e0f74aec065813c9dff3b89d661
# NYC TLC yellow taxi trips (pick-up time of day): 2023-01 for the N-output paper, 2018-01 for Privacy for Free
fetch yellow_tripdata_2023-01.parquet https://d37ci6vzurychx.cloudfront.net/trip-data/yellow_tripdata_2023-01.parquet -
fetch yellow_tripdata_2018-01.parquet https://d37ci6vzurychx.cloudfront.net/trip-data/yellow_tripdata_2018-01.parquet -
# derive OUT SRC ARGS...: write data/OUT from the fetched file SRC (in data/
# or ../shared/data/) with scripts/extract (a module of its own, so that its
# Parquet dependencies stay out of ldpbench's go.mod) run as
# `go -C scripts/extract run . ARGS -in SRC -out OUT` on absolute paths,
# unless OUT exists. The extracts are what the loaders read: plain numbers
# where the published file is Parquet (Taxi) or a quoted CSV (Retirement).
# They are a deterministic function of SRC, so only SRC is hashed.
derive() {
	local out=$1 src=$2
	shift 2
	if [ -f "data/$out" ] || [ -f "../shared/data/$out" ]; then
		echo "have    $out"
		return 0
	fi
	local from=""
	for d in data ../shared/data; do
		if [ -f "$d/$src" ]; then from="$d/$src"; break; fi
	done
	if [ -z "$from" ]; then
		echo "SKIP    $out: $src is not fetched"
		return 0
	fi
	echo "derive  data/$out from $from"
	if ! go -C scripts/extract run . "$@" -in "$PWD/$from" -out "$PWD/data/$out"; then
		echo "BAD     $out: extraction failed"
		status=1
	fi
}
# Paper 004's Taxi (datasets.md §3.3): pick-up seconds of day and the same
# floored to the minute; the dataset "taxi" reads the latter for the first
# 1,048,575 trips. The 2023 extract serves Baek & Chung's NYtaxi (column 0).
derive yellow_tripdata_2018-01.pickup.csv yellow_tripdata_2018-01.parquet taxi
derive yellow_tripdata_2023-01.pickup.csv yellow_tripdata_2023-01.parquet taxi
# UCI Individual Household Electric Power Consumption (Voltage; CC BY 4.0, DOI 10.24432/C58K54)
fetch household_power_consumption.zip "https://archive.ics.uci.edu/static/public/235/individual+household+electric+power+consumption.zip" -
if [ -f data/household_power_consumption.zip ] && [ ! -f data/household_power_consumption.txt ]; then
	if command -v unzip >/dev/null; then
		unzip -q -o data/household_power_consumption.zip household_power_consumption.txt -d data
	else
		python3 -c 'import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extract("household_power_consumption.txt", "data")' data/household_power_consumption.zip
	fi && echo "ok      household_power_consumption.txt unpacked"
fi
# San Francisco Employee Compensation (DataSF 88g8-5mnd)
# (a live export, updated as DataSF adds fiscal years: its hash is printed,
# not pinned). Paper 004's Retirement (datasets.md §3.4) is its column
# "Total Compensation"; the dataset "retirement" keeps [10,000, 60,000].
fetch sf_employee_compensation.csv "https://data.sfgov.org/api/views/88g8-5mnd/rows.csv?accessType=DOWNLOAD" -
derive sf_total_compensation.csv sf_employee_compensation.csv csvcol -col "Total Compensation"
# SensIT Vehicle (LIBSVM mirror)
fetch vehicle_combined_scale.bz2 https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/vehicle/combined_scale.bz2 -
fetch vehicle_combined_scale.t.bz2 https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/vehicle/combined_scale.t.bz2 -
# WISDM activity recognition v1.1
fetch WISDM_ar_latest.tar.gz https://www.cis.fordham.edu/wisdm/includes/datasets/latest/WISDM_ar_latest.tar.gz -
# Plain-text copies of SensIT Vehicle and WISDM's raw file: kind fl reads
# the archives above, and its specs name these copies so that a run skips
# them (with a message) until `make data` has fetched them.
for f in vehicle_combined_scale vehicle_combined_scale.t; do
	if [ -f "data/$f.bz2" ] && [ ! -f "data/$f" ]; then
		if command -v bunzip2 >/dev/null; then
			bunzip2 -kc "data/$f.bz2" > "data/$f"
		else
			python3 -c 'import bz2,shutil,sys; shutil.copyfileobj(bz2.open(sys.argv[1]), open(sys.argv[2], "wb"))' "data/$f.bz2" "data/$f"
		fi && echo "ok      $f unpacked"
	fi
done
if [ -f data/WISDM_ar_latest.tar.gz ] && [ ! -f data/WISDM_ar_v1.1_raw.txt ]; then
	tar -xzOf data/WISDM_ar_latest.tar.gz --wildcards '*WISDM_ar_v1.1_raw.txt' > data/WISDM_ar_v1.1_raw.txt &&
		echo "ok      WISDM_ar_v1.1_raw.txt unpacked"
fi

cat <<'TXT'

Not downloadable by script (see docs/data.md):
  Taobao (Tianchi dataset 56): needs a login; ldpbench uses a synthetic stand-in.
  IPUMS International BR/MX: registration and a per-extract licence; never redistributable.
  MIMIC-IV v2.2: PhysioNet credentialed access; never redistributable.
  AQUILA: not public.
TXT
exit $status
