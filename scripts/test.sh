#!/usr/bin/env bash
# test.sh is netmcp's one test command, the one CI runs (.ci/run):
#   1. scripts/install-deps.sh (apt packages, Node 22, MCP conformance suite
#      and MCP Inspector, Go modules);
#   2. go vet ./...
#   3. go test -count=1 ./... (unit, integration, conformance, Inspector);
#   4. netmcp bench --quick: netmcp against a bare go-sdk server (the test
#      program internal/cmd/bench-peer, built beside it), printed (no
#      timing assertion: it fails only if a call fails);
#   5. bounded fuzzing of every Fuzz target found in the repo's _test.go files.
# It exits non-zero on the first failing stage. Stays well under 30 minutes on
# 2 cores: the test stage has a hard timeout, and each fuzz target runs
# FUZZTIME executions (default 200000x, 2 to 60 s a target here).
#
# Why a count and not a duration: with a duration, Go 1.26's fuzz coordinator
# can report its own -fuzztime deadline as a failure ("context deadline
# exceeded", no failing input written) when a worker is mid-call as the
# deadline fires: golang/go#75804, fixed only in Go 1.27. A count sets no
# deadline, so every FAIL in this stage is a real one. FUZZTIME=30s still works,
# with that risk, for a local run.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

: "${FUZZTIME:=200000x}"
: "${TEST_TIMEOUT:=15m}"
export CI="${CI:-}"
export GOFLAGS="${GOFLAGS:-}"
export NO_COLOR=1 NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false

stage() { printf '\n=== %s\n' "$*"; }

stage "install dependencies"
scripts/install-deps.sh
# Node 22 first on PATH: the conformance suite and Inspector need it.
PATH="$(scripts/install-deps.sh --print-path):$PATH"
export PATH
node --version

stage "go vet ./..."
go vet ./...

stage "cross-build and vet for macOS and Windows"
# MCP hosts (Claude Desktop, VS Code) start netmcp over stdio on macOS and
# Windows laptops: the binary must build there, with the Linux-only parts
# (linux://, the real lab) behind build tags. go vet with GOOS set
# type-checks the test files too, so they must compile there as well.
for target in darwin/arm64 darwin/amd64 windows/amd64; do
	echo "--- $target"
	GOOS=${target%/*} GOARCH=${target#*/} CGO_ENABLED=0 go build -o /dev/null ./cmd/netmcp
	GOOS=${target%/*} GOARCH=${target#*/} CGO_ENABLED=0 go vet ./...
done

stage "go test -count=1 ./..."
go test -count=1 -timeout "$TEST_TIMEOUT" ./...

stage "netmcp bench --quick"
mkdir -p .tools
CGO_ENABLED=0 go build -trimpath -o .tools/netmcp-bench ./cmd/netmcp
CGO_ENABLED=0 go build -trimpath -o .tools/bench-peer ./internal/cmd/bench-peer
.tools/netmcp-bench bench --quick

stage "fuzz (each target ${FUZZTIME})"
# Every `func FuzzX(` in a _test.go file outside .tools/, node_modules/ and
# testdata/, as "package-dir FuzzX".
mapfile -t targets < <(
	grep -rE --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*\(' . \
		--exclude-dir=.tools --exclude-dir=node_modules --exclude-dir=testdata --exclude-dir=.git |
		sed -E 's#^\./(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]*)\($#\1 \2#; s#^\./[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]*)\($#. \1#' |
		sort -u
)
if [ ${#targets[@]} -eq 0 ]; then
	echo "no fuzz targets"
fi
for t in "${targets[@]}"; do
	dir=${t% *}
	fn=${t#* }
	echo "--- fuzz ./$dir $fn"
	go test -count=1 -run='^$' -fuzz="^${fn}\$" -fuzztime="$FUZZTIME" "./$dir"
done

stage "all stages passed"
