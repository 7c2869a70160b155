# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/set.sh - perfns set.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

tcase "set raises a running namespace, says which and what it was" 0 \
	"^level 3 set on user namespace $(ns_id $A), pid $A's own, directly below yours
$(levels "3 \\(was $H\\)" "3 \\(was none\\)" none)\$" \
	'' "$P" set 3 --pid $A
tcase "... get --pid sees the new level" 0 '^3$' '' "$P" get --pid $A
tcase "... get --verbose its own level" 0 "^$(levels 3 3 none)\$" '' \
	"$P" get -v --pid $A
tcase "... the namespace itself sees it" 0 '^3$' '' \
	nsenter --target $A --user -- cat $FILE
tcase "... in its own user.perf_event_paranoid too" 0 '^3$' '' \
	nsenter --target $A --user -- cat $USER_FILE
tcase "... and the initial namespace is unchanged" 0 "^$H\$" '' cat $FILE
tcase "set to the level in force is accepted, nothing changed" 0 \
	"^level 3 set on user namespace [0-9]+, .*
$(levels 3 3 none)\$" '' "$P" set 3 --pid $A
tcase "set refuses to lower a namespace" 1 '' \
	"^perfns: user namespace of pid $A is at 3; a namespace's level can only be raised\$" \
	"$P" set 2 --pid $A
tcase "set -1 (a negative LEVEL, not an option) is refused the same way" 1 '' \
	"user namespace of pid $A is at 3; a namespace's level can only be raised" \
	"$P" set --pid $A -1
tcase "... and the level stays 3" 0 '^3$' '' "$P" get --pid $A
tcase "set --pid of a dead process" 1 '' '^perfns: no such process: 999999$' \
	"$P" set 3 --pid 999999

spawn unshare --user --map-root-user sh -c 'unshare --user sleep 1003 & exec sleep 1002'
B1=$SPAWNED
B2=$(pid_of '^sleep 1003$')
tcase "set on a parent namespace ..." 0 '^level 3 set on' '' \
	"$P" set 3 --pid $B1
tcase "... raises its child's effective level" 0 '^3$' '' "$P" get --pid $B2
tcase "... which has no own level: it follows" 0 "^$(levels 3 none none)\$" '' \
	"$P" get --verbose --pid $B2
tcase "... and the child cannot go below it" 1 '' \
	"^perfns: user namespace $(ns_id $B1) \\(the container of pid $B2\\) is at 3; a namespace's level can only be raised\$" \
	"$P" set 2 --pid $B2

# A namespace that never set its level follows the host both ways; one
# that set it, even to the level it was at, is locked there going down.
spawn unshare --user --map-root-user sleep 1011
FO=$SPAWNED
spawn unshare --user --map-root-user sleep 1012
LK=$SPAWNED
tcase "set to the level in force locks a namespace there" 0 \
	"^level $H set on user namespace $(ns_id $LK), .*
$(levels $H "$H \\(was none\\)" none)\$" '' "$P" set "$H" --pid $LK
tcase "set in the initial namespace takes a lower level" 0 \
	"^level 1 set on your user namespace $INIT \\(the initial one\\)\$" '' \
	"$P" set 1
tcase "... get reads it" 0 '^1$' '' "$P" get
tcase "... a namespace with no own level follows the host down" 0 '^1$' '' \
	"$P" get --pid $FO
tcase "... and so does its sysctl inside" 0 '^1$' '' \
	nsenter --target $FO --user -- cat $USER_FILE
tcase "... a raised one keeps its own level" 0 '^3$' '' "$P" get --pid $A
tcase "... one locked at the host's level stays there" 0 "^$H\$" '' \
	"$P" get --pid $LK
tcase "set in the initial namespace raises the host to 3" 0 '^level 3 set' '' \
	"$P" set 3
tcase "... a namespace with no own level follows the host up" 0 '^3$' '' \
	"$P" get --pid $FO
tcase "... and so does a locked one" 0 '^3$' '' "$P" get --pid $LK
tcase "... which keeps its own level" 0 "^$(levels 3 $H none)\$" '' \
	"$P" get --verbose --pid $LK
tcase "set in the initial namespace restores the level" 0 "^level $H set" '' \
	"$P" set "$H"
tcase "... cat agrees" 0 "^$H\$" '' cat $FILE
tcase "... the following namespace is back at it" 0 "^$H\$" '' \
	"$P" get --pid $FO

tcase "set as an ordinary user in the initial namespace" 1 '' \
	'^perfns: need uid 0 in the initial user namespace to set its level \(cannot open /proc/sys/kernel/perf_event_paranoid for writing: Permission denied\)$' \
	"${as_user[@]}" "$P" set 3
tcase "set --pid as an ordinary user on root's namespace" 1 '' \
	"^perfns: need CAP_SYS_ADMIN over the user namespace of pid $A \\(getting it from a pidfd: Permission denied\\)\$" \
	"${as_user[@]}" "$P" set 3 --pid $A
tcase "get --pid as an ordinary user on root's namespace" 1 '' \
	"need CAP_SYS_ADMIN over the user namespace of pid $A" \
	"${as_user[@]}" "$P" get --pid $A

spawn "${as_user[@]}" unshare --user --map-root-user sleep 1004
R=$SPAWNED
tcase "an ordinary user raises a namespace it owns" 0 "^level 3 set on .*
$(levels "3 \\(was $H\\)" "3 \\(was none\\)" none)\$" '' \
	"${as_user[@]}" "$P" set 3 --pid $R
tcase "... and reads it back" 0 '^3$' '' "${as_user[@]}" "$P" get --pid $R
tcase "... and cannot lower it" 1 '' "user namespace of pid $R is at 3" \
	"${as_user[@]}" "$P" set 2 --pid $R

# The host's level is kernel.perf_event_paranoid as without the series: uid
# 0 writes it, with or without CAP_SYS_ADMIN.
tcase "root without CAP_SYS_ADMIN: set in the initial namespace (uid 0 may)" 0 \
	"^level $H set on your user namespace $INIT \\(the initial one\\)\$" '' \
	"${no_admin[@]}" "$P" set "$H"
tcase "root without CAP_SYS_ADMIN: get --pid on the user's namespace" 1 '' \
	"^perfns: need CAP_SYS_ADMIN over the user namespace of pid $R \\(setns: Operation not permitted; you have no CAP_SYS_ADMIN and do not own it\\)\$" \
	"${no_admin[@]}" "$P" get --pid $R
tcase "root without CAP_SYS_ADMIN: set --pid on the user's namespace" 1 '' \
	"need CAP_SYS_ADMIN over the user namespace of pid $R \\(setns" \
	"${no_admin[@]}" "$P" set 3 --pid $R
tcase "root without CAP_SYS_ADMIN: a namespace uid 0 owns is still root's" 0 \
	'^3$' '' "${no_admin[@]}" "$P" get --pid $A
