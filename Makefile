# ldpbench: the commands a user needs. Budgets are wall times on the 2-core
# CI machine, measured and stated in the README; no test is timed.
#   make figures        every shipped spec at quick scale (FULL=1: paper scale),
#                       one line each, then out/index.html (ldpbench report)
#   make test           vet, unit and statistical tests, end-to-end runs and
#                       fuzzing (budget: 6 minutes)
#   make check          gofmt, vet and go test -short: the edit loop (budget: 90 s)
#   make race           go test -race -short over the concurrent packages
#   make bench          per-mechanism ns/report and the ratio to the random draws alone
#   make data           fetch the real datasets into data/ (sha256-checked)
#   make regress        every shipped spec (SPECS_ONLY="a b": some) at quick
#                       scale against its theory and its baseline in baselines/
#                       (exit 0 nothing moved, 1 a cell moved, 2 could not run)
#   make test-slurm     shards + merge on a real one-node Slurm cluster (root; apt)
#   make test-browser   the report's pages in headless Chromium (root; apt), with
#                       screenshots in out/browser

GO      ?= go
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
SPECS   := $(wildcard runs/*.toml)
QUICK   := $(if $(FULL),,--quick)
# FRESH=1: run again the specs whose results another build (or spec, seed
# or scale) wrote, which a run otherwise refuses.
FRESHFLAG := $(if $(FRESH),--fresh)
BASELINES ?= baselines
BIN     := bin/ldpbench

.PHONY: all build figures test check race bench data vet clean regress regress-baselines test-slurm test-browser times

all: build

build:
	$(GO) build -o $(BIN) ./cmd/ldpbench

# One ldpbench run over every spec: one line per spec (ran, skipped and
# why, time), each spec's log in out/<spec>/run.log, a summary and
# out/index.md at the end; then the HTML report: a page per run and
# out/index.html over them all (written even when a spec failed, and the
# run's exit status kept).
REPORT_INDEX := index.html
figures: build
	@rc=0; ./$(BIN) run -j $(JOBS) $(QUICK) $(FRESHFLAG) $(SPECS) || rc=$$?; \
	./$(BIN) report && echo "open out/$(REPORT_INDEX) in a browser"; exit $$rc

# docs/times.md: every shipped spec's full-scale time as its run under
# $(RUNS) recorded it (times.csv), beside plan --full's estimate.
RUNS ?= out
times: build
	BIN=$(BIN) RUNS=$(RUNS) bash scripts/times.sh

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo "gofmt needed"; exit 1; }
	$(GO) vet ./...
	$(GO) -C scripts/extract vet ./...
	$(GO) -C scripts/browsertest vet ./...

# The edit loop: the long statistical tests skip under -short (each says
# what it costs); make test runs them.
check: vet
	$(GO) test -short -count=1 ./...

# The packages that run work concurrently, under the race detector.
RACE_PKGS := ./harness/... ./kinds/... ./estimators/... ./results/... ./compare/...
race:
	$(GO) test -race -short -count=1 $(RACE_PKGS)

# scripts/extract is a module of its own (its Parquet dependencies stay out
# of go.mod), so ./... does not reach it.
test: vet
	$(GO) test -count=1 -timeout 15m ./...
	$(GO) -C scripts/extract test -count=1 ./...
# Every parser of outside input, fuzzed briefly (one target per go test: -fuzz
# takes one), about 4 s each on 2 cores. Counts (Nx), not durations: a
# duration can fail with a spurious "context deadline exceeded" before Go 1.27
# (go.dev/issue/75804). -fuzzminimizetime 0: a spec load costs about a
# millisecond, and minimising each new corpus entry would take the run.
	$(GO) test -run '^$$' -fuzz '^FuzzLoadSpec$$' -fuzztime 8000x -fuzzminimizetime 0 ./harness/
	$(GO) test -run '^$$' -fuzz '^FuzzLoadSpecErrorText$$' -fuzztime 8000x -fuzzminimizetime 0 ./harness/
	$(GO) test -run '^$$' -fuzz '^FuzzReadRows$$' -fuzztime 12000x -fuzzminimizetime 0 ./results/
	$(GO) test -run '^$$' -fuzz '^FuzzReadSummaries$$' -fuzztime 12000x -fuzzminimizetime 0 ./results/
	$(GO) test -run '^$$' -fuzz '^FuzzReadBaseline$$' -fuzztime 8000x -fuzzminimizetime 0 ./compare/
	$(GO) test -run '^$$' -fuzz '^FuzzLoadColumn$$' -fuzztime 20000x -fuzzminimizetime 0 ./datasets/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 60000x -fuzzminimizetime 0 ./experiment/
# A spec's errors must not depend on map order: the same bad spec, the same message.
	$(GO) test -run '^$$' -fuzz '^FuzzLoadSpecErrorStable$$' -fuzztime 3000x -fuzzminimizetime 0 ./harness/

# Baselines are rewritten only on purpose, with the reason stored in each
# file: make regress-baselines REASON="why the expected results changed"
# (SPECS_ONLY="a b" for some specs).
regress: build
	JOBS=$(JOBS) BASELINES=$(BASELINES) bash scripts/regress.sh $(SPECS_ONLY)

regress-baselines: build
	@test -n "$(REASON)" || { echo 'make regress-baselines needs REASON="why the expected results changed"'; exit 2; }
	JOBS=$(JOBS) BASELINES=$(BASELINES) bash scripts/regress.sh --update-baseline --reason "$(REASON)" $(SPECS_ONLY)

test-slurm: build
	bash deploy/slurm/test.sh

test-browser: build
	bash scripts/test-browser.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 1s -timeout 60m ./mechanisms/... ./estimators/... ./centraldp/... ./internal/lp/ ./aaa/ ./fedlearn/ ./kinds/groupmean/ ./kinds/central/ ./kinds/dist/ ./audit/ | tee bench.txt

data:
	bash scripts/fetch_data.sh

clean:
	rm -rf bin out
