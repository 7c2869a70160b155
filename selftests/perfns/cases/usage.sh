# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/usage.sh -
# perfns's usage and help: bad arguments are said before anything is touched.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

tcase "perfns --help lists the commands" 0 \
	'get.*set.*run.*tree.*oci-hook' '' "$P" --help
tcase "perfns without a command is a usage error" 2 '' 'Usage: perfns' "$P"
tcase "an unknown command is a usage error" 2 '' "unknown command 'frob'" \
	"$P" frob
for c in get set run tree oci-hook; do
	tcase "perfns $c --help" 0 "^Usage: perfns $c.*Exit status" '' \
		"$P" $c --help
done
tcase "get: unknown option" 2 '' "get: unknown option '--frob'" \
	"$P" get --frob
tcase "get: unexpected argument" 2 '' "unexpected argument '3'" "$P" get 3
tcase "get: --pid needs an argument" 2 '' '--pid needs an argument' \
	"$P" get --pid
for bad in abc 0 -5 12x '' ' 1' 99999999999; do
	tcase "get: pid '$bad' is a usage error" 2 '' \
		"pid '$bad' is not a positive integer" "$P" get --pid "$bad"
done
tcase "set: no LEVEL" 2 '' 'set: no LEVEL given' "$P" set
for bad in 3x x '' ' 3' 3.0 +3 - 99999999999 0x3; do
	tcase "set: level '$bad' is a usage error" 2 '' \
		"level '$(qre "$bad")' is not an integer" "$P" set -- "$bad"
done
tcase "set: two levels" 2 '' "unexpected argument '4'" "$P" set 3 4
tcase "set: LEVEL is checked before the pid" 2 '' "level 'abc'" \
	"$P" set abc --pid 999999
tcase "set: the pid is checked before anything is touched" 2 '' \
	"pid 'x' is not" "$P" set 3 --pid x
tcase "run: no --level" 2 '' 'run: no --level given' "$P" run true
tcase "run: bad --level" 2 '' "level 'high' is not an integer" \
	"$P" run --level high true
tcase "run: --map-root-user and --map-current-user" 2 '' 'exclude each other' \
	"$P" run --level 3 --map-root-user --map-current-user true
tcase "run: unknown option" 2 '' "unknown option '--frob'" \
	"$P" run --frob --level 3 true
tcase "tree: unknown option" 2 '' "unknown option '--xml'" "$P" tree --xml
tcase "oci-hook: no --level" 2 '' 'no --level or --grant given' "$P" oci-hook
tcase "oci-hook: unexpected argument" 2 '' "unexpected argument 'x'" \
	"$P" oci-hook --level 3 x
for bad in 0 -1 x 3601 1.5 ''; do
	tcase "get: --timeout '$bad' is a usage error" 2 '' \
		"timeout '$bad' is not a whole number of seconds from 1 to 3600" \
		"$P" get --timeout "$bad"
done
tcase "set: --floor needs an integer" 2 '' \
	"^perfns set: floor 'abc' is not an integer" "$P" set --floor abc
tcase "set: --exact needs --pid" 2 '' '^perfns set: --exact needs --pid' \
	"$P" set 3 --exact
# A user namespace's level and the floor are -1 to 3: said before anything
# is looked up or touched (the pid does not exist).
NSRANGE="a user namespace's level is -1, 0, 1, 2 or 3 \\(any int only for the host's own\\)"
for bad in 4 -2 2147483647; do
	tcase "set $bad --pid: out of a namespace's range" 2 '' \
		"^perfns set: level $bad is out of range: $NSRANGE" \
		"$P" set "$bad" --pid 999999
	tcase "run --level $bad: out of a namespace's range" 2 '' \
		"^perfns run: level $bad is out of range: $NSRANGE" \
		"$P" run --level "$bad" -- true
	tcase "oci-hook --level $bad: out of a namespace's range" 2 '' \
		"^perfns oci-hook: level $bad is out of range" \
		"$P" oci-hook --level "$bad"
	tcase "grant $bad: out of a namespace's range" 2 '' \
		"^perfns grant: level $bad is out of range" \
		"$P" grant --pid 999999 -- "$bad"
done
for bad in 4 -2 -2147483648; do
	tcase "set --floor $bad: out of the floor's range" 2 '' \
		"^perfns set: floor $bad is out of range: -1 \\(no floor\\), 0, 1, 2 or 3" \
		"$P" set --floor "$bad"
done
tcase "get: --verbose and --floor exclude each other" 2 '' \
	"^perfns get: --verbose shows a namespace's levels and --floor the host's floor: give one" \
	"$P" get --verbose --floor
