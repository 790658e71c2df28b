# rrmcp — see README.md. On a fresh Debian/Ubuntu machine `make demo` and
# `make test` install what they need (apt-get; sudo when not root).

SHELL     := /bin/bash
# GO is go.mod's toolchain: the go on PATH when new enough, else an older go
# with GOTOOLCHAIN=go<go.mod version> (make gotoolchain installs one if none).
GO        ?= $(shell scripts/gotoolchain.sh)
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
DIST      := dist
BIN       := bin
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT       := DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get
FUZZTIME  ?= 3s
FUZZMIN   ?= 2s
QEMU_REVERSE := TestQEMUReverse|TestQEMUHistory
TESTFLAGS ?=
CLAUDE_CODE := 2.1.197

.PHONY: all gotoolchain deps build dist docs testprogs kernel test fuzz bench demo lint clean

all: build

# gotoolchain installs a bootstrap go with apt-get when there is none and
# fetches go.mod's toolchain through it (scripts/gotoolchain.sh).
gotoolchain:
	@scripts/gotoolchain.sh install

# deps installs only what is missing, quietly; a second run does nothing.
deps: gotoolchain
	@missing=""; \
	for t in gcc:gcc g++:g++ clang:clang cmake:cmake make:make gdb:gdb gdbserver:gdbserver rr:rr objdump:binutils addr2line:binutils \
	         qemu-img:qemu-utils node:nodejs npm:npm rustc:rustc; do \
	  command -v $${t%%:*} >/dev/null 2>&1 || missing="$$missing $${t##*:}"; \
	done; \
	[ -e /usr/lib/debug/.build-id ] || missing="$$missing libc6-dbg"; \
	[ -e /usr/lib32/crt1.o ] || missing="$$missing gcc-multilib"; \
	ls /usr/lib/gcc/x86_64-linux-gnu/*/32/libstdc++.so >/dev/null 2>&1 || missing="$$missing g++-multilib"; \
	[ -e /usr/include/nlohmann/json.hpp ] || missing="$$missing nlohmann-json3-dev"; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  $(APT) update -qq >/dev/null && $(APT) install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	fi; \
	if ! qemu-system-i386 --version 2>/dev/null | grep -Eq 'version ([1-9][0-9])\.'; then \
	  echo "deps: installing QEMU >= 10 from bookworm-backports (7.2 deadlocks in reverse execution)"; \
	  if [ -f /etc/debian_version ] && grep -q '^12' /etc/debian_version && \
	     ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then \
	    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
	      | $(SUDO) tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null; \
	    $(APT) update -qq >/dev/null; \
	    $(APT) install -y -qq --no-install-recommends -t bookworm-backports qemu-system-x86 qemu-utils >/dev/null || exit 1; \
	  else \
	    $(APT) install -y -qq --no-install-recommends qemu-system-x86 qemu-utils >/dev/null || exit 1; \
	  fi; \
	fi; \
	if ! qemu-i386 --version 2>/dev/null | grep -Eq 'version ([1-9][0-9])\.'; then \
	  echo "deps: installing qemu-user >= 10 (qemu-i386: the peer for -m32 programs where the kernel cannot run them)"; \
	  if [ -f /etc/debian_version ] && grep -q '^12' /etc/debian_version; then \
	    $(APT) install -y -qq --no-install-recommends -t bookworm-backports qemu-user >/dev/null || exit 1; \
	  else \
	    $(APT) install -y -qq --no-install-recommends qemu-user >/dev/null || exit 1; \
	  fi; \
	fi; \
	if [ ! -x node_modules/.bin/mcp-inspector ] || [ ! -x node_modules/.bin/claude ]; then \
	  echo "deps: installing the MCP Inspector CLI 2.12.0 and the Claude Code CLI $(CLAUDE_CODE) (npm, into ./node_modules) for the MCP and plugin tests"; \
	  npm install --no-save --no-audit --no-fund --silent @modelcontextprotocol/inspector@2.12.0 @anthropic-ai/claude-code@$(CLAUDE_CODE) >/dev/null || exit 1; \
	fi

build: gotoolchain
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

# dist: a static, versioned prebuilt rrmcp per release platform, with checksums:
# dist/rrmcp-$(VERSION)-linux-{amd64,arm64}.tar.gz (make dist VERSION=v0.2.0).
DIST_ARCHES := amd64 arm64
dist: gotoolchain
	@rm -rf $(DIST) && mkdir -p $(DIST)
	@set -e; for a in $(DIST_ARCHES); do \
	  d=$(DIST)/rrmcp-$(VERSION)-linux-$$a; mkdir -p $$d; \
	  CGO_ENABLED=0 GOOS=linux GOARCH=$$a $(GO) build -trimpath \
	    -ldflags "-s -w -X main.release=$(VERSION)" -o $$d/rrmcp ./cmd/rrmcp; \
	  cp README.md $$d/; tar -C $(DIST) -czf $$d.tar.gz $$(basename $$d); rm -rf $$d; \
	  echo "dist: $$d.tar.gz"; \
	done; cd $(DIST) && sha256sum *.tar.gz > SHA256SUMS

# docs regenerates docs/TOOLS.md from the tool schemas the server registers
# (TestToolReference fails when the committed file is stale).
docs: gotoolchain
	$(GO) run ./cmd/rrmcp -tool-reference > docs/TOOLS.md.tmp && mv docs/TOOLS.md.tmp docs/TOOLS.md

testprogs: gotoolchain
	@$(MAKE) -s -C testprogs GO="$(GO)"

# test: vet + format check, every package's tests (peers are real: gdbserver,
# QEMU, GDB; rr tests skip with the probe's reason unless RRMCP_REQUIRE_RR=1),
# then each fuzz target for $(FUZZTIME). Skipped tests are listed at the end.
test: deps build testprogs
	@$(MAKE) -s -C bench/large sqlite
	@$(MAKE) -s -C internal/gdbdiff/realworld
	@echo "== gofmt / go vet"
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above are not formatted"; exit 1; }
	$(GO) vet ./...
	@echo "== go test (full output in .test.log)"
	@$(GO) build -o $(BIN)/testreport ./internal/testreport
	@# QEMU's reverse-execution deadlock is load-sensitive: its tests run alone, after the rest.
	@set -o pipefail; export CI=$${CI:-true}; \
	{ $(GO) test -json -count=1 -timeout 15m -skip '$(QEMU_REVERSE)' $(TESTFLAGS) ./... 2>&1; \
	  $(GO) test -json -count=1 -p 1 -timeout 10m -run '$(QEMU_REVERSE)' $(TESTFLAGS) ./rsp/ ./internal/session/ 2>&1; } | $(BIN)/testreport -log .test.log; \
	rc=$$?; grep -h '^gdb-differential:\|^real-world-differential:' .test.log || true; \
	awk '/^hostile-faults:/ {fi+=$$2; fs+=$$3; f=1} /^hostile-badinput:/ {bt+=$$2; bc+=$$3; b=1} \
	     /^hostile-cycles:/ {cy+=$$2; lo+=$$3; c=1} \
	     END {if (f||b||c) printf "faults: %d injected, %d survived; bad inputs: %d tried, %d clear errors; cycles: %d, leftovers %d\n", fi, fs, bt, bc, cy, lo}' .test.log; \
	exit $$rc
	@$(MAKE) -s fuzz FUZZTIME=$(FUZZTIME)

# fuzz runs every Fuzz target in the module for $(FUZZTIME) (make fuzz FUZZTIME=2m).
fuzz:
	@echo "== fuzz ($(FUZZTIME) per target)"
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
	  pkg=./$$(dirname $$f); \
	  for fn in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$f | cut -d' ' -f2); do \
	    printf '%-28s %s ... ' $$fn $$pkg; \
	    for try in 1 2; do \
	      out=$$($(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN) $$pkg 2>&1) && break; \
	      if [ $$try = 1 ] && echo "$$out" | grep -q '^    context deadline exceeded$$' && ! echo "$$out" | grep -q 'Failing input written\|panic:\|_test.go:[0-9]'; then \
	        printf 'go fuzz deadline race (golang/go#75804: no input failed), again ... '; continue; fi; \
	      echo FAIL; echo "$$out" | tail -40; exit 1; \
	    done; \
	    echo ok; \
	  done; \
	done

bench: deps build testprogs
	@if [ -d bench/cmd/rrbench ]; then \
	  $(MAKE) -s -j2 -C bench/large && $(GO) run ./bench/cmd/rrbench -rrmcp $(BIN)/rrmcp -out bench; \
	else echo "bench: the benchmark driver (issue 5) is not built yet"; fi

demo: deps build testprogs
	@if [ -x $(BIN)/rrmcp-demo ]; then $(BIN)/rrmcp-demo -server $(BIN)/rrmcp; \
	else echo "demo: the scripted MCP session (issue 4) is not built yet"; fi

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

clean:
	rm -rf $(BIN) $(DIST) testprogs/build bench/large/build internal/gdbdiff/realworld/build .test.log
