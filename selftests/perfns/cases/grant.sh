# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/grant.sh - perfns grant and revoke.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

GMIN=/proc/sys/kernel/perf_event_paranoid_grant_min
for c in grant revoke; do
	tcase "perfns $c --help" 0 "^Usage: perfns $c.*Exit status" '' \
		"$P" $c --help
	tcase "$c: unknown option" 2 '' "$c: unknown option '--frob'" \
		"$P" $c --frob
	tcase "$c: needs --pid or --userns-fd" 2 '' \
		'give one of --pid and --userns-fd' "$P" $c $([ $c = grant ] && echo 2)
	tcase "$c: not both" 2 '' 'give one of --pid and --userns-fd' \
		"$P" $c --pid 1 --userns-fd 0 $([ $c = grant ] && echo 2)
	tcase "$c: --exact goes with --pid" 2 '' '--exact goes with --pid' \
		"$P" $c --exact --userns-fd 0 $([ $c = grant ] && echo 2)
done
tcase "grant: no LEVEL" 2 '' 'grant: missing LEVEL' "$P" grant --pid 1
for bad in 2x x '' ' 2' +2 0x2; do
	tcase "grant: level '$bad' is a usage error" 2 '' \
		"level '$(qre "$bad")' is not an integer" "$P" grant --pid 1 -- "$bad"
done
tcase "grant: two levels" 2 '' "unexpected argument '3'" \
	"$P" grant --pid 1 2 3
tcase "revoke: no argument" 2 '' "unexpected argument '2'" \
	"$P" revoke --pid 1 2

# What the kernel logs for each grant and revoke (made by perfns here).
klog() { # grant|revoke ID [LEVEL]
	local re
	if [ "$1" = grant ]; then
		re="perf: user namespace $2: perf_event_paranoid $3 granted by perfns\\[[0-9]+\\] uid 0\$"
	else
		re="perf: user namespace $2: perf_event_paranoid grant revoked by perfns\\[[0-9]+\\] uid 0\$"
	fi
	dmesg | grep -cE "$re"
}
# The requests, as the kernel numbers them (_IOR/_IOW(0xb7, 0x20/0x21,
# 16 bytes)), for the tenant helper's filter that fails one with an errno.
IOC_GET=$((0x8010b720)) IOC_GRANT=$((0x4010b721)) E2BIG_NR=7

if [ -e $GMIN ]; then
	echo 3 > $FILE; echo 3 > $FLOOR_FILE
	# G: a user's container with two namespaces inside, made before the
	# grant: GK1 never set its level, GK2 set 3.
	spawn "${as_user[@]}" unshare --user --map-root-user sh -c \
		'unshare --user --map-root-user sleep 1107 &
		unshare --user --map-root-user sh -c "echo 3 >/proc/sys/user/perf_event_paranoid && exec sleep 1108" &
		exec sleep 1101'
	G=$SPAWNED
	GK1=$(pid_of '^sleep 1107$')
	GK2=$(pid_of '^sleep 1108$')
	spawn "${as_user[@]}" unshare --user --map-root-user sleep 1102
	S=$SPAWNED
	GID=$(ns_id $G) SID=$(ns_id $S)
	tcase "grant --pid: the container of PID at 2, what changed, its owner noted" 0 \
		"^level 2 granted to user namespace $GID, pid $G's own, directly below yours \\(was 3\\)
$(levels "2 \\(was 3\\)" none "2 \\(was none\\)")\$" \
		"^perfns: note: user namespace $GID is owned by uid $TEST_UID, who can enter it" \
		"$P" grant --pid $G 2
	ok_if "... the kernel logged the grant, once" \
		[ "$(klog grant $GID 2)" = 1 ]
	tcase "... get shows 2 and notes the grant" 0 '^2$' \
		"^perfns: note: user namespace of pid $G holds a grant of the host \\(level 2\\): the host's level and floor do not apply to it, kernel.perf_event_paranoid_grant_min does\$" \
		"$P" get --pid $G
	tcase "... get --verbose shows the granted level, no note" 0 \
		"^$(levels 2 none 2)\$" '' "$P" get --verbose --pid $G
	tcase "... a namespace inside it that never set its level follows it" 0 \
		'^2$' '' "$P" get --pid $GK1
	tcase "... one that set 3 keeps it" 0 "^$(levels 3 3 none)\$" '' \
		"$P" get --verbose --pid $GK2
	tcase "... the sibling stays at 3" 0 '^3$' '' "$P" get --pid $S
	run "$P" tree --json
	ok_if "... tree --json: the grant, and none for the sibling and the host" \
		json_ok "g = by_pid($G)
assert g['granted'] is True and g['granted_level'] == 2 and g['level'] == 2, g
assert g['has_own_level'] is False and g['own_level'] is None, g
assert by_pid($GK1)['level'] == 2 and by_pid($GK1)['granted'] is False
assert by_pid($GK2)['level'] == 3 and by_pid($GK2)['own_level'] == 3
assert by_pid($S)['granted'] is False and by_pid($S)['level'] == 3
assert by_pid($S)['granted_level'] is None
assert by_pid(1)['granted'] is False and by_pid(1)['level'] == 3"
	tcase "... tree marks it, with the granted level" 0 \
		"$GID  owner: $TEST_UID  depth: 1  level: 2 \\(granted\\)  own: none  grant: 2  processes: " \
		'' "$P" tree
	tcase "grant below grant_min is refused, nothing changed" 1 '' \
		'below kernel.perf_event_paranoid_grant_min \(2\)' "$P" grant --pid $G 1
	tcase "... still 2" 0 "^$(levels 2 none 2)\$" '' "$P" get -v --pid $G
	echo 3 > $GMIN
	tcase "raising grant_min raises the granted namespace" 0 '^3$' \
		'holds a grant of the host \(level 2\)' "$P" get --pid $G
	tcase "... and what follows it" 0 '^3$' '' "$P" get --pid $GK1
	echo 2 > $GMIN
	tcase "... and lowering it again lowers them" 0 '^2$' '' \
		"$P" get --pid $GK1
	tcase "grant of a pid in our own namespace is refused" 1 '' \
		"pid $$ is in your own user namespace \\($INIT\\); refusing to change it through --pid\$" \
		"$P" grant --pid $$ 2
	tcase "grant of the initial namespace by descriptor: EINVAL, said" 1 '' \
		'it is the initial user namespace' \
		sh -c "exec '$P' grant --userns-fd 3 2 3</proc/self/ns/user"
	tcase "grant through a descriptor that is no user namespace" 1 '' \
		'not a user namespace' \
		sh -c "exec '$P' grant --userns-fd 3 2 3</proc/self/ns/net"
	tcase "grant through a closed descriptor" 1 '' 'descriptor 9: Bad file descriptor' \
		"$P" grant --userns-fd 9 2
	# The tenant plays: its root opens its own namespace and asks.
	tcase "the container's root cannot grant itself" 1 '' \
		"refused: grants take CAP_SYS_ADMIN in the initial user namespace, and perfns runs in user namespace $SID" \
		nsenter --target $S --user -- sh -c "exec '$P' grant --userns-fd 3 2 3</proc/self/ns/user"
	# ... and hands its descriptor to the host's admin (pidfd_getfd(), as
	# over a unix socket: the same open file, its opener the tenant's root).
	nsenter --target $S --user -- sh -c "exec 3</proc/self/ns/user; exec sleep 1103" &
	pids+=($!)
	wait_started $! sleep 2>/dev/null || sleep 1
	tcase "a descriptor the tenant opened is refused in the host admin's hands" 1 '' \
		'the descriptor was opened without CAP_SYS_ADMIN' \
		"$PY" -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
pidfd = os.pidfd_open(int(sys.argv[1]))
fd = libc.syscall(438, pidfd, 3, 0)
if fd < 0:
    sys.exit("pidfd_getfd: " + os.strerror(ctypes.get_errno()))
os.dup2(fd, 3)
os.execv(sys.argv[2], [sys.argv[2], "grant", "--userns-fd", "3", "2"])
' $! "$P"
	tcase "... the sibling is still at 3" 0 '^3$' '' "$P" get --pid $S
	tcase "an unprivileged host user cannot grant" 1 '' \
		'refused: grants take CAP_SYS_ADMIN in the initial user namespace$' \
		"${as_user[@]}" "$P" grant --pid $S 2
	# A kernel that does not know this perfns's struct (a larger one, with
	# fields it does not know set) says E2BIG: played by a seccomp filter.
	tcase "grant: E2BIG from the kernel is said plainly" 1 '' \
		"^perfns: grant user namespace of pid $S: the kernel refused this perfns's struct ns_perf_paranoid \\(E2BIG: larger than the kernel's, with fields it does not know set\\); use a perfns built for this kernel\$" \
		"$TENANT" ioctl-errno $IOC_GRANT $E2BIG_NR "$P" grant --pid $S 2
	tcase "... nothing changed" 0 "^$(levels 3 none none)\$" '' \
		"$P" get --verbose --pid $S
	tcase "get --verbose: E2BIG from the kernel is said plainly" 1 '' \
		"^perfns: cannot ask the kernel for the level in force in the user namespace of pid $S: the kernel refused this perfns's struct ns_perf_paranoid \\(E2BIG" \
		"$TENANT" ioctl-errno $IOC_GET $E2BIG_NR "$P" get --verbose --pid $S
	tcase "get --pid: E2BIG from the kernel leaves no level, said plainly" 1 '' \
		"^perfns: cannot ask the kernel for the level in force in the user namespace of pid $S: the kernel refused this perfns's struct ns_perf_paranoid \\(E2BIG: larger than the kernel's, with fields it does not know set\\); use a perfns built for this kernel\$" \
		"$TENANT" ioctl-errno $IOC_GET $E2BIG_NR "$P" get --pid $S
	tcase "revoke --pid: the host's level and floor apply again" 0 \
		"^grant revoked on user namespace $GID, pid $G's own, directly below yours: level 3 \\(was 2\\)
$(levels "3 \\(was 2\\)" none "none \\(was 2\\)")\$" \
		'' "$P" revoke --pid $G
	ok_if "... the kernel logged the revoke, once" \
		[ "$(klog revoke $GID)" = 1 ]
	tcase "... get shows 3, no note" 0 '^3$' '^$' "$P" get --pid $G
	tcase "... and what followed it is back at 3" 0 '^3$' '' \
		"$P" get --pid $GK1
	tcase "revoking a namespace without a grant changes nothing" 0 \
		"level 3 \\(was 3\\)
$(levels 3 none none)\$" '' "$P" revoke --pid $S

	# The own level from before a grant is put aside, and comes back.
	"$P" set 3 --pid $S >/dev/null
	tcase "grant of a namespace locked at 3 puts its own level aside" 0 \
		"^level 2 granted to user namespace $SID, .*
$(levels "2 \\(was 3\\)" "none \\(was 3\\)" "2 \\(was none\\)")\$" \
		'is owned by uid' "$P" grant --pid $S 2
	# A level the tenant sets during the grant counts, and a new grant
	# sets the level anew below it.
	tcase "inside the granted namespace its root raises it to 3" 0 \
		"^level 3 set on your user namespace $SID
$(levels "3 \\(was 2\\)" "3 \\(was none\\)" 2)\$" '' \
		nsenter --target $S --user -- "$P" set 3
	tcase "... and cannot go below it" 1 '' \
		"^perfns: your user namespace is at 3; a namespace's level can only be raised\$" \
		nsenter --target $S --user -- "$P" set 2
	tcase "granting it 2 again sets its level anew" 0 \
		"^level 2 granted to user namespace $SID, .*
$(levels "2 \\(was 3\\)" "none \\(was 3\\)" 2)\$" \
		'is owned by uid' "$P" grant --pid $S 2
	tcase "... revoke gives it its own level from before the grant" 0 \
		"level 3 \\(was 2\\)
$(levels "3 \\(was 2\\)" "3 \\(was none\\)" "none \\(was 2\\)")\$" '' \
		"$P" revoke --pid $S
	# A namespace that had none: what its root set during the grant.
	"$P" grant --pid $G 2 >/dev/null 2>&1
	tcase "a tenant sets 3 in a namespace granted with no own level" 0 \
		"^level 3 set on your user namespace $GID" '' \
		nsenter --target $G --user -- "$P" set 3
	tcase "... revoke leaves it at the level its root set" 0 \
		"level 3 \\(was 3\\)
$(levels 3 3 "none \\(was 2\\)")\$" '' "$P" revoke --pid $G

	# A tenant whose pid 1 nested itself: --pid takes the container, and
	# a namespace inside a granted one can be granted too.
	spawn "${as_user[@]}" unshare --user --map-root-user -- unshare --user -- sleep 1104
	N=$SPAWNED
	NID=$(ns_id $N)
	tcase "grant --pid of a nested process takes the container" 0 \
		"the container of pid $N" 'is owned by uid' "$P" grant --pid $N 2
	NCID=$(sed -n 's/^level 2 granted to user namespace \([0-9]*\),.*/\1/p' <<<"$OUT")
	tcase "... --exact grants the namespace inside it as well" 0 \
		"^level 3 granted to user namespace $NID, pid $N's own, nested below yours \\(--exact\\) \\(was 2\\)
$(levels "3 \\(was 2\\)" none "3 \\(was none\\)")\$" \
		'is owned by uid' "$P" grant --pid $N --exact 3
	run "$P" tree --json
	ok_if "... both hold their grants" json_ok "
inner = by_pid($N)
outer = by_id(inner['parent'])
assert outer['id'] == $NCID, outer
assert outer['granted'] and outer['granted_level'] == 2 and outer['level'] == 2, outer
assert inner['granted'] and inner['granted_level'] == 3 and inner['level'] == 3, inner"
	tcase "... revoking the inner one puts it under the outer's grant" 0 \
		"level 2 \\(was 3\\)
$(levels "2 \\(was 3\\)" none "none \\(was 3\\)")\$" '' \
		"$P" revoke --pid $N --exact
	tcase "... and revoking the outer one under the host's levels" 0 \
		"level 3 \\(was 2\\)" '' "$P" revoke --pid $N
	tcase "... where the inner one is" 0 "^$(levels 3 none none)\$" '' \
		"$P" get -v --pid $N
	tcase "grant the inner namespace first" 0 "pid $N's own, nested below yours" \
		'is owned by uid' "$P" grant --pid $N --exact 2
	tcase "... then the container" 0 "the container of pid $N" \
		'is owned by uid' "$P" grant --pid $N 2
	tcase "... the inner one keeps its grant" 0 "^$(levels 2 none 2)\$" '' \
		"$P" get -v --pid $N
	"$P" revoke --pid $N >/dev/null
	tcase "... also once the container's is revoked" 0 "^$(levels 2 none 2)\$" '' \
		"$P" get -v --pid $N
	"$P" revoke --pid $N --exact >/dev/null

	tcase "oci-hook --grant grants the container's namespace" 0 '' \
		"container g1: level 2 granted to user namespace $SID" \
		sh -c "echo '{\"id\":\"g1\",\"pid\":$S}' | '$P' oci-hook --grant 2"
	tcase "... which is at 2" 0 '^2$' 'holds a grant of the host' "$P" get --pid $S
	tcase "oci-hook: --grant and --level together are a usage error" 2 '' \
		'give one --level or --grant' "$P" oci-hook --grant 2 --level 3
	tcase "oci-hook --grant from a user namespace is refused" 1 '' \
		'a grant takes CAP_SYS_ADMIN in the initial user namespace, and this hook runs in' \
		sh -c "echo '{\"id\":\"g2\",\"pid\":$S}' | unshare --user --map-root-user '$P' oci-hook --grant 2"
	"$P" revoke --pid $S >/dev/null
	echo -1 > $FLOOR_FILE; echo $H > $FILE
	tcase "with the host back at $H and no floor: a namespace that was granted and set nothing follows" \
		0 "^$(levels $H none none)\$" '' "$P" get -v --pid $N
	tcase "... one whose own level came back at the revoke keeps it" 0 \
		"^$(levels 3 3 none)\$" '' "$P" get -v --pid $S
	tcase "... one whose root set it during the grant too" 0 \
		"^$(levels 3 3 none)\$" '' "$P" get -v --pid $G
else
	skip_unless_series "grant and revoke" "this kernel has no $GMIN"
fi
