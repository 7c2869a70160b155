# kernel.perf_event_paranoid per user namespace — the front door.
#
#   make demo      build what is missing, boot the patched kernel, show the feature
#   make check     every test; the last line is "N passed, M failed"
#
# See README.md for the rest.

SHELL := /bin/bash
TOP   := $(CURDIR)
BUILD := $(TOP)/build

.PHONY: all deps kernel baseline-kernel debug-kernel export-patches \
	series-check selftests tools install demo demo-intro check check-debug bench \
	check-matrix check-mainline check-kcsan admin-guide bench-lookups soak \
	deb check-system clean help

all: kernel selftests tools

help:
	@sed -n '2,7p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@vm/deps

# The kernels. vm/kernel/kernel decides what is stale (patches, config fragments)
# and rebuilds incrementally; make only orders the steps.
kernel: deps
	@vm/kernel/kernel build patched

baseline-kernel: deps
	@vm/kernel/kernel build baseline

debug-kernel: deps
	@vm/kernel/kernel build debug

# A Debian kernel package of the series built with Debian's own config
# for cloud-amd64 (vm/kernel/deb/cloud-amd64.diffconfig: every change);
# make deb LSMOD=FILE: trimmed to the modules in FILE (lsmod's output).
# Niced: a cold full build takes hours (README.md). Not part of make check.
DEB_FLAVOUR ?= cloud-amd64
deb: deps
	@NICE=$${NICE:-19} vm/kernel/kernel deb $(DEB_FLAVOUR) $(LSMOD)

# The package installed and tested in a Debian 12 system in QEMU, against
# Debian's stock kernel of the same version (vm/system/check-system).
check-system: deps tools selftests
	@vm/system/check-system

export-patches:
	@vm/kernel/kernel export

series-check: deps
	@vm/check/series-check

selftests: deps
	@$(MAKE) -s -C selftests O=$(BUILD)/selftests

tools: deps
	@$(MAKE) -s -C tools O=$(BUILD)

install: tools
	@$(MAKE) -s -C tools O=$(BUILD) install

demo: demo-intro deps kernel tools
	@$(MAKE) -s -C selftests/runtimes O=$(BUILD)/selftests/runtimes
	@vm/demo/demo

check: deps
	@vm/check/check

# What make demo is about to do, first (prerequisites are made in order).
demo-intro:
	@vm/demo/demo --intro

check-debug: deps
	@vm/check/check --debug

# The series built with W=1 and sparse patch by patch, and in other
# configurations (see vm/check/matrix); and under KCSAN (vm/check/kcsan).
# Rewrite the admin guide's transcripts from a real run in the guest
# (make check compares them: docs/admin-guide-update --check).
admin-guide: deps kernel baseline-kernel tools
	@$(MAKE) -s -C selftests/runtimes O=$(BUILD)/selftests/runtimes
	@docs/admin-guide-update

# The series' mainline form (Debian's level 3 reverted, the 2016 patch and
# the series) built, booted and tested: vm/check/mainline. About 25 min cold,
# so it is part of check-matrix, not of check.
check-mainline: deps selftests
	@vm/check/mainline

check-matrix: deps selftests
	@mkdir -p build/logs; set -o pipefail; \
	vm/check/matrix | tee build/logs/check-matrix-configs.log; \
	vm/check/mainline | tee build/logs/check-matrix-mainline.log; \
	. vm/lib.sh; \
	read -r p1 f1 <<<"$$(count_line build/logs/check-matrix-configs.log)"; \
	read -r p2 f2 <<<"$$(count_line build/logs/check-matrix-mainline.log)"; \
	echo "check-matrix: $$((p1 + p2)) passed, $$((f1 + f2 + 0)) failed"; \
	[ "$${f1:-1}" = 0 ] && [ "$${f2:-1}" = 0 ]

check-kcsan: deps
	@vm/check/kcsan

bench: deps
	@vm/bench/bench

# A fuzzing (trinity) and stress (stress-ng) soak of a locked tenant on the
# debug kernel, with figures (vm/soak/soak); make soak SOAK_MINUTES=60 for
# the long one.
SOAK_MINUTES ?= 10
soak: deps
	@vm/soak/soak --minutes $(SOAK_MINUTES)

# What looking the level up once in perf_event_open() saves
# (docs/benchmarks.md)
bench-lookups: deps
	@vm/bench/bench variant twolookups kernel

clean:
	rm -rf $(BUILD)/selftests $(BUILD)/bin $(BUILD)/vm
