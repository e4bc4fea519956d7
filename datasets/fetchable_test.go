package datasets

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The list of fetchable files is the one scripts/fetch_data.sh makes: every
// name it fetches, derives or unpacks, and nothing else; a path with a
// directory is never fetchable.
func TestFetchableMatchesScript(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "scripts", "fetch_data.sh"))
	if err != nil {
		t.Fatal(err)
	}
	made := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^(?:fetch|derive) (\S+)`).FindAllStringSubmatch(string(raw), -1) {
		made[m[1]] = true
	}
	made["household_power_consumption.txt"] = true // unzipped from the .zip
	for _, name := range []string{"vehicle_combined_scale", "vehicle_combined_scale.t", "WISDM_ar_v1.1_raw.txt"} {
		made[name] = true // unpacked from their archives (kind fl's specs name them)
	}
	for name := range made {
		if !Fetchable(name) {
			t.Errorf("fetch_data.sh makes %s, which Fetchable does not list", name)
		}
	}
	for _, name := range fetchable {
		if !made[name] {
			t.Errorf("Fetchable lists %s, which fetch_data.sh does not make", name)
		}
	}
	for _, p := range []string{"data/magic04.data", "../shared/data/magic04.data", "/tmp/magic04.data", "magic04.dat", "x.csv", ""} {
		if Fetchable(p) {
			t.Errorf("Fetchable(%q) = true", p)
		}
	}
}
