# kernel.perf_event_paranoid per user namespace — the front door.
#
#   make demo      build what is missing, boot the patched kernel, show the feature
#   make check     every test; the last line is "N passed, M failed"
#   make clean     remove what was built under build/: objects, images,
#                  programs, logs (the extracted kernel trees and ccache stay)
#
# See README.md for the rest.

SHELL := /bin/bash
TOP   := $(CURDIR)
BUILD := $(TOP)/build

.PHONY: all deps kernel baseline-kernel debug-kernel export-patches \
	series-check selftests tools install demo demo-intro check check-debug bench \
	check-matrix check-mainline check-kcsan admin-guide bench-lookups soak \
	soak-control runtimes-native check-runtimes-native deb check-system \
	clean help

all: kernel selftests tools

help:
	@sed -n '2,9p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@vm/deps

# The kernels. vm/kernel/kernel-tree decides what is stale (patches, config
# fragments) and rebuilds incrementally; make only orders the steps.
kernel: deps
	@vm/kernel/kernel-tree build patched

baseline-kernel: deps
	@vm/kernel/kernel-tree build baseline

debug-kernel: deps
	@vm/kernel/kernel-tree build debug

# A Debian kernel package of the series built with Debian's own config
# for cloud-amd64 (vm/kernel/deb/cloud-amd64.diffconfig: every change);
# make deb LSMOD=FILE: trimmed to the modules in FILE (lsmod's output).
# Niced: a cold full build takes about 2.5 hours on 2 cores, a trimmed one
# 75-80 min (README.md). Not part of make check.
DEB_FLAVOUR ?= cloud-amd64
deb: deps
	@NICE=$${NICE:-19} vm/kernel/kernel-tree deb $(DEB_FLAVOUR) $(LSMOD)

# The package installed and tested in a Debian 12 system in QEMU, against
# Debian's stock kernel of the same version (vm/system/check-system).
check-system: deps tools selftests
	@vm/system/check-system

export-patches:
	@vm/kernel/kernel-tree export

series-check: deps
	@vm/check/series-check

selftests: deps
	@$(MAKE) -s -C selftests O=$(BUILD)/selftests

tools: deps
	@$(MAKE) -s -C tools O=$(BUILD)

install: tools
	@$(MAKE) -s -C tools O=$(BUILD) install

demo: demo-intro deps kernel tools
	@vm/demo/demo

check: deps
	@vm/check/check-all

# What make demo is about to do, first (prerequisites are made in order).
demo-intro:
	@vm/demo/demo --intro

check-debug: deps
	@vm/check/check-all --debug

# Rewrite the admin guide's transcripts from a real run in the guest
# (make check compares them: vm/check/admin-guide-update --check).
admin-guide: deps kernel baseline-kernel tools
	@vm/check/admin-guide-update

# The series' mainline form (Debian's tree with the series' Debian-only
# revert of its level 3, then every patch not marked Debian-only) built,
# booted and tested; a host at 3 refuses nobody there, as on mainline, and
# the Debian form refuses, as Debian's kernel: vm/check/mainline. About 25
# min cold, so it is part of check-matrix, not of check.
check-mainline: deps selftests
	@vm/check/mainline

# The series built with W=1 and sparse patch by patch, and in other
# configurations (vm/check/matrix), then check-mainline; one total.
check-matrix: deps selftests
	@vm/check/check-all --matrix

# The stress under KCSAN, and a race planted in the series it must catch.
check-kcsan: deps
	@vm/check/kcsan

# The cost against the unpatched kernel, and the feature's own against the
# kernel with the series' get_links() patches only (docs/benchmarks.md);
# fails on a missed or unmeasured target.
bench: deps
	@vm/bench/bench

# A fuzzing (trinity) and stress (stress-ng) soak of a locked tenant on the
# debug kernel, with figures (vm/soak/soak); make soak SOAK_MINUTES=60 for
# the long one.
SOAK_MINUTES ?= 10
soak: deps
	@vm/soak/soak --minutes $(SOAK_MINUTES)

# The soak's counter on the same debug configuration without the series:
# nothing locks the tenants, and the counter must count what they open.
soak-control: deps
	@vm/soak/soak --control --minutes $(SOAK_MINUTES)

# What looking the level up once in perf_event_open() saves
# (docs/benchmarks.md)
bench-lookups: deps
	@vm/bench/bench variant twolookups kernel

# crun and podman from Debian's source packages with the patches that let
# them set user.* sysctls natively (kernel-patches/runtimes/), and the
# guest suite that runs them against Debian's unpatched ones
# (selftests/runtimes/native) on KERNEL (default build/bzImage, made by make
# kernel). Not part of check: see tools/runtimes/README.md for the times.
KERNEL ?= $(BUILD)/bzImage
runtimes-native: deps
	@tools/runtimes/build

check-runtimes-native: runtimes-native tools \
		$(if $(filter $(BUILD)/bzImage,$(KERNEL)),kernel)
	@mkdir -p $(BUILD)/logs; set -o pipefail; \
	VM_CONSOLE=$(BUILD)/vm-console-native.log vm/guest/run \
		--kernel $(KERNEL) --timeout 1500 -- selftests/runtimes/native | \
		tee $(BUILD)/logs/runtimes-native.log

# What the tree built under build/: every kernel's object directory and
# image, the programs, logs, packages, disk images and results. The
# extracted kernel trees (build/linux, build/linux-*) and what records their
# state stay, and so does ccache (~/.cache/ccache): the next build is an
# incremental one.
clean:
	@vm/kernel/kernel-tree clean
	@find $(BUILD) -mindepth 1 -maxdepth 1 ! -name linux ! -name 'linux-*' \
		! -name series-stamp ! -name source-version ! -name cover.txt \
		-exec rm -rf {} +
