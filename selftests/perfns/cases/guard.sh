# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/guard.sh - the guard fails closed.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

spawn unshare --user --map-root-user sleep 1401
G=$SPAWNED
# Kernels before 6.11 have no PIDFD_GET_USER_NAMESPACE: perfns falls back
# to /proc, checked against the pidfd. The tenant helper's seccomp filter
# makes this kernel answer as they do.
tcasein "oci-hook without PIDFD_GET_USER_NAMESPACE (through /proc)" \
	"$(state $G fallback)" 0 '' \
	"^perfns: container fallback: level 3 set on user namespace $(ns_id $G): the container's own" \
	"$TENANT" no-pidfd-ns "$P" oci-hook --level 3
spawn unshare --user --map-root-user sleep 1402
G2=$SPAWNED
# A hook whose /proc belongs to another pid namespace: /proc/self does not
# resolve and /proc/1 is another process (here one in the host's user
# namespace). Through /proc it cannot tell its own namespace: it refuses.
cat >"$T/foreign" <<EOF
unshare --pid --fork --kill-child sh -c 'mount -t proc proc /proc && exec sleep 300' &
for i in \$(seq 100); do [ -e /proc/self ] || break; sleep 0.05; done
$TENANT no-pidfd-ns $P oci-hook --level 3 <"$T/state1"; echo "rc \$?"
$TENANT no-pidfd-ns $P set 3 --pid $G2; echo "rc \$?"
$P oci-hook --level 3 <"$T/state1"; echo "rc \$?"
$P oci-hook --level 3 <"$T/state2"; echo "rc \$?"
kill %1
EOF
state 1 foreign >"$T/state1"
state $G2 foreign2 >"$T/state2"
run unshare --mount --propagation private bash "$T/foreign"
ok_if "with a foreign /proc and no pidfd namespace ioctl the hook refuses" \
	grep -Fxq "perfns: cannot tell which user namespace perfns runs in (/proc is not the proc file system of perfns's pid namespace, or not mounted); refusing to go on" <<<"$ERR"
ok_if "... and so does set, with exit status 1 both" \
	eval '[ "$(sed -n 1p <<<"$OUT")" = "rc 1" ] &&
	[ "$(sed -n 2p <<<"$OUT")" = "rc 1" ]'
ok_if "... with pidfds the hook finds pid 1 is the host's init and refuses" \
	eval '[ "$(sed -n 3p <<<"$OUT")" = "rc 1" ] &&
	grep -q "container foreign (pid 1) has no user namespace of its own: it shares the hook.s, the initial user namespace" <<<"$ERR"'
ok_if "... and locks the container it was given, by pidfd" \
	eval '[ "$(sed -n 4p <<<"$OUT")" = "rc 0" ] &&
	grep -q "container foreign2: level 3 set on user namespace $(ns_id $G2)" <<<"$ERR"'
tcase "... which is at 3" 0 '^3$' '' "$P" get --pid $G2
tcase "... and the host is still at $H" 0 "^$H\$" '' cat $FILE
