package datasets

import (
	"fmt"
	"strings"
)

// Catalogue returns the named datasets of `ldpbench list datasets`, in a
// fixed order. Each entry is a valid Spec; file entries name their file by
// base name and are located with Find when built. The slice is fresh on every
// call, so callers may modify it.
func Catalogue() []Spec {
	cat := []Spec{
		{Name: "beta32", Source: SourceBeta, A: 3, B: 2,
			Description: "Beta(3,2) mapped by 2u-1 (Baek & Chung; population mean 0.2, variance 0.16)"},
		{Name: "beta25", Source: SourceBeta, A: 2, B: 5,
			Description: "Beta(2,5) mapped by 2u-1 (Du et al.'s data; the paper itself normalises by min-max, see beta25-minmax)"},
		{Name: "beta25-minmax", Source: SourceBeta, A: 2, B: 5, Normalise: RuleMinMax,
			Description: "Beta(2,5) normalised by the sample's own min and max, as Du et al. does"},
		{Name: "beta-sin", Source: SourceBetaSin, Substitute: true,
			Description: "Beta(2,5).pdf(u)*(1+0.5*sin(2*pi*10*u)) mapped by 2u-1; ldpbench substitute for Du et al.'s unpublished Beta+Sin"},
		{Name: "gaussian-mu0", Source: SourceGaussian, Mu: 0, Sigma: 0.25,
			Description: "N(0, 1/4) truncated to [-1,1] by rejection (Zhao et al., 16-d Gaussians)"},
		{Name: "gaussian-mu0.33", Source: SourceGaussian, Mu: 1.0 / 3, Sigma: 0.25,
			Description: "N(1/3, 1/4) truncated to [-1,1] by rejection (Zhao et al., 16-d Gaussians)"},
		{Name: "gaussian-mu0.67", Source: SourceGaussian, Mu: 2.0 / 3, Sigma: 0.25,
			Description: "N(2/3, 1/4) truncated to [-1,1] by rejection (Zhao et al., 16-d Gaussians)"},
		{Name: "gaussian-mu1", Source: SourceGaussian, Mu: 1, Sigma: 0.25,
			Description: "N(1, 1/4) truncated to [-1,1] by rejection (Zhao et al., 16-d Gaussians)"},
		{Name: "uniform", Source: SourceUniform,
			Description: "uniform on [-1,1]"},
		{Name: "magic-fLength", Source: SourceFile, Path: "magic04.data", Column: 0, Sep: ",", Normalise: RuleMinMax,
			Description: "UCI MAGIC Gamma Telescope fLength (column 0, 19,020 rows, 4.2835-334.177), min-max"},
		{Name: "magic-fAlpha", Source: SourceFile, Path: "magic04.data", Column: 8, Sep: ",", Normalise: RuleMinMax,
			Description: "UCI MAGIC Gamma Telescope fAlpha (column 8, 19,020 rows, 0-90), min-max"},
		{Name: "shuttle-col0", Source: SourceFile, Path: "shuttle.tst", Column: 0, Sep: SepWhitespace, Normalise: RuleMinMax,
			Description: "UCI Statlog Shuttle test split, column 0 (14,500 rows, 27-123), min-max"},
		taxiPickup2018,
		sfTotalCompensation,
		voltage,
		nytaxi2023,
		vehicle,
		wisdm,
		// Grouped data (Raab et al.'s group means): raw values, each with
		// its class as the group, on a fixed range.
		{Name: "magic-fAlpha-by-class", Source: SourceFile, Path: "magic04.data", Column: 8, Sep: ",",
			GroupColumn: ColumnAt(10), Lo: 0, Hi: 90,
			Description: "UCI MAGIC Gamma Telescope fAlpha (degrees, fixed range [0, 90]) grouped by class g (12,332) / h (6,688)"},
		{Name: "shuttle-col0-by-class", Source: SourceFile, Path: "shuttle.tst", Column: 0, Sep: SepWhitespace,
			GroupColumn: ColumnAt(9), Lo: 20, Hi: 130,
			Description: "UCI Statlog Shuttle test split, column 0 (27-123; fixed range [20, 130], an ldpbench choice) grouped by class 1-7 (11,478 / 13 / 39 / 2,155 / 809 / 4 / 2)"},
	}
	for _, d := range Standins() {
		cat = append(cat, Spec{Name: d.Name, Source: SourceStandin, Standin: d.Name, Substitute: true,
			Description: fmt.Sprintf("stand-in for Raab et al.'s %s %s by %s, %d groups, %d users (%s); synthetic values, NOT %s data",
				d.Paper, d.Value, d.By, len(d.Sizes), d.Total(), d.Origin, d.Paper)})
	}
	return cat
}

// taxiPickup2018 is Du et al.'s Taxi data (a documented reconstruction;
// docs/data.md and docs/multiservice.md): the pick-up seconds of day
// floored to the minute (column 1 of the extract that scripts/fetch_data.sh
// derives from the TLC's yellow_tripdata_2018-01.parquet with
// scripts/extract) of the file's first 1,048,575 trips with a pick-up time
// (scripts/extract drops null ones), the spreadsheet row limit the authors'
// extract suggests; min-max normalised, as the authors do.
var taxiPickup2018 = Spec{Name: "taxi", Source: SourceFile, Path: "yellow_tripdata_2018-01.pickup.csv",
	Column: 1, Sep: ",", Header: true, Rows: 1048575, Normalise: RuleMinMax,
	Description: "NYC yellow taxi 2018-01 pick-up seconds of day floored to the minute, first 1,048,575 trips, min-max (Du et al.'s Taxi; reconstruction)"}

// sfTotalCompensation is Du et al.'s Retirement data (docs/multiservice.md;
// ERRATA E4.9): DataSF's Employee Compensation `Total Compensation`,
// restricted to [10,000, 60,000] (the extract scripts/fetch_data.sh derives
// with scripts/extract); min-max normalised. The paper counts 606,507
// entries in its (Kaggle) copy; the DataSF export covers more years.
var sfTotalCompensation = Spec{Name: "retirement", Source: SourceFile, Path: "sf_total_compensation.csv",
	Column: 0, Sep: ",", Header: true, KeepLo: 10000, KeepHi: 60000, Normalise: RuleMinMax,
	Description: "San Francisco employee Total Compensation in [10,000, 60,000], min-max (Du et al.'s Retirement; column choice E4.9)"}

// voltage is Baek & Chung's Voltage data (docs/noutput.md): the Voltage
// column (volts, column 4) of the UCI household power file, a reading per
// minute from December 2006 to November 2010, '?' marking a missing one.
// The paper's 1,044,506 records are about half the valid rows; reading the
// file's first 1,048,575 rows (a spreadsheet's limit) and dropping the
// missing ones is the reconstruction that gives that count.
var voltage = Spec{Name: "voltage", Source: SourceFile, Path: "household_power_consumption.txt",
	Column: 4, Sep: ";", Header: true, Missing: "?", Rows: 1048575, Normalise: RuleMinMax,
	Description: "UCI household electric power consumption, Voltage of the first 1,048,575 one-minute readings, missing ones dropped, min-max (Baek & Chung's Voltage; reconstruction of its 1,044,506 records)"}

// nytaxi2023 is Baek & Chung's NYtaxi data (docs/noutput.md): the pick-up
// time of every trip of the TLC's January 2023 yellow taxi file as seconds
// of day (column 0 of the extract scripts/extract derives from the Parquet
// file), min-max normalised.
var nytaxi2023 = Spec{Name: "nytaxi", Source: SourceFile, Path: "yellow_tripdata_2023-01.pickup.csv",
	Column: 0, Sep: ",", Header: true, Normalise: RuleMinMax,
	Description: "NYC yellow taxi 2023-01 pick-up seconds of day, every trip (3,066,766), min-max (Baek & Chung's NYtaxi)"}

// vehicle and wisdm are the tables Zhao et al. trains on (docs/fl.md),
// which kind fl reads whole with LoadTable from the archives `make data`
// fetches. As datasets they are what the fl specs name: a one-row
// placeholder on the plain-text copy `make data` unpacks, so that a run
// waits, with a message, until the data are fetched.
var (
	vehicle = Spec{Name: "vehicle", Source: SourceFile, Path: "vehicle_combined_scale",
		Rows: 1, Normalise: RuleFixed, Lo: 0, Hi: 10,
		Description: "SensIT Vehicle (LIBSVM combined_scale and combined_scale.t: 100 acoustic and seismic features on [-1, 1], 3 vehicle classes; Zhao et al. count 98,528 examples); kind fl reads the table, the dataset is one row's class label"}
	wisdm = Spec{Name: "wisdm", Source: SourceFile, Path: "WISDM_ar_v1.1_raw.txt",
		Sep: ",", Rows: 1, Normalise: RuleFixed, Lo: 0, Hi: 100,
		Description: "WISDM activity recognition v1.1 raw accelerometer records (x, y, z at 20 Hz; 36 users, 6 activities; about 1.1 million lines); kind fl reads the table, the dataset is one row's user id"}
)

// Lookup returns the catalogue entry with the given name; names match
// exactly first, then case-insensitively.
func Lookup(name string) (Spec, bool) {
	cat := Catalogue()
	for _, s := range cat {
		if s.Name == name {
			return s, true
		}
	}
	for _, s := range cat {
		if strings.EqualFold(s.Name, name) {
			return s, true
		}
	}
	return Spec{}, false
}
