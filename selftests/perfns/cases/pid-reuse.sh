# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/pid-reuse.sh -
# pids, not numbers: a tenant's pid taken by a host process.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

tcase "set --pid of a process in your own namespace is refused" 1 '' \
	"^perfns: pid $$ is in your own user namespace \\($INIT\\); refusing to change it through --pid \\(run 'perfns set' without --pid to change your own\\)\$" \
	"$P" set 3 --pid $$
tcase "... and the host is unchanged" 0 "^$H\$" '' cat $FILE

# A tenant's process exits and its pid is taken by a host process
# (clone3 with set_tid: the reuse made certain, not hoped for).
spawn unshare --user --map-root-user sleep 1301
X=$SPAWNED
kill $X
wait $X 2>/dev/null
"$TENANT" spawn-at $X sleep 1302 >"$T/spawned" 2>&1 &
pids+=($!)
wait_line "$T/spawned" "^$X\$"
ok_if "the pid is now a host process's" [ "$(ns_id $X)" = "$INIT" ]
tcase "set --pid of the reused pid does not raise the host" 1 '' \
	"^perfns: pid $X is in your own user namespace" "$P" set 3 --pid $X
tcasein "oci-hook with the reused pid does not either" "$(state $X reused)" 1 '' \
	'the initial user namespace .* refusing$' "$P" oci-hook --level 3
tcase "... the host is still at $H" 0 "^$H\$" '' cat $FILE
kill %% 2>/dev/null
pkill -x -f 'sleep 1302'
sleep 0.2

# The same race run for real, 12 times: the tenant's process exits while
# perfns works on it and a host process takes the pid at once. perfns
# either raises the tenant's namespace and says so, or says the process
# is gone, or refuses the host's namespace; the host is never raised.
bad=0 seen=
for i in $(seq 12); do
	unshare --user --map-root-user sleep 30 </dev/null >/dev/null 2>&1 &
	Y=$!
	wait_started $Y sleep 5 || continue
	YID=$(ns_id $Y)
	"$P" set 3 --pid $Y --timeout 5 >"$T/race.out" 2>"$T/race.err" &
	setter=$!
	kill -9 $Y
	wait $Y 2>/dev/null
	"$TENANT" spawn-at $Y sleep 1303 >/dev/null 2>&1 &
	spawner=$!
	wait $setter
	rc=$?
	slurp OUT "$T/race.out"
	slurp ERR "$T/race.err"
	if [ $rc = 0 ] && [[ $OUT == "level 3 set on user namespace $YID, "* ]]; then
		seen+=" raised"
	elif [ $rc = 1 ] && [[ $ERR =~ (no\ such\ process|in\ your\ own\ user\ namespace|ended\ without\ a\ valid\ answer) ]]; then
		seen+=" refused"
	else
		bad=$((bad + 1))
		echo "# race $i: rc $rc out '$OUT' err '$ERR'"
	fi
	# Until the spawner is gone: its child may not have exec'ed sleep yet.
	for ((k = 0; k < 200; k++)); do
		kill -0 $spawner 2>/dev/null || break
		pkill -x -f 'sleep 1303'
		sleep 0.05
	done
	kill $spawner 2>/dev/null
	wait $spawner 2>/dev/null
done
echo "# outcomes:$seen"
ok_if "a pid reused during set never redirects the write" [ "$bad" = 0 ]
tcase "... the host is still at $H" 0 "^$H\$" '' cat $FILE
