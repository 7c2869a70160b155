# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/floor.sh -
# the floor, kernel.perf_event_paranoid_userns, the host's only.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

FLOOR_ONLY="only the initial user namespace has a floor \\(kernel.perf_event_paranoid_userns, the host's\\)"
spawn unshare --user --map-root-user sleep 1101
F1=$SPAWNED
if [ -n "$HAVE_FLOOR" ]; then
	tcase "get --floor: with no floor set it reads -1" 0 '^-1$' '' \
		"$P" get --floor
	tcase "set --floor 3 on the host, and says where" 0 \
		"^floor 3 set on your user namespace $INIT \\(the initial one\\)\$" '' \
		"$P" set --floor 3
	tcase "... get --floor reads it" 0 '^3$' '' "$P" get --floor
	tcase "... sysctl's file agrees" 0 '^3$' '' cat $FLOOR_FILE
	tcase "... the host's own level is unchanged" 0 "^$H\$" '' "$P" get
	tcase "... a namespace made before is at 3 at once" 0 '^3$' '' \
		"$P" get --pid $F1
	tcase "... a namespace made now is at 3" 0 '^3$' '' \
		unshare --user cat $FILE
	tcase "... perf is refused in a new namespace (ordinary user)" '*' '' '*' \
		"${as_user[@]}" unshare --user -- perf stat -e task-clock true
	ok_if "... with a non-zero exit status" [ "$RC" != 0 ]
	tcase "... while the host's users still profile" 0 '*' 'task-clock' \
		"${as_user[@]}" perf stat -e task-clock true
	tcase "tree shows the host's floor" 0 \
		"^$INIT \\(initial, yours\\)  owner: 0  depth: 0  level: $H  floor: 3  " \
		'' "$P" tree
	ok_if "... on the initial namespace's row only" \
		[ "$(grep -c 'floor: ' <<<"$OUT")" = 1 ]
	tcase "tree --json: the floor field" 0 '*' '' "$P" tree --json
	ok_if "... holds the host's floor, and none for a child" json_ok "
assert doc['namespaces'][0]['floor'] == 3, doc['namespaces'][0]
assert by_pid($F1)['level'] == 3 and by_pid($F1)['floor'] is None
assert by_pid($F1)['has_own_level'] is False, by_pid($F1)
assert all(n['floor'] is None for n in walk(doc['namespaces']) if not n['initial'])
"
	# A hook asked for 2 on a container the floor holds at 3 locks it
	# at 3: once the floor goes, it must not fall to the host's 2.
	spawn unshare --user --map-root-user sleep 1102
	F2=$SPAWNED
	tcasein "oci-hook --level 2 on a container the floor holds at 3 locks it there" \
		"$(state $F2 floored)" 0 '' \
		"^perfns: note: container floored: user namespace $(ns_id $F2) was at 3, above 2, following the levels above it; locked it at 3, its own level now, so that lowering them does not take it below 2 \\(the container's own, directly below the hook's \\($INIT\\)\\)\$" \
		"$P" oci-hook --level 2
	tcase "... its own level is 3" 0 "^$(levels 3 3 none)\$" '' \
		"$P" get --verbose --pid $F2
	tcase "set --floor -1 removes the host's floor" 0 \
		'^floor -1 set on your user namespace' '' "$P" set --floor -1
	tcase "... get --floor reads -1" 0 '^-1$' '' "$P" get --floor
	tcase "... tree shows none" 0 \
		"^$INIT \\(initial, yours\\)  owner: 0  depth: 0  level: $H  floor: none  " \
		'' "$P" tree
	tcase "... the namespace made before follows it down to the host's level" \
		0 "^$H\$" '' "$P" get --pid $F1
	tcase "... the container the hook locked stays at 3" 0 '^3$' '' \
		"$P" get --pid $F2
	# The floor reads what was written, not the higher of it and the
	# host's level.
	tcase "set --floor 1 below the host's level" 0 \
		'^floor 1 set on your user namespace' '' "$P" set --floor 1
	tcase "... get --floor reads 1, as written" 0 '^1$' '' "$P" get --floor
	tcase "... so does its file" 0 '^1$' '' cat $FLOOR_FILE
	tcase "... tree shows 1" 0 \
		"^$INIT \\(initial, yours\\)  owner: 0  depth: 0  level: $H  floor: 1  " \
		'' "$P" tree
	tcase "... the host's level holds the namespace at $H" 0 "^$H\$" '' \
		"$P" get --pid $F1
	tcase "set --floor 2 again" 0 '^floor 2 set on your user namespace' '' \
		"$P" set --floor 2
	# Only the host has a floor: a container's is refused, whatever the
	# value, before anything is touched.
	tcase "set --floor on a container is refused (only the host has a floor)" 2 '' \
		"^perfns set: --floor takes no --pid: $FLOOR_ONLY, and no other user namespace has one; lock a namespace by raising its level" \
		"$P" set --floor 3 --pid $F1
	tcase "... its level is unchanged" 0 "^$H\$" '' "$P" get --pid $F1
	tcase "get --floor --pid is refused alike" 2 '' \
		"^perfns get: --floor takes no --pid: $FLOOR_ONLY" \
		"$P" get --floor --pid $F1
	# What a floor in a container did, a runtime there does by raising
	# the namespaces it makes.
	tcase "a runtime in the container locks a namespace it makes by its level" 0 \
		'^3$' '' nsenter --target $F1 --user -- "$P" run --level 3 -- cat $FILE
	tcase "... and the container stays at the host's level" 0 "^$H\$" '' \
		"$P" get --pid $F1
	tcase "... a lower floor for the container is refused too" 2 '' \
		"^perfns set: --floor takes no --pid: $FLOOR_ONLY" \
		"$P" set --floor 2 --pid $F1
	tcase "... a negative one too" 2 '' "^perfns set: --floor takes no --pid" \
		"$P" set --floor -1 --pid $F1
	tcase "... and from inside the container" 1 '' \
		"^perfns: $FLOOR_ONLY; your user namespace \\($(ns_id $F1)\\) is not the initial one: nothing changed \\(lock the namespaces below yours by raising their level\\)\$" \
		nsenter --target $F1 --user -- "$P" set --floor 2
	tcase "... with a level as well: nothing changed" 1 '' "^perfns: $FLOOR_ONLY;" \
		nsenter --target $F1 --user -- "$P" set 3 --floor 3
	tcase "... the container is still at the host's level" 0 "^$H\$" '' \
		"$P" get --pid $F1
	tcase "get --floor inside a container is refused" 1 '' \
		"^perfns: $FLOOR_ONLY; read it from the initial user namespace \\(yours, $(ns_id $F1), is not\\)\$" \
		nsenter --target $F1 --user -- "$P" get --floor
	tcase "... where the kernel refuses the floor's write as well" 1 '' \
		'Operation not permitted' \
		nsenter --target $F1 --user -- sysctl -w kernel.perf_event_paranoid_userns=3
	tcase "... the host's floor is still 2" 0 '^2$' '' "$P" get --floor
	tcase "set LEVEL and a floor out of range: refused, nothing changed" 2 '' \
		"^perfns set: floor 4 is out of range" "$P" set 1 --floor 4
	tcase "... the host's level and floor are as they were" 0 "^$H 2\$" '' \
		sh -c "echo \$(cat $FILE $FLOOR_FILE)"
	tcase "set LEVEL and --floor together on the host" 0 \
		"^level $H and floor 3 set on your user namespace $INIT \\(the initial one\\)\$" '' \
		"$P" set "$H" --floor 3
	tcase "... both read back" 0 "^$H 3\$" '' sh -c \
		"echo \$($P get) \$($P get --floor)"
	tcase "set --floor 2 again" 0 '^floor 2 set' '' "$P" set --floor 2
	tcase "set --floor as an ordinary user on the host" 1 '' \
		"^perfns: need uid 0 and CAP_SYS_ADMIN in the initial user namespace to set the host's floor \\(cannot open $FLOOR_FILE for writing: Permission denied\\)\$" \
		"${as_user[@]}" "$P" set --floor 3
	tcase "set --floor as root without CAP_SYS_ADMIN" 1 '' \
		"^perfns: need uid 0 and CAP_SYS_ADMIN in the initial user namespace to set the host's floor \\(write: Operation not permitted\\)\$" \
		"${no_admin[@]}" "$P" set --floor 3
	tcase "... the host's floor is still 2" 0 '^2$' '' cat $FLOOR_FILE
	tcase "set --floor -1 again: no floor" 0 '^floor -1 set' '' \
		"$P" set --floor -1
	tcase "... it reads -1" 0 '^-1$' '' "$P" get --floor
else
	tcase "get --floor on a kernel without the floor" 1 '' \
		'^perfns: this kernel has no kernel.perf_event_paranoid_userns \(no floor for the user namespaces: /proc/sys/kernel/perf_event_paranoid_userns does not exist\)$' \
		"$P" get --floor
	tcase "set --floor on a kernel without the floor" 1 '' \
		'^perfns: this kernel has no kernel.perf_event_paranoid_userns .*; nothing changed$' \
		"$P" set --floor 3
	tcase "set --floor --pid is refused (only the host has a floor)" 2 '' \
		"^perfns set: --floor takes no --pid: $FLOOR_ONLY" \
		"$P" set --floor 3 --pid $F1
	tcase "... the namespace is unchanged" 0 "^$H\$" '' "$P" get --pid $F1
	tcase "set LEVEL --floor: refused before the level is touched" 1 '' \
		'; nothing changed$' "$P" set 3 --floor 3
	tcase "... the host is unchanged" 0 "^$H\$" '' cat $FILE
	skip_unless_series "the floor's own cases" "this kernel has no $FLOOR_FILE"
fi
