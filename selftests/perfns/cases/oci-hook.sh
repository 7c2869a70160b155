# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/oci-hook.sh - perfns oci-hook.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

state() { # PID [ID]
	printf '{"ociVersion": "1.0.2", "id": "%s", "status": "creating", "pid": %s, "bundle": "/tmp/bundle", "annotations": {}}' \
		"${2:-ctr1}" "$1"
}
spawn unshare --user --map-root-user sleep 1007
C=$SPAWNED
tcasein "oci-hook raises a container's user namespace, and says which and why" \
	"$(state $C)" 0 '' \
	"^perfns: container ctr1: level 3 set on user namespace $(ns_id $C): the container's own, directly below the hook's \\($INIT\\)\$" \
	"$P" oci-hook --level 3
tcase "... to the level asked for" 0 '^3$' '' "$P" get --pid $C
tcase "... which it cannot lower" 1 '' "is at 3" \
	nsenter --target $C --user -- "$P" set 2
tcasein "oci-hook on a container already above the level leaves it" \
	"$(state $C)" 0 '' \
	"^perfns: note: container ctr1: user namespace $(ns_id $C) is already at 3, above 2, and locked at its own level 3; left as it is \\(the container's own" \
	"$P" oci-hook --level 2
tcase "... at 3, its own level" 0 "^$(levels 3 3 none)\$" '' \
	"$P" get --verbose --pid $C
# The host's own level takes any integer and counts for 3 at most (on this,
# the Debian form): a namespace that follows a host at 5 is at 3 (its
# user.perf_event_paranoid shows 3, its kernel.perf_event_paranoid the
# host's 5 as written), and a hook asked for 2 locks it at 3.
spawn unshare --user --map-root-user sleep 1013
HI=$SPAWNED
tcase "set 5 on the host (its own level takes any integer)" 0 \
	"^level 5 set on your user namespace $INIT \\(the initial one\\)\$" '' \
	"$P" set 5
tcase "... get --verbose: in force 3, the most it counts for; its own 5" 0 \
	"^$(levels 3 5 none)\$" '' "$P" get --verbose
tcasein "oci-hook --level 2 on a container following the host at 5 locks it at 3" \
	"$(state $HI high)" 0 '' \
	"^perfns: note: container high: user namespace $(ns_id $HI) was at 3, above 2, following the levels above it; locked it at 3, its own level now, so that lowering them does not take it below 2 \\(the container's own, directly below the hook's \\($INIT\\)\\)\$" \
	"$P" oci-hook --level 2
"$P" set "$H" >/dev/null
tcase "... where it stays with the host back at $H" 0 "^$(levels 3 3 none)\$" '' \
	"$P" get -v --pid $HI
tcasein "oci-hook: malformed JSON" '{"pid": 12' 1 '' \
	'^perfns: malformed container state on stdin: .*\(line 1, column' \
	"$P" oci-hook --level 3
tcasein "oci-hook: empty input" '' 1 '' \
	'^perfns: malformed container state on stdin' "$P" oci-hook --level 3
tcasein "oci-hook: not an object" "[$C]" 1 '' \
	'not a JSON object' "$P" oci-hook --level 3
tcasein "oci-hook: no pid" '{"ociVersion": "1.0.2", "id": "ctr2", "status": "creating"}' 1 '' \
	'^perfns: the container state has no pid for ctr2: is this hook run at createRuntime or prestart\?$' \
	"$P" oci-hook --level 3
for badpid in '"123"' 0 -4 1.5 null 99999999999; do
	tcasein "oci-hook: pid $badpid" "{\"pid\": $badpid}" 1 '' \
		"^perfns: the container state's pid is not a positive integer\$" \
		"$P" oci-hook --level 3
done
tcasein "oci-hook: a dead pid" "$(state 999999)" 1 '' \
	'^perfns: no such process: 999999$' "$P" oci-hook --level 3
tcasein "oci-hook: a container sharing the hook's user namespace, the initial one" \
	"$(state $$ shared)" 1 '' \
	"^perfns: container shared \\(pid $$\\) has no user namespace of its own: it shares the hook's, the initial user namespace \\($INIT\\), and raising that would raise the host's level; refusing\$" \
	"$P" oci-hook --level 3
tcase "... and the host's level is unchanged" 0 "^$H\$" '' cat $FILE

# A rootless runtime (podman) runs the hook in the user's one namespace,
# where its containers run too: that namespace is locked, not refused.
spawn "${as_user[@]}" unshare --user --map-root-user sleep 1009
RL=$SPAWNED
RLID=$(ns_id $RL)
tcasein "oci-hook in a rootless runtime's namespace locks the shared namespace" \
	"$(state $RL rootless)" 0 '' \
	"^perfns: container rootless: level 3 set on user namespace $RLID: the container shares the hook's own user namespace, which is not the initial one \\(a rootless runtime's\\): raising it locks every container in it and leaves the host as it is\$" \
	"${as_user[@]}" nsenter --target $RL --user --preserve-credentials -- \
	"$P" oci-hook --level 3
tcase "... it is at 3" 0 '^3$' '' "$P" get --pid $RL
tcase "... and the host is not" 0 "^$H\$" '' cat $FILE
spawn "${as_user[@]}" nsenter --target $RL --user --preserve-credentials -- \
	unshare --user sleep 1010
RL2=$SPAWNED
tcasein "oci-hook in a rootless runtime's namespace: a container below it (--userns=auto)" \
	"$(state $RL2 auto)" 0 '' \
	"^perfns: container auto: level 3 set on user namespace $(ns_id $RL2): the container's own, directly below the hook's \\($RLID\\)\$" \
	"${as_user[@]}" nsenter --target $RL --user --preserve-credentials -- \
	"$P" oci-hook --level 3

spawn unshare --user --map-root-user sleep 1008
D=$SPAWNED
tcasein "oci-hook run by an ordinary user on root's container" \
	"$(state $D ctr3)" 1 '' \
	"^perfns: need CAP_SYS_ADMIN over the user namespace of pid $D \\(container ctr3\\) \\(getting it from a pidfd: Permission denied\\)\$" \
	"${as_user[@]}" "$P" oci-hook --level 3
tcase "... which is unchanged" 0 "^$H\$" '' "$P" get --pid $D
tcasein "oci-hook as root without CAP_SYS_ADMIN on a user's container" \
	"$(state $R ctr4)" 1 '' \
	"^perfns: need CAP_SYS_ADMIN over the user namespace $(ns_id $R) \\(container ctr4\\) \\(setns" \
	"${no_admin[@]}" "$P" oci-hook --level 3

# The example hook configurations in the docs and tools/examples parse,
# and name the hook the way it runs here.
for f in "$top"/tools/examples/*.json; do
	tcase "example $(basename "$f") is valid JSON with the oci-hook" 0 '*' '' \
		"$PY" -c '
import json, sys
doc = json.load(open(sys.argv[1]))
hooks = doc.get("hooks", {}).get("createRuntime") or [doc["hook"]]
assert "createRuntime" in doc.get("stages", ["createRuntime"])
h = hooks[0]
assert h["path"].endswith("/perfns"), h
assert h["args"][1:] in (["oci-hook", "--level", "3"],
                         ["oci-hook", "--grant", "2"]), h
' "$f"
done
