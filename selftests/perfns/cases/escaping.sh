# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/escaping.sh - what tenants name is escaped.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

# ESC [ 2 J (clear screen), CR, LF, an invalid UTF-8 byte, a backslash.
unshare --user --map-root-user "$TENANT" name 1b5b324a0d0aff5c28 >"$T/named" &
NM=$!
pids+=($NM)
wait_line "$T/named" '^ready$'
NMID=$(ns_id $NM)
tcase "tree with a process named with escapes and invalid UTF-8" 0 '*' '' \
	"$P" tree
ok_if "... prints its name escaped" grep -Fq \
	"$NMID  owner: 0  depth: 1  level: $H  own: none  processes: $NM (\\x1b[2J\\x0d\\x0a\\xff\\x5c()" <<<"$OUT"
ok_if "... and no control character at all" \
	eval '! LC_ALL=C grep -q "[[:cntrl:]]" <<<"$OUT"'
tcase "tree --json with that process" 0 '*' '' "$P" tree --json
ok_if "... is valid JSON with the name escaped alike, and the process counted" json_ok "
n = by_pid($NM)
assert n['process_count'] == 1 and len(n['processes']) == 1, n
assert n['processes'][0]['comm'] == r'\\x1b[2J\\x0d\\x0a\\xff\\x5c(', n['processes'][0]
"
tcasein "oci-hook: a container id with escape sequences is printed escaped" \
	"{\"id\": \"evil\\u001b[2K\\u0007\", \"pid\": $$}" 1 '' \
	'^perfns: container evil\\x1b\[2K\\x07 \(pid [0-9]+\) has no user namespace of its own' \
	"$P" oci-hook --level 3
printf '{"id": "bad\xff\xfe", "pid": %s}' $$ >"$T/badutf8"
run sh -c "$P oci-hook --level 3 <$T/badutf8"
# Refused (1) with its message, and no byte of it outside ASCII.
badutf8_refused() {
	[ "$RC" = 1 ] &&
		[[ $ERR == "perfns: malformed container state on stdin: "* ]] &&
		! LC_ALL=C grep -q $'[\x80-\xff]' <<<"$ERR"
}
ok_if "oci-hook: invalid UTF-8 in the state is refused, the message escaped" \
	badutf8_refused
