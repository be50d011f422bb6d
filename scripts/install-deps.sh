#!/usr/bin/env bash
# install-deps.sh installs everything netmcp's tests need, from Debian's
# packages, the npm registry and the Go module proxy only. It is idempotent
# and returns in about a second when everything is already in place.
#
#   apt:  the real network software the tests drive (see APT_PACKAGES)
#   npm:  Node 22 (the `node` package, linux-x64 binary) into .tools/node22,
#         the MCP conformance suite, MCP Inspector, the TypeScript SDK 2
#         client (@modelcontextprotocol/client) and axe-core (the console's
#         accessibility check), pinned by
#         scripts/npm/package-lock.json, into .tools/mcp
#   go:   go mod download; staticcheck (honnef.co/go/tools, its version
#         pinned below) into .tools/bin
#
# Source it or run it; afterwards put "$(scripts/install-deps.sh --print-path)"
# (or .tools/node22/node_modules/.bin) first on PATH to use Node 22.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$root/.tools"
node_version=22.23.3
staticcheck_version=0.8.2
node_bin="$tools/node22/node_modules/.bin"

if [ "${1:-}" = "--print-path" ]; then
	echo "$node_bin"
	exit 0
fi

log() { printf 'install-deps: %s\n' "$*" >&2; }

# ca-certificates: HTTPS to the npm registry and the Go module proxy;
# procps: sysctl, which the diag lab test runs in its namespaces.
# tcpdump: reads the simulator's pcap captures back; runs linux:// captures.
APT_PACKAGES=(
	ca-certificates procps
	iproute2 iputils-ping traceroute iputils-tracepath bind9-dnsutils mtr-tiny
	unbound nftables frr rsyslog rsyslog-openssl bsdextrautils openssh-server snmpd snmp lldpd tcpdump
	jc hyperfine chromium
	netconfd
)

install_apt() {
	local missing=() p
	for p in "${APT_PACKAGES[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
			missing+=("$p")
		fi
	done
	# install_node22 needs npm: Debian's when none is on PATH (a NodeSource
	# nodejs package brings its own and conflicts with Debian's npm).
	if ! command -v npm >/dev/null; then
		missing+=(npm)
	fi
	if [ ${#missing[@]} -eq 0 ]; then
		return
	fi
	if [ "$(id -u)" -ne 0 ]; then
		log "not root: cannot apt-get install ${missing[*]}; tests that need them will skip"
		return
	fi
	log "apt-get install ${missing[*]}"
	# Packages such as frr, snmpd and lldpd start daemons from their
	# maintainer scripts; the tests start their own instances, in network
	# namespaces, so keep the packaged ones from starting if nothing else does.
	local made_policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		made_policy=1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	if [ -n "$made_policy" ]; then
		rm -f /usr/sbin/policy-rc.d
	fi
}

install_node22() {
	if [ -x "$node_bin/node" ] && [ "$("$node_bin/node" --version 2>/dev/null)" = "v$node_version" ]; then
		return
	fi
	if ! command -v npm >/dev/null; then
		log "npm is not installed (apt-get install npm, as root): cannot install Node $node_version"
		exit 1
	fi
	log "npm install node@$node_version into .tools/node22"
	rm -rf "$tools/node22"
	mkdir -p "$tools/node22"
	npm install --no-save --no-audit --no-fund --loglevel=error \
		--prefix "$tools/node22" "node@$node_version" >/dev/null
	if [ "$("$node_bin/node" --version 2>/dev/null)" != "v$node_version" ]; then
		log "node@$node_version did not install a working binary at $node_bin/node"
		exit 1
	fi
}

install_npm_tools() {
	local dir="$tools/mcp" lock="$root/scripts/npm/package-lock.json" want have=""
	want=$(sha256sum "$root/scripts/npm/package.json" "$lock" | sha256sum | cut -d' ' -f1)
	[ -f "$dir/.installed" ] && have=$(cat "$dir/.installed")
	if [ "$want" = "$have" ] && [ -x "$dir/node_modules/.bin/conformance" ] && [ -x "$dir/node_modules/.bin/mcp-inspector" ] &&
		[ -f "$dir/node_modules/@modelcontextprotocol/client/dist/index.mjs" ] && [ -f "$dir/node_modules/axe-core/axe.min.js" ]; then
		return
	fi
	log "npm ci: MCP conformance suite, MCP Inspector, the TypeScript client and axe-core into .tools/mcp"
	mkdir -p "$dir"
	cp "$root/scripts/npm/package.json" "$lock" "$dir/"
	(cd "$dir" && PATH="$node_bin:$PATH" npm ci --no-audit --no-fund --loglevel=error >/dev/null)
	echo "$want" >"$dir/.installed"
}

install_go_modules() {
	(cd "$root" && go mod download)
}

# staticcheck from the Go module proxy, built into .tools/bin. The version
# is pinned: a new release brings new checks, which land by a change here.
install_staticcheck() {
	local bin="$tools/bin/staticcheck"
	if [ -x "$bin" ] && "$bin" -version 2>/dev/null | grep -qF "($staticcheck_version)"; then
		return
	fi
	log "go install honnef.co/go/tools/cmd/staticcheck@v$staticcheck_version into .tools/bin"
	mkdir -p "$tools/bin"
	GOBIN="$tools/bin" go install "honnef.co/go/tools/cmd/staticcheck@v$staticcheck_version"
}

install_apt
install_node22
install_npm_tools
install_go_modules
install_staticcheck
