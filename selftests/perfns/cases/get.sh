# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/get.sh - perfns get.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

tcase "get prints the initial namespace's level" 0 "^$H\$" '' "$P" get
tcase "get --pid of a process in our namespace" 0 "^$H\$" '' \
	"$P" get --pid $$
tcase "get --pid of a dead process" 1 '' '^perfns: no such process: 999999$' \
	"$P" get --pid 999999

spawn unshare --user --map-root-user sleep 1001
A=$SPAWNED
tcase "get --pid: a new namespace is at its parent's level" 0 "^$H\$" '' \
	"$P" get --pid $A
tcase "get --verbose: ... with no own level and no grant" 0 \
	"^$(levels $H none none)\$" '' "$P" get --verbose --pid $A
