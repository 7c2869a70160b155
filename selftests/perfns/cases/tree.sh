# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/tree.sh - perfns tree.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

# T1: a namespace without a process of its own, at the host's level with
# no own level; T2 inside it, raised to 3. R (the user's own, at 3) from
# above.
spawn unshare --user --map-root-user -- unshare --user -- sleep 1006
T2=$SPAWNED
"$P" set 3 --pid $T2 --exact >/dev/null
T2ID=$(ns_id $T2)
tcase "tree" 0 '*' '' "$P" tree
ok_if "tree shows the initial namespace" grep -Eq \
	"^$INIT \\(initial, yours\\)  owner: 0  depth: 0  level: $H$(fl none)  processes: 1 \\(init\\)" \
	<<<"$OUT"
ok_if "tree shows the raised namespace at depth 2 with its process" \
	grep -Eq "^[|\` -]+$T2ID  owner: 0  depth: 2  level: 3  own: 3  processes: $T2 \\(sleep\\)\$" <<<"$OUT"
ok_if "tree shows its parent, which has no process and no own level" \
	grep -Eq "^[|\` -]+[0-9]+  owner: 0  depth: 1  level: $H  own: none  processes: none\$" <<<"$OUT"
ok_if "tree shows a namespace locked at the host's level" grep -Eq \
	"^[|\` -]+$(ns_id $LK)  owner: 0  depth: 1  level: $H  own: $H  processes: $LK \\(sleep\\)\$" \
	<<<"$OUT"
ok_if "tree shows no grant on any row, no own level on the initial one" \
	eval '! grep -q "granted\|grant: " <<<"$OUT" &&
	! grep -q "^$INIT .*own: " <<<"$OUT"'
if [ -n "$HAVE_FLOOR" ]; then
	ok_if "tree has no note about a missing floor" \
		eval '! grep -q "no floor column" <<<"$OUT"'
else
	ok_if "tree says that this kernel has no floor" grep -qx \
		'note: this kernel has no kernel.perf_event_paranoid_userns: no floor column' <<<"$OUT"
fi

tcase "tree --json" 0 '^\{' '' "$P" tree --json
ok_if "tree --json parses, per_namespace is true" json_ok "
assert doc['per_namespace'] is True, doc['per_namespace']
assert doc['has_floor'] is $PY_HAVE_FLOOR, doc['has_floor']
assert doc['hidden_processes'] == 0
"
ok_if "tree --json: the initial namespace is the root" json_ok "
roots = doc['namespaces']
assert len(roots) == 1, [r['id'] for r in roots]
r = roots[0]
assert r['id'] == $INIT and r['initial'] and r['self'], r
assert r['parent'] is None and r['depth'] == 0 and r['owner_uid'] == 0
assert r['level'] == $H and r['level_error'] is None
assert r['floor'] == $PY_HOST_FLOOR, r['floor']
assert r['granted'] is False and r['granted_level'] is None, r
assert r['has_own_level'] is None and r['own_level'] is None, r
assert r['process_count'] >= 1 and r['processes'][0] == {'pid': 1, 'comm': 'init'}
"
ok_if "tree --json: the test's namespaces with their levels" json_ok "
t2 = by_pid($T2)
assert t2['id'] == $T2ID and t2['level'] == 3 and t2['depth'] == 2, t2
assert t2['owner_uid'] == 0 and not t2['self'] and not t2['initial']
assert t2['has_own_level'] is True and t2['own_level'] == 3, t2
assert t2['granted'] is False and t2['granted_level'] is None, t2
t1 = by_id(t2['parent'])
assert t1['process_count'] == 0 and t1['processes'] == [], t1
assert t1['level'] == $H and t1['depth'] == 1 and t1['parent'] == $INIT, t1
assert t1['has_own_level'] is False and t1['own_level'] is None, t1
lk = by_pid($LK)
assert lk['level'] == $H and lk['own_level'] == $H and lk['has_own_level'], lk
assert [c['id'] for c in t1['children']] == [$T2ID]
a = by_pid($A)
assert a['level'] == 3 and a['parent'] == $INIT and a['depth'] == 1, a
assert by_pid($B2)['parent'] == by_pid($B1)['id']
assert by_pid($B2)['level'] == 3 and by_pid($B1)['level'] == 3
assert by_pid($B2)['has_own_level'] is False and by_pid($B1)['own_level'] == 3
r = by_pid($R)
assert r['owner_uid'] == $TEST_UID and r['level'] == 3, r
"

tcase "tree as an ordinary user" 0 '*' '' "${as_user[@]}" "$P" tree
ok_if "... shows the user's own namespace and its level" grep -Eq \
	"^[|\` -]+$(ns_id $R)  owner: $TEST_UID  depth: 1  level: 3  own: 3  processes: $R \\(sleep\\)\$" \
	<<<"$OUT"
ok_if "... and counts the processes it may not inspect" grep -Eq \
	'^\([0-9]+ process(es)? not shown: no access to (its|their) user namespace\)$' \
	<<<"$OUT"
tcase "tree --json as an ordinary user" 0 '*' '' \
	"${as_user[@]}" "$P" tree --json
ok_if "... parses: its own namespaces, the rest hidden" json_ok "
roots = doc['namespaces']
assert len(roots) == 1 and roots[0]['self'] and roots[0]['level'] == $H
assert [c['id'] for c in roots[0]['children']] == [$(ns_id $R)], roots
r = by_pid($R)
assert r['level'] == 3 and r['level_error'] is None and r['owner_uid'] == $TEST_UID, r
assert doc['hidden_processes'] > 0
"
tcase "tree as root without CAP_SYS_ADMIN" 0 '*' '' \
	"${no_admin[@]}" "$P" tree
ok_if "... says where a level is not visible" grep -Eq \
	"^[|\` -]+$(ns_id $R)  owner: $TEST_UID  depth: 1  level: not visible \\(need CAP_SYS_ADMIN over it\\)  processes: $R \\(sleep\\)\$" \
	<<<"$OUT"
ok_if "... and still reads the namespaces uid 0 owns" grep -Eq \
	"^[|\` -]+$T2ID  owner: 0  depth: 2  level: 3  own: 3  processes: $T2 \\(sleep\\)\$" \
	<<<"$OUT"
tcase "tree --json as root without CAP_SYS_ADMIN" 0 '*' '' \
	"${no_admin[@]}" "$P" tree --json
ok_if "... marks the row it cannot read" json_ok "
r = by_pid($R)
assert r['level'] is None and r['floor'] is None, r
assert r['level_error'] == 'not visible (need CAP_SYS_ADMIN over it)', r
assert by_pid($T2)['level'] == 3 and by_pid($A)['level'] == 3
assert doc['hidden_processes'] == 0
"
