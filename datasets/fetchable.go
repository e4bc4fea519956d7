package datasets

import (
	"path/filepath"
	"slices"
)

// fetchable lists the files that `make data` (scripts/fetch_data.sh) puts
// into data/: downloads, and the extracts derived from them. A spec whose
// data file is one of them and is not there yet is skipped (it waits for
// `make data`); any other missing path is an error, since it can only be a
// typo or a file the user forgot.
var fetchable = []string{
	"magic04.data",
	"shuttle.tst",
	"yellow_tripdata_2023-01.parquet",
	"yellow_tripdata_2018-01.parquet",
	"yellow_tripdata_2018-01.pickup.csv",
	"yellow_tripdata_2023-01.pickup.csv",
	"household_power_consumption.zip",
	"household_power_consumption.txt",
	"sf_employee_compensation.csv",
	"sf_total_compensation.csv",
	"vehicle_combined_scale.bz2",
	"vehicle_combined_scale.t.bz2",
	"vehicle_combined_scale",
	"vehicle_combined_scale.t",
	"WISDM_ar_latest.tar.gz",
	"WISDM_ar_v1.1_raw.txt",
}

// Fetchable reports whether path names a file that `make data` provides:
// a bare file name (no directory) of its list. Such a file may be absent
// until the data are fetched.
func Fetchable(path string) bool {
	return filepath.Base(path) == path && slices.Contains(fetchable, path)
}
