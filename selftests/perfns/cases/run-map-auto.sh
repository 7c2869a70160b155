# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/run-map-auto.sh -
# perfns run --map-auto: newuidmap and newgidmap by absolute path.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

fake=/tmp/perfns-fakebin
mkdir -p $fake
printf '#!/bin/sh\ntouch /tmp/perfns-fake-ran\nexit 1\n' >$fake/newuidmap
cp $fake/newuidmap $fake/newgidmap
chmod 755 $fake $fake/newuidmap $fake/newgidmap
rm -f /tmp/perfns-fake-ran
ids=/tmp/perfns-test-subids
user=$(getent passwd "$TEST_UID" | cut -d: -f1)
[ -z "$user" ] || printf '%s:200000:65536\n' "$user" > $ids.user
if [ -n "$user" ]; then
	tcase "run --map-auto uses /usr/bin/newuidmap whatever PATH says" 0 \
		"^0 +$TEST_UID +1 1 +200000 +65535\$" '' \
		unshare --mount sh -c "mount --bind $ids.user /etc/subuid &&
			mount --bind $ids.user /etc/subgid &&
			exec ${as_user[*]} env PATH=$fake:\$PATH $P run --level 3 --map-auto -r -- \
			sh -c 'echo \$(cat /proc/self/uid_map)'"
	ok_if "... the one in PATH never ran" [ ! -e /tmp/perfns-fake-ran ]
else
	skip "run --map-auto by absolute path" "uid $TEST_UID has no name"
fi
