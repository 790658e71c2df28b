#!/bin/sh
# gotoolchain.sh prints the go command line that builds this module: `go`
# when the go on PATH is at least go.mod's version, else an older go (>= 1.21)
# with GOTOOLCHAIN=go<go.mod version>, which makes the go command fetch that
# toolchain from the Go module proxy (checked against sum.golang.org) into the
# module cache. `gotoolchain.sh install` first installs a bootstrap go with
# apt-get when there is none: golang-1.23-go from bookworm-backports on
# Debian 12, golang-go elsewhere. Used by the Makefile (GO, make gotoolchain).
set -e
cd "$(dirname "$0")/.."
want=$(sed -n 's/^go \([0-9.]*\)$/\1/p' go.mod)

# newer A B: A >= B as Go versions.
atleast() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]; }

find_go() {
	for g in "$(command -v go 2>/dev/null)" /usr/local/go/bin/go /usr/lib/go-1.2[0-9]/bin/go /usr/lib/go/bin/go; do
		[ -n "$g" ] && [ -x "$g" ] || continue
		v=$(GOTOOLCHAIN=local "$g" env GOVERSION 2>/dev/null | sed 's/^go//') || continue
		atleast "$v" 1.21 || continue
		echo "$g $v"
		return 0
	done
	return 1
}

if [ "$1" = install ] && ! find_go >/dev/null; then
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	APT="env DEBIAN_FRONTEND=noninteractive $SUDO apt-get"
	if [ -f /etc/debian_version ] && grep -q '^12' /etc/debian_version; then
		echo "gotoolchain: installing golang-1.23-go from bookworm-backports to bootstrap go$want" >&2
		if ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then
			printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
				$SUDO tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null
		fi
		$APT update -qq >/dev/null
		$APT install -y -qq --no-install-recommends -t bookworm-backports golang-1.23-go ca-certificates >/dev/null
	else
		echo "gotoolchain: installing golang-go to bootstrap go$want" >&2
		$APT update -qq >/dev/null
		$APT install -y -qq --no-install-recommends golang-go ca-certificates >/dev/null
	fi
fi

if ! found=$(find_go); then
	[ "$1" = install ] && { echo "gotoolchain: no go >= 1.21 found after installing one" >&2; exit 1; }
	echo go # let the caller's error name the missing command
	exit 0
fi
g=${found% *}
v=${found#* }
if [ "$g" = "$(command -v go 2>/dev/null)" ]; then g=go; fi
if atleast "$v" "$want"; then
	cmd=$g
else
	cmd="env GOTOOLCHAIN=go$want $g"
fi
if [ "$1" = install ]; then
	[ "$cmd" = "$g" ] && exit 0
	# Fetch the toolchain now, once, so the first build's output is not
	# interleaved with the download.
	$cmd version >&2
else
	echo "$cmd"
fi
