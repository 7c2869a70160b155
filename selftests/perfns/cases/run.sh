# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/run.sh - perfns run.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

tcase "run --level 3 sets the new namespace" 0 '^3$' '' \
	"$P" run --level 3 -- cat $FILE
tcase "... the initial namespace is unchanged" 0 "^$H\$" '' cat $FILE
tcase "run --level 3: perf stat is refused inside (root)" '*' '' '*' \
	"$P" run --level 3 --map-root-user -- perf stat -e task-clock true
if [ "$RC" != 0 ] && [[ $ERR == *perf_event_paranoid* ]]; then
	pass "... perf stat failed because of perf_event_paranoid"
else
	fail "... perf stat failed because of perf_event_paranoid"
fi
tcase "run --level 3: perf stat is refused inside (ordinary user)" '*' '' '*' \
	"${as_user[@]}" "$P" run --level 3 -- perf stat -e task-clock true
ok_if "... with a non-zero exit status" [ "$RC" != 0 ]
tcase "run --level 2: perf stat works inside (control)" 0 '*' 'task-clock' \
	"${as_user[@]}" "$P" run --level 2 -- perf stat -e task-clock true
tcase "run below the level in force is refused" 1 '' \
	"^perfns: the new user namespace is at level $H already; a namespace's level can only be raised\$" \
	"$P" run --level 1 -- true
tcase "run --level at the host's: the namespace's own level" 0 \
	"^$(levels $H $H none)\$" '' "$P" run --level "$H" -r -- "$P" get -v
tcase "run exits with the command's status" 7 '' '' \
	"$P" run --level 3 -- sh -c 'exit 7'
tcase "run: a missing command" 1 '' \
	'^perfns: cannot run /nonexistent: No such file or directory$' \
	"$P" run --level 3 -- /nonexistent
tcasein "run without a command runs \$SHELL" "cat $FILE" 0 '^3$' '' \
	env SHELL=/bin/sh "$P" run --level 3
tcase "run without a map: the overflow uid inside" 0 '^65534$' '' \
	"$P" run --level 3 -- id -u
tcase "run --map-root-user as root" 0 \
	'^0 +0 +1 0 +0 +1 deny$' '' "$P" run --level 3 --map-root-user -- \
	sh -c 'echo $(cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups)'
tcase "run --map-root-user as an ordinary user" 0 \
	"^0 0 +$TEST_UID +1 deny\$" '' "${as_user[@]}" "$P" run --level 3 -r -- \
	sh -c 'echo $(id -u; cat /proc/self/uid_map /proc/self/setgroups)'
tcase "run --map-current-user as an ordinary user" 0 \
	"^$TEST_UID +$TEST_UID +$TEST_UID +1 deny\$" '' \
	"${as_user[@]}" "$P" run --level 3 --map-current-user -- \
	sh -c 'echo $(id -u; cat /proc/self/uid_map /proc/self/setgroups)'

# Inside a namespace made by run: the tool itself, from within.
tcase "inside run --level 3 -r: get" 0 '^3$' '' \
	"$P" run --level 3 -r -- "$P" get
tcase "inside run --level 3 -r: set 2 is refused" 1 '' \
	"^perfns: your user namespace is at 3; a namespace's level can only be raised\$" \
	"$P" run --level 3 -r -- "$P" set 2
tcase "inside run --level 3 -r: set 3 is accepted" 0 \
	"^level 3 set on your user namespace [0-9]+
$(levels 3 3 none)\$" '' \
	"$P" run --level 3 -r -- "$P" set 3
tcase "inside run --level 3 -r: a nested run --level 2 is refused" 1 '' \
	"the new user namespace is at level 3 already" \
	"$P" run --level 3 -r -- "$P" run --level 2 -- true
tcase "inside run --level 3 -r: a nested namespace follows it" 0 \
	"^$(levels 3 none none)\$" '' \
	"$P" run --level 3 -r -- unshare --user -- "$P" get --verbose
tcase "inside run --level 3 (unmapped, no capabilities): set 3" 1 '' \
	'^perfns: need CAP_SYS_ADMIN over your user namespace \(cannot open' \
	"$P" run --level 3 -- "$P" set 3

# --map-auto reads /etc/subuid and /etc/subgid: give root a block there,
# in a mount namespace of the test's own (the guest's /etc is read-only).
ids=/tmp/perfns-test-subids
printf 'nobody:50000:10\nroot:100000:65536\n' > $ids
tcase "run --map-auto: root's first block from 0" 0 \
	'^0 +100000 +65536 0 +100000 +65536$' '' \
	unshare --mount sh -c "mount --bind $ids /etc/subuid &&
		mount --bind $ids /etc/subgid &&
		exec $P run --level 3 --map-auto -- \
		sh -c 'echo \$(cat /proc/self/uid_map /proc/self/gid_map)'"
tcase "run --map-auto --map-root-user: as util-linux unshare" 0 \
	'^0 +0 +1 1 +100000 +65535 0 +0 +1 1 +100000 +65535 3$' '' \
	unshare --mount sh -c "mount --bind $ids /etc/subuid &&
		mount --bind $ids /etc/subgid &&
		exec $P run --level 3 --map-auto --map-root-user -- \
		sh -c 'echo \$(cat /proc/self/uid_map /proc/self/gid_map $FILE)'"
tcase "run --map-auto without a block for the user" 1 '' \
	'^perfns: no subordinate id block for user root \(uid 0\) in /etc/subuid$' \
	"$P" run --level 3 --map-auto -- true
user=$(getent passwd "$TEST_UID" | cut -d: -f1)
if [ -n "$user" ]; then
	printf '%s:200000:65536\n' "$user" > $ids.user
	tcase "run --map-auto --map-root-user as an ordinary user (newuidmap)" 0 \
		"^0 +$TEST_UID +1 1 +200000 +65535 3\$" '' \
		unshare --mount sh -c "mount --bind $ids.user /etc/subuid &&
			mount --bind $ids.user /etc/subgid &&
			exec ${as_user[*]} $P run --level 3 --map-auto -r -- \
			sh -c 'echo \$(cat /proc/self/uid_map $FILE)'"
else
	skip "run --map-auto as an ordinary user" "uid $TEST_UID has no name"
fi
