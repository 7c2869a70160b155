# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/host-level.sh -
# the host's level above what it counts for, in get and tree.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

# kernel.perf_event_paranoid takes any int and counts for 3 at most on this,
# the Debian form (2 on the mainline form). get prints the host's level as
# written, and a note naming the level in force; tree's initial row shows
# the level in force, and the host's as written (host:) only where they
# differ; tree --json has the host's as written in host_level. Written to
# the file, not through perfns, and put back to $H whatever the cases say.
echo 5 >$FILE
tcase "get with the host at 5: 5 as written, and a note that it counts as 3" 0 \
	'^5$' \
	"^perfns: note: this kernel counts the host's level 5 as 3: 3 is the level in force in the initial user namespace\$" \
	"$P" get
tcase "tree with the host at 5" 0 '*' '' "$P" tree
ok_if "... the initial row: level 3 in force, host: 5 as written" grep -Eq \
	"^$INIT \\(initial, yours\\)  owner: 0  depth: 0  level: 3  host: 5$(fl none)  processes: 1 \\(init\\)" \
	<<<"$OUT"
ok_if "... and on no other row" [ "$(grep -c 'host: ' <<<"$OUT")" = 1 ]
tcase "tree --json with the host at 5" 0 '^\{' '' "$P" tree --json
ok_if "... host_level 5, the initial row's level 3" json_ok "
assert doc['host_level'] == 5, doc['host_level']
r = doc['namespaces'][0]
assert r['initial'] and r['level'] == 3 and r['level_error'] is None, r
"
echo "$H" >$FILE
tcase "... the host is back at $H" 0 "^$H\$" '' cat $FILE
tcase "get with the host at $H: no note" 0 "^$H\$" '' "$P" get
tcase "tree with the host at $H" 0 '*' '' "$P" tree
ok_if "... the initial row at $H, with no host: field" grep -Eq \
	"^$INIT \\(initial, yours\\)  owner: 0  depth: 0  level: $H$(fl none)  processes: 1 \\(init\\)" \
	<<<"$OUT"
ok_if "... nor any other row" eval '! grep -q "host: " <<<"$OUT"'
tcase "tree --json with the host at $H" 0 '^\{' '' "$P" tree --json
ok_if "... host_level $H, the initial row's level $H" json_ok "
assert doc['host_level'] == $H, doc['host_level']
assert doc['namespaces'][0]['initial'] and doc['namespaces'][0]['level'] == $H
"
