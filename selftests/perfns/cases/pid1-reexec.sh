# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/pid1-reexec.sh -
# a container's pid 1 re-execs into a nested namespace.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

# The container's pid 1 (PC) re-execs into a nested unshare -U; another
# process of the container (QC) stays in the container's namespace.
spawn unshare --user --map-root-user -- sh -c \
	'sleep 1202 & exec unshare --user --map-root-user -- sleep 1201'
PC=$SPAWNED
QC=$(pid_of '^sleep 1202$')
CID=$(ns_id $QC) NID=$(ns_id $PC)
ok_if "the container's pid 1 is in a namespace nested in the container's" \
	eval '[ "$CID" != "$NID" ] && [ "$CID" != "$INIT" ]'
tcase "set --pid of the re-exec'ed pid 1 raises the container, and says so" 0 \
	"^level 3 set on user namespace $CID, the container of pid $PC: directly below yours, pid $PC's own $NID is nested 2 levels below yours
$(levels "3 \\(was $H\\)" "3 \\(was none\\)" none)\$" \
	'' "$P" set 3 --pid $PC
tcase "... the rest of the container is at 3" 0 '^3$' '' "$P" get --pid $QC
tcase "... and so is the nested namespace, which follows it" 0 \
	"^$(levels 3 none none)\$" '' "$P" get -v --pid $PC
tcase "... which cannot lower itself" 1 '' 'is at 3' \
	nsenter --target $PC --user -- "$P" set 2

spawn unshare --user --map-root-user -- sh -c \
	'sleep 1204 & exec unshare --user --map-root-user -- sleep 1203'
PX=$SPAWNED
QX=$(pid_of '^sleep 1204$')
tcase "set --exact raises only the nested namespace" 0 \
	"^level 3 set on user namespace $(ns_id $PX), pid $PX's own, nested below yours \\(--exact\\)
$(levels "3 \\(was $H\\)" "3 \\(was none\\)" none)\$" \
	'' "$P" set 3 --pid $PX --exact
tcase "... and leaves the container at the host's level" 0 "^$H\$" '' \
	"$P" get --pid $QX

spawn unshare --user --map-root-user -- sh -c \
	'sleep 1206 & exec unshare --user --map-root-user -- sleep 1205'
PH=$SPAWNED
QH=$(pid_of '^sleep 1206$')
tcasein "oci-hook on a re-exec'ed pid 1 raises the container, and says so" \
	"$(state $PH reexec)" 0 '' \
	"^perfns: container reexec: level 3 set on user namespace $(ns_id $QH): directly below the hook's \\($INIT\\), with the container's process \\(pid $PH\\) nested 2 levels below the hook's in $(ns_id $PH)\$" \
	"$P" oci-hook --level 3
tcase "... the rest of the container is at 3" 0 '^3$' '' "$P" get --pid $QH
tcasein "oci-hook with the pid of a nested namespace without a process above" \
	"$(state $T2 nested)" 0 '' \
	"^perfns: container nested: level 3 set on user namespace [0-9]+: directly below the hook's \\($INIT\\), with the container's process \\(pid $T2\\) nested 2 levels below the hook's in $T2ID\$" \
	"$P" oci-hook --level 3
tcase "... its container, which has no process, is at 3" 0 '*' '' \
	"$P" tree --json
ok_if "... (tree)" json_ok "
assert by_id(by_pid($T2)['parent'])['level'] == 3
"
