#!/usr/bin/env bash
# test.sh is netmcp's one test command, the one CI runs (.ci/run):
#   1. scripts/install-deps.sh (apt packages, Node 22, MCP conformance suite
#      and MCP Inspector, Go modules, staticcheck);
#   2. gofmt: fails listing the files gofmt would change;
#   3. go vet ./..., then a build of cmd/netmcp and go vet ./... for
#      darwin/arm64, darwin/amd64 and windows/amd64;
#   4. staticcheck (the version install-deps.sh pins, staticcheck.conf): fails
#      on any finding;
#   5. go test -race -count=1 on every package but those that build a real
#      lab as root (unit, integration, conformance, Inspector, the drivers'
#      conformance table, the layering test in internal/archtest), then
#      go test -count=1 without -race on those (REAL_PEER_PKGS) and on the
#      few tests too heavy for the race detector (RACE_SKIP), and on its own
#      each test of OWN_RUN;
#   6. netmcp bench --quick: netmcp against a bare go-sdk server (the test
#      program internal/cmd/bench-peer, built beside it), printed (no
#      timing assertion: it fails only if a call fails);
#   7. bounded fuzzing of every Fuzz target found in the repo's _test.go files.
# It exits non-zero on the first failing stage, and prints each stage's
# duration at the end. Stays well under 30 minutes on 2 cores: the test
# stage has a hard timeout, and each fuzz target runs FUZZTIME executions
# (default 200000x, 2 to 60 s a target here).
#
# --busy (or BUSY=1) runs the test stage with every CPU saturated by a busy
# loop (one per CPU, each bounded by `timeout`, killed when the stage ends),
# so that a test that holds only on a quiet machine fails here rather than
# in a busy CI run. It sets NETMCP_TEST_SCALE=2 (unless set), the factor by
# which internal/testwait stretches the tests' deadlines: the load average
# it otherwise reads lags a load that has just begun.
#
# Why a fuzz count and not a duration: with a duration, Go 1.26's fuzz
# coordinator can report its own -fuzztime deadline as a failure ("context
# deadline exceeded", no failing input written) when a worker is mid-call as
# the deadline fires: golang/go#75804, fixed only in Go 1.27. A count sets no
# deadline, so every FAIL in this stage is a real one. FUZZTIME=30s still
# works, with that risk, for a local run.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

usage() {
	echo "usage: scripts/test.sh [--busy]" >&2
	exit 2
}
: "${BUSY:=}"
for arg in "$@"; do
	case $arg in
	--busy) BUSY=1 ;;
	*) usage ;;
	esac
done
if [ "$BUSY" = 0 ]; then
	BUSY=""
fi

: "${FUZZTIME:=200000x}"
: "${TEST_TIMEOUT:=15m}"
export CI="${CI:-}"
export GOFLAGS="${GOFLAGS:-}"
export NO_COLOR=1 NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false

# Packages whose tests build a real lab (network namespaces, FRR, traffic
# shaping) as root and time what the kernel does: tested without -race,
# which slows them against their peers' timers and finds nothing in the
# peers. Every other package is tested with -race, the drivers against
# netconfd, snmpd and OpenSSH included.
#   cmd/netmcp: also, its crash tests Wait on a child process that the
#   go-sdk's command transport Waits on too, a race in the test.
REAL_PEER_PKGS=(
	./cmd/netmcp
	./device/linux/...
	./diag
	./lab/real
	./lab/twin
)

# Tests too heavy for the race detector, as "PACKAGE TEST": skipped in the
# -race run and run on their own without it.
#   TestGridOf1024 builds a 1,024-router model: 10 s, 170 s under -race;
#   TestUpGrid1024 serves it too: about a minute under -race;
#   TestGeneratedSuiteGate scores the controller on 160 generated cases,
#   TestSameAnswersUnderLoad 30 cases twice (minutes; both skip
#   themselves under -race).
RACE_SKIP=(
	"./lab/sim TestGridOf1024"
	"./lab/serve TestUpGrid1024"
	"./lab/eval TestGeneratedSuiteGate"
	"./lab/eval TestSameAnswersUnderLoad"
)

# Tests of REAL_PEER_PKGS run on their own, as "PACKAGE TEST": skipped in
# their package's run, then run alone with their own timeout, so that
# their minutes do not eat into the package's.
#   TestControllerClusterAskGrid asks through three controller replicas
#   and a single controller over a lab of 3,000 simulated routers
#   (docs/cluster.md: 5 minutes on 2 cores shared with other work).
OWN_RUN=(
	"./cmd/netmcp TestControllerClusterAskGrid"
)

stage_names=()
stage_secs=()
stage_start=$SECONDS
current=""
# stage ends the current stage (recording its duration) and starts the next.
stage() {
	end_stage
	current="$*"
	stage_start=$SECONDS
	printf '\n=== %s\n' "$current"
}
end_stage() {
	if [ -n "$current" ]; then
		stage_names+=("$current")
		stage_secs+=($((SECONDS - stage_start)))
	fi
	current=""
}
summary() {
	end_stage
	local i
	printf '\n=== durations%s\n' "${BUSY:+ (--busy)}"
	for i in "${!stage_names[@]}"; do
		printf '%6d s  %s\n' "${stage_secs[$i]}" "${stage_names[$i]}"
	done
	printf '%6d s  total\n' "$SECONDS"
}

busy_pids=()
# start_busy runs one busy loop per CPU, each ending on its own after
# TEST_TIMEOUT and 5 minutes at the latest.
start_busy() {
	local n i limit
	n=$(nproc)
	limit=$(($(timeout_secs "$TEST_TIMEOUT") + 300))
	for ((i = 0; i < n; i++)); do
		timeout "$limit" sh -c 'while :; do :; done' &
		busy_pids+=($!)
	done
	export NETMCP_TEST_SCALE="${NETMCP_TEST_SCALE:-2}"
	echo "busy: $n loops (pids ${busy_pids[*]}), NETMCP_TEST_SCALE=$NETMCP_TEST_SCALE"
}
stop_busy() {
	local p
	for p in "${busy_pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${busy_pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	busy_pids=()
}
on_exit() {
	local rc=$?
	stop_busy
	summary
	if [ "$rc" -eq 0 ]; then
		echo "all stages passed"
	elif [ "$rc" -gt 128 ]; then
		echo "stopped by signal $((rc - 128)) in stage: ${stage_names[-1]:-?}"
	else
		echo "failed in stage: ${stage_names[-1]:-?}"
	fi
}
trap on_exit EXIT
# A run stopped by a signal must not end as passed: the EXIT trap sees
# the signal's status, not that of the last command that finished.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# timeout_secs turns a Go duration such as 15m or 90s into seconds.
timeout_secs() {
	case $1 in
	*h) echo $((${1%h} * 3600)) ;;
	*m) echo $((${1%m} * 60)) ;;
	*s) echo "${1%s}" ;;
	*) echo 3600 ;;
	esac
}

stage "install dependencies"
scripts/install-deps.sh
# Node 22 first on PATH: the conformance suite and Inspector need it.
PATH="$(scripts/install-deps.sh --print-path):$PATH"
export PATH
node --version

stage "gofmt"
mapfile -t unformatted < <(
	find . \( -path ./.git -o -path ./.tools -o -name node_modules \) -prune -o -name '*.go' -print0 |
		xargs -0 gofmt -l
)
if [ ${#unformatted[@]} -gt 0 ]; then
	echo "gofmt would change these files (run gofmt -w on them):"
	printf '  %s\n' "${unformatted[@]}"
	exit 1
fi

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

stage "staticcheck"
.tools/bin/staticcheck -version
# staticcheck exits non-zero on a finding, or when it cannot load or
# type-check the code; set -e ends the run there.
.tools/bin/staticcheck ./...

stage "go test -race (all but REAL_PEER_PKGS)"
mapfile -t real_peer < <(go list "${REAL_PEER_PKGS[@]}")
mapfile -t race_pkgs < <(go list ./... | grep -vxF -f <(printf '%s\n' "${real_peer[@]}"))
if [ -n "$BUSY" ]; then
	start_busy
fi
skip=$(printf '%s\n' "${RACE_SKIP[@]}" | cut -d' ' -f2 | paste -sd'|')
go test -race -count=1 -timeout "$TEST_TIMEOUT" -skip "^($skip)\$" "${race_pkgs[@]}"

stage "go test (REAL_PEER_PKGS, OWN_RUN and RACE_SKIP, no -race)"
own=$(printf '%s\n' "${OWN_RUN[@]}" | cut -d' ' -f2 | paste -sd'|')
go test -count=1 -timeout "$TEST_TIMEOUT" -skip "^($own)\$" "${real_peer[@]}"
for t in "${OWN_RUN[@]}"; do
	go test -count=1 -timeout "$TEST_TIMEOUT" -v -run "^${t#* }\$" "${t%% *}"
done
for t in "${RACE_SKIP[@]}"; do
	go test -count=1 -timeout "$TEST_TIMEOUT" -run "^${t#* }\$" "${t%% *}"
done
stop_busy

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

end_stage
