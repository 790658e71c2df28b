# rrmcp — see README.md. On a fresh Debian/Ubuntu machine `make demo` and
# `make test` install what they need (apt-get; sudo when not root).

SHELL     := /bin/bash
GO        ?= go
BIN       := bin
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT       := DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get
FUZZTIME  ?= 3s
FUZZMIN   ?= 2s
QEMU_REVERSE := TestQEMUReverse|TestQEMUHistory
TESTFLAGS ?=

.PHONY: all deps build testprogs kernel test fuzz bench demo lint clean

all: build

# deps installs only what is missing, quietly; a second run does nothing.
deps:
	@missing=""; \
	for t in gcc:gcc g++:g++ make:make gdb:gdb gdbserver:gdbserver rr:rr objdump:binutils addr2line:binutils \
	         qemu-img:qemu-utils node:nodejs npm:npm; do \
	  command -v $${t%%:*} >/dev/null 2>&1 || missing="$$missing $${t##*:}"; \
	done; \
	[ -e /usr/lib/debug/.build-id ] || missing="$$missing libc6-dbg"; \
	[ -e /usr/lib32/crt1.o ] || missing="$$missing gcc-multilib"; \
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
	if [ ! -x node_modules/.bin/mcp-inspector ]; then \
	  echo "deps: installing the MCP Inspector CLI 2.12.0 (npm, into ./node_modules) for the MCP smoke test"; \
	  npm install --no-save --no-audit --no-fund --silent @modelcontextprotocol/inspector@2.12.0 >/dev/null || exit 1; \
	fi

build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

testprogs:
	@$(MAKE) -s -C testprogs

# test: vet + format check, every package's tests (peers are real: gdbserver,
# QEMU, GDB; rr tests skip with the probe's reason unless RRMCP_REQUIRE_RR=1),
# then each fuzz target for $(FUZZTIME). Skipped tests are listed at the end.
test: deps testprogs
	@$(MAKE) -s -C bench/large sqlite
	@echo "== gofmt / go vet"
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above are not formatted"; exit 1; }
	$(GO) vet ./...
	@echo "== go test (full output in .test.log)"
	@$(GO) build -o $(BIN)/testreport ./internal/testreport
	@# QEMU's reverse-execution deadlock is load-sensitive: its tests run alone, after the rest.
	@set -o pipefail; export CI=$${CI:-true}; \
	{ $(GO) test -json -count=1 -timeout 15m -skip '$(QEMU_REVERSE)' $(TESTFLAGS) ./... 2>&1; \
	  $(GO) test -json -count=1 -timeout 5m -run '$(QEMU_REVERSE)' $(TESTFLAGS) ./rsp/ 2>&1; } | $(BIN)/testreport -log .test.log; \
	rc=$$?; grep -h '^gdb-differential:' .test.log || true; \
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
	    out=$$($(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN) $$pkg 2>&1) || { echo FAIL; echo "$$out" | tail -40; exit 1; }; \
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
	rm -rf $(BIN) testprogs/build bench/large/build .test.log
