# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/tenant-race.sh -
# a tenant races to take over perfns's children.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

# The tenant: root of a root-owned namespace (ids mapped to 100000), in the
# host's pid and mount namespaces, PTRACE_SEIZEs and SIGSTOPs (then
# SIGKILLs) every pid about to be used while perfns runs set, get, tree
# and oci-hook on its namespace. The host is at -1 meanwhile, and the
# tenant's namespace, with no own level, with it; each pass sets the next
# level up to 3 (then 3 again), so the level at the end must be at least
# every level that perfns said it set.
race_round() { # MODE
	local mode=$1 l=-2 rc t0 t1 slow=0 lies=0 runs=0 line cmd end rp
	"$TENANT" racer 60 "$mode" >"$T/racer" 2>&1 &
	rp=$!
	pids+=($rp)
	wait_line "$T/racer" '^ready ' || return 1
	read -r _ TNS TP <"$T/racer"
	ok_if "$mode: the tenant runs in a namespace of its own" \
		eval '[ "$(ns_id "$TP")" = "$TNS" ] && [ "$TNS" != "$INIT" ]'
	: >"$T/claims"
	end=$((SECONDS + 20))
	while [ $SECONDS -lt $end ]; do
		l=$((l < 3 ? l + 1 : 3)) runs=$((runs + 1))
		for cmd in set get tree hook; do
			t0=$EPOCHREALTIME
			case $cmd in
			set) run "$P" set $l --pid "$TP" --timeout 2 ;;
			get) run "$P" get --pid "$TP" --timeout 2 ;;
			tree) run "$P" tree --timeout 2 ;;
			hook) runin "$(state "$TP" racer)" "$P" oci-hook \
				--level $l --timeout 2 ;;
			esac
			rc=$RC
			t1=$EPOCHREALTIME
			# The bound: 2 s for the one child that enters the
			# tenant's namespace, and the rest at TCG's pace.
			if (( ${t1/./} - ${t0/./} > 6000000 )); then
				slow=$((slow + 1))
				echo "# $cmd took $(( (${t1/./} - ${t0/./}) / 1000 )) ms"
			fi
			if [ "$rc" = 0 ] && [ "$cmd" = set ]; then
				[[ $OUT == "level $l set on user namespace $TNS, "* ]] ||
					{ lies=$((lies + 1)); echo "# set: $OUT"; }
				echo "$l" >>"$T/claims"
			elif [ "$rc" = 0 ] && [ "$cmd" = hook ]; then
				[[ $ERR == "perfns: container racer: level $l set on user namespace $TNS:"* ]] ||
					{ lies=$((lies + 1)); echo "# hook: $ERR"; }
				echo "$l" >>"$T/claims"
			elif [ "$rc" != 0 ] && [ "$cmd" != tree ]; then
				[[ $ERR =~ (no\ answer\ within\ 2\ s\ from\ the\ child|ended\ without\ a\ valid\ answer) ]] ||
					{ lies=$((lies + 1)); echo "# $cmd: $ERR"; }
			elif [ "$rc" != 0 ]; then
				[[ $ERR =~ (did\ not\ answer\ within\ 2\ s|could\ not\ be\ read) ]] ||
					{ lies=$((lies + 1)); echo "# tree: $ERR"; }
			fi
		done
	done
	kill -USR1 "$TP"
	wait_line "$T/racer" '^tries ' 30
	line=$(grep '^tries ' "$T/racer")
	echo "# $mode: $runs passes up to level $l; tenant: $line"
	# Read undisturbed now: the level the kernel really holds.
	run "$P" get --pid "$TP" --timeout 5
	echo "# $mode: the tenant's namespace is at $OUT; levels claimed set: $(tr '\n' ' ' <"$T/claims")"
	ok_if "$mode: every command ended within its bound (2 s per child)" [ "$slow" = 0 ]
	ok_if "$mode: every message said what happened" [ "$lies" = 0 ]
	ok_if "$mode: the tenant never attached with ptrace" \
		grep -q ' seize_ok 0 ' <<<"$line"
	ok_if "$mode: the tenant read nothing of perfns's children" \
		grep -q ' leaks 0$' <<<"$line"
	ok_if "$mode: the tenant did catch children (the race was run)" \
		eval '! grep -q " signalled 0 " <<<"$line"'
	ok_if "$mode: no level was claimed set that the kernel does not hold" \
		awk -v last="$OUT" '$1 > last + 0 { bad = 1 } END { exit bad || last == "" }' "$T/claims"
	ok_if "$mode: the host's level is still -1" [ "$(cat $FILE)" = -1 ]
	kill $rp 2>/dev/null
	wait $rp 2>/dev/null
}
echo -1 >$FILE
race_round stop
race_round kill
echo "$H" >$FILE
