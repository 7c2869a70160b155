# SPDX-License-Identifier: GPL-2.0
# tools/lib/containers.sh - containers from a busybox-static root file
# system, for real runtimes in the guest. Sourced (after vm/lib.sh) by the
# runtimes suites (selftests/runtimes/, which add runtimes-checks.sh), the
# demo's runtime act (vm/demo/demo-guest) and the admin guide's runtime
# transcripts (vm/check/admin-guide-transcript):
#
#   R=DIR (optional, default a mktemp directory under /tmp) . containers.sh
#   make_rootfs                  $R/base and one copy per owner, $R/rootfs-UID
#                                (uid 1000 and 100000: rootless and root's)
#   new_case NAME OWNER          $C, $OUT (the container's /out), $ROOTFS
#   oci_spec RUNTIME MODE LOCK   $C/bundle/config.json (crun or runc; root
#                                or rootless; hook, user-sysctl, sysctl or
#                                floor)
#   lxc_config NAME PROC [LINE...]
#                                $C/lxc/NAME/config: an unprivileged LXC
#                                container (ids from 100000), proc:PROC,
#                                and LINE... (lxc.sysctl.KEY = VALUE)
#   wait_probe                   the container's probe report, into K
#   setup                        uid 1000: name, /etc/subuid, home; rootfs
#   tenant CMD...                CMD as uid 1000 in its own home
#   podman_setup, podman_end     rootless podman's configuration, the image;
#                                ending its pause process (prints a note)
#   podman_args NAME             PODMAN_ARGS: "podman run" of a case's
#                                container, up to the image
#   rt_cleanup                   for an EXIT trap: uid 1000's processes, the
#                                bind mounts over /etc
# Each container runs /probe.sh: the static probe (perfprobe: uid, user
# namespace, level, perf_event_open's errno, writes below the level), then
# the host's perf (/usr is bound in read-only); /out/probe appears when both
# are done; then it sleeps.

rt_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
P=${PERFNS_BIN:-$rt_top/build/bin/perfns}
PROBE=$rt_top/build/tools/perfprobe
LEVEL_FILE=/proc/sys/kernel/perf_event_paranoid	# the host's level
USER_LEVEL_FILE=/proc/sys/user/perf_event_paranoid	# each namespace's own
FLOOR_FILE=/proc/sys/kernel/perf_event_paranoid_userns
U=${TEST_UID:-1000}
# Subordinate ids: uid 1000's (rootless runtimes) and those mapped by root's
# containers.
SUB_U=200000 SUB_ROOT=100000 SUB_N=65536
HOOK_ARGS='["perfns", "oci-hook", "--level", "3"]'
IMAGE=localhost/perfns-busybox
WAIT=${TEST_RUNTIMES_WAIT:-60}	# seconds a container may take to start
# Every runtime command is bounded: one that hangs fails its case only.
TO=(timeout -k 5 120)

if [ -z "${R:-}" ]; then
	R=$(mktemp -d /tmp/runtimes.XXXXXX)
fi
mkdir -p "$R"
chmod 755 "$R"

rt_cleanup() {
	local m
	# Whatever a failed case left running (a leftover is reported, not
	# kept): end it so that the guest can finish.
	pkill -KILL -u "$U" 2>/dev/null
	for m in /etc/subgid /etc/subuid /etc/group /etc/passwd; do
		while mountpoint -q "$m"; do
			umount "$m" || break
		done
	done
}

level() { # the host's level
	local l
	read -r l <"$LEVEL_FILE"
	echo "$l"
}

# kv FILE: the probe's "key=value" lines into the associative array K.
declare -A K
kv() {
	local line
	K=()
	while IFS= read -r line; do
		[[ $line == *=* ]] && K[${line%%=*}]=${line#*=}
	done <"$1"
}

# Process substitution needs /dev/fd, which the guest's devtmpfs lacks.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

# A sleep without an exec (each exec reads its binary over 9p): a read
# that times out on a pipe nobody writes.
exec {SLEEP_FD}<> <(:)
nap() {
	read -r -t "$1" -u "$SLEEP_FD" _ || :
}

# A root file system: busybox-static with its applets, the probe, an
# /etc/passwd, mount points for /out (the case's output) and /usr (the
# host's, read-only, for perf), and the container's program /probe.sh:
# the probe first, then the real perf (whose message names the level);
# /out/probe appears, whole, when both are done. /probe-remount.sh does the
# same after remounting /proc/sys writable (bubblewrap makes it read-only;
# its tenant holds CAP_SYS_ADMIN and undoes that first). Two copies: owned
# by uid 1000 (rootless containers) and by 100000 (root's containers).
make_rootfs() {
	/usr/bin/python3 - "$R" /bin/busybox "$PROBE" $U $SUB_ROOT <<-'EOF'
	import os, shutil, subprocess, sys
	r, busybox, probe, uids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
	base = r + "/base"
	for d in "bin dev etc out proc root run sys tmp usr".split():
	    os.makedirs(base + "/" + d)
	shutil.copy2(busybox, base + "/bin/busybox")
	shutil.copy2(probe, base + "/bin/perfprobe")
	applets = subprocess.run([busybox, "--list"], capture_output=True,
				 text=True, check=True).stdout.split()
	for a in applets:
	    if not os.path.lexists(base + "/bin/" + a):
	        os.symlink("busybox", base + "/bin/" + a)
	os.symlink("usr/lib", base + "/lib")
	os.symlink("usr/lib64", base + "/lib64")
	with open(base + "/etc/passwd", "w") as f:
	    f.write("root:x:0:0:root:/root:/bin/sh\n")
	with open(base + "/etc/group", "w") as f:
	    f.write("root:x:0:\n")
	probe_sh = ("/bin/perfprobe >/out/probe.tmp 2>&1\n"
		    "/usr/bin/perf stat -e task-clock true >/out/perf 2>&1\n"
		    "echo \"perf_rc=$?\" >>/out/probe.tmp\n"
		    "mv /out/probe.tmp /out/probe\n"
		    "exec sleep 1000\n")
	remount = ("mount -o remount,bind,rw /proc/sys 2>/out/remount ||"
		   " echo remount=failed >>/out/probe.tmp\n")
	for name, text in (("probe.sh", probe_sh),
			   ("probe-remount.sh", remount + probe_sh)):
	    with open(base + "/" + name, "w") as f:
	        f.write("#!/bin/sh\n" + text)
	    os.chmod(base + "/" + name, 0o755)
	for uid in uids:
	    dst = r + "/rootfs-" + uid
	    shutil.copytree(base, dst, symlinks=True)
	    for top, dirs, files in os.walk(dst):
	        for n in [top] + [top + "/" + x for x in dirs + files]:
	            os.lchown(n, int(uid), int(uid))
	EOF
}

# new_case NAME OWNER: $C (the case's directory, with bundle/), $OUT (its
# /out, world-writable) and $ROOTFS (the rootfs owned by OWNER).
new_case() {
	C=$R/$1 OUT=$R/$1/out ROOTFS=$R/rootfs-$2 T_CASE=$SECONDS
	K=()
	mkdir -p -m 777 "$OUT" "$C/bundle"
	# A report left by an earlier run in the same R= must not count.
	rm -f "$OUT/probe" "$OUT/probe.tmp" "$OUT/perf"
}

# wait_probe: wait until the container's probe is done; K holds its report.
wait_probe() {
	local tries=$((WAIT * 5))
	while [ ! -e "$OUT/probe" ] && [ $tries -gt 0 ]; do
		nap 0.2
		tries=$((tries - 1))
	done
	[ -e "$OUT/probe" ] || return 1
	kv "$OUT/probe"
}

# slurp VAR FILE: FILE's text
slurp() {
	local -n var=$1
	var=
	IFS= read -r -d '' var <"$2" || :
}

setup() {
	local user
	HOST_NS=$(stat -L -c %i /proc/self/ns/user)
	# uid 1000 needs a name (subuid, newuidmap, podman); /etc is the
	# host's, read-only: what is added is bind-mounted from tmpfs.
	mkdir -p "$R/etc" "$R/home" "$R/run-$U" "$R/spec"
	user=$(getent passwd "$U" | cut -d: -f1)
	if [ -z "$user" ]; then
		user=perfns-tenant
		cp /etc/passwd /etc/group "$R/etc/"
		echo "$user:x:$U:$U::$R/home:/bin/sh" >>"$R/etc/passwd"
		echo "$user:x:$U:" >>"$R/etc/group"
		mount --bind "$R/etc/passwd" /etc/passwd &&
			mount --bind "$R/etc/group" /etc/group || return 1
	fi
	printf '%s:%d:%d\nroot:%d:%d\n' "$user" $SUB_U $SUB_N $SUB_ROOT $SUB_N \
		>"$R/etc/subuid"
	printf '%s:%d:%d\nroot:%d:%d\n' "$user" $SUB_U $SUB_N $SUB_ROOT $SUB_N \
		>"$R/etc/subgid"
	if [ ! -e /etc/subuid ] || [ ! -e /etc/subgid ]; then
		echo "# no /etc/subuid or /etc/subgid to bind over" >&2
		return 1
	fi
	mount --bind "$R/etc/subuid" /etc/subuid &&
		mount --bind "$R/etc/subgid" /etc/subgid || return 1
	# Rootless podman wants / shared, as systemd makes it on a real host.
	mount --make-rshared / || return 1
	# uid 1000's home, runtime directory (podman, runc, crun state), TMPDIR.
	mkdir -p -m 1777 "$R/tmp"
	chmod 700 "$R/run-$U"
	chown "$U:$U" "$R/home" "$R/run-$U"
	TENANT_ENV=(HOME="$R/home" XDG_RUNTIME_DIR="$R/run-$U" TMPDIR="$R/tmp"
		    XDG_CONFIG_HOME="$R/home/.config" USER="$user"
		    LOGNAME="$user")
	make_rootfs
}

# tenant CMD...: CMD as uid 1000, with its own home and runtime directory.
tenant() {
	local -x "${TENANT_ENV[@]}"
	"${AS_USER[@]}" "$@"
}

# oci_spec RUNTIME MODE LOCK: $C/bundle/config.json from the runtime's own
# "spec" (made once per runtime and mode), with: our program, no terminal,
# a writable root, CAP_SYS_ADMIN (the strongest tenant), /proc/sys writable
# (so that a write reaches the kernel), /out and /usr bound in, a user
# namespace with MODE's mappings, and the lock: a createRuntime hook
# (hook), linux.sysctl of user.perf_event_paranoid (user-sysctl) or of
# kernel.perf_event_paranoid (sysctl), or none (floor).
oci_spec() {
	local rt=$1 mode=$2 lock=$3 maps tmpl=$R/spec/$1-$2.json spec=()
	if [ "$mode" = rootless ]; then
		spec=(--rootless)
		maps="[{\"containerID\": 0, \"hostID\": $U, \"size\": 1},
		       {\"containerID\": 1, \"hostID\": $SUB_U, \"size\": $SUB_N}]"
	else
		maps="[{\"containerID\": 0, \"hostID\": $SUB_ROOT, \"size\": $SUB_N}]"
	fi
	if [ ! -e "$tmpl" ]; then
		mkdir -p "$R/spec/$rt-$mode"
		"$rt" spec "${spec[@]}" --bundle "$R/spec/$rt-$mode" &&
			mv "$R/spec/$rt-$mode/config.json" "$tmpl" || return 1
	fi
	# crun writes what its hooks print on stderr to the file an annotation
	# names; runc puts it into its own error message.
	jq --arg out "$OUT" --arg root "$ROOTFS" --arg perfns "$P" \
	   --arg lock "$lock" --argjson maps "$maps" --arg rt "$rt" \
	   --argjson hookargs "$HOOK_ARGS" '
		.process.terminal = false |
		.process.args = ["/bin/sh", "/probe.sh"] |
		.root = {path: $root, readonly: false} |
		.process.capabilities |= map_values(. + ["CAP_SYS_ADMIN"] | unique) |
		.linux.readonlyPaths -= ["/proc/sys"] |
		.mounts += [
			{destination: "/out", type: "bind", source: $out,
			 options: ["rbind", "rw"]},
			{destination: "/usr", type: "bind", source: "/usr",
			 options: ["rbind", "ro"]}] |
		.linux.namespaces |= (map(select(.type != "user")) +
				      [{type: "user"}]) |
		.linux.uidMappings = $maps | .linux.gidMappings = $maps |
		if $rt == "crun" then
			.annotations["run.oci.hooks.stderr"] = $out + "/hook.err"
		else . end |
		if $lock == "hook" then
			.hooks.createRuntime = [{path: $perfns, args: $hookargs,
						 timeout: 10}]
		elif $lock == "user-sysctl" then
			.linux.sysctl = {"user.perf_event_paranoid": "3"}
		elif $lock == "sysctl" then
			.linux.sysctl = {"kernel.perf_event_paranoid": "3"}
		else . end' "$tmpl" >"$C/bundle/config.json"
}

# lxc_config NAME PROC [LINE...]: $C/lxc/NAME/config, an unprivileged LXC
# container started by root (its ids mapped from 100000) running /probe.sh
# from $ROOTFS: no network (lxc.net.0.type = empty), no AppArmor profile,
# /out and /usr bound in, lxc.mount.auto's proc:PROC ("rw", or LXC's usual
# "mixed", which leaves /proc/sys read-only), then LINE... as given.
lxc_config() {
	local name=$1 proc=$2
	shift 2
	mkdir -p "$C/lxc/$name"
	printf '%s\n' "lxc.uts.name = $name" \
		"lxc.rootfs.path = dir:$ROOTFS" \
		"lxc.idmap = u 0 $SUB_ROOT $SUB_N" \
		"lxc.idmap = g 0 $SUB_ROOT $SUB_N" \
		"lxc.net.0.type = empty" \
		"lxc.mount.auto = proc:$proc sys:ro" \
		"lxc.mount.entry = $OUT out none bind 0 0" \
		"lxc.mount.entry = /usr usr none bind,ro 0 0" \
		"lxc.autodev = 1" "lxc.pty.max = 0" "lxc.tty.max = 0" \
		"lxc.console.path = none" \
		"lxc.apparmor.profile = unconfined" \
		"lxc.init.cmd = /bin/sh /probe.sh" "$@" >"$C/lxc/$name/config"
}

# Rootless podman as uid 1000: storage in tmpfs (vfs), cgroupfs, no network,
# no default sysctls (net.ipv4.ping_group_range needs CONFIG_INET), the hook
# from a hooks.d directory of our own, the image imported from the rootfs.
podman_setup() {
	mkdir -p "$R/hooks.d" "$R/podman" "$R/home/.config/containers"
	printf '%s\n' '{' '	"version": "1.0.0",' \
		"	\"hook\": {\"path\": \"$P\", \"args\": $HOOK_ARGS, \"timeout\": 10}," \
		'	"when": {"always": true},' \
		'	"stages": ["createRuntime"]' '}' >"$R/hooks.d/perfns.json"
	printf '%s\n' '[containers]' 'default_sysctls = []' '[engine]' \
		'cgroup_manager = "cgroupfs"' 'events_logger = "file"' \
		>"$R/home/.config/containers/containers.conf"
	printf '%s\n' '[storage]' 'driver = "vfs"' \
		"graphroot = \"$R/podman/storage\"" \
		"runroot = \"$R/run-$U/containers\"" \
		>"$R/home/.config/containers/storage.conf"
	chown -R "$U:$U" "$R/home" "$R/podman"
	# The image: the base rootfs, imported (no registry). --rootfs would
	# do for the default user namespace, but podman 4.3 requests no id
	# mapping from its storage for --userns=auto with --rootfs.
	tar -C "$R/base" -c . |
		tenant podman import - "$IMAGE" >"$R/podman/import" 2>&1 ||
		return 1
	podman_end
	PODMAN_STATE=("$R/podman/storage/vfs-containers"
		      "$R/run-$U/containers/vfs-containers")
}

# podman_args NAME: PODMAN_ARGS, "podman run" of a case's container NAME:
# detached, no network, the strongest tenant (CAP_SYS_ADMIN, /proc/sys
# unmasked, no seccomp filter, so that perf_event_open() reaches the
# kernel's check), /out and the host's /usr (perf) bound in. The image
# and its command follow, after any options of the case's own.
podman_args() {
	PODMAN_ARGS=(run --detach --name "$1" --network none
		     --cap-add SYS_ADMIN --security-opt unmask=/proc/sys
		     --security-opt seccomp=unconfined
		     -v "$OUT:/out" -v /usr:/usr:ro)
}

# End uid 1000's podman: its rootless user namespace lives on in a pause
# process after the last container (by design); the next case starts anew.
podman_end() {
	local pid
	# (pause.pid has no newline: read fails at its end, with pid set)
	read -r pid 2>/dev/null <"$R/run-$U/libpod/tmp/pause.pid"
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null; do nap 0.1; done
	echo "#   podman's rootless pause process $pid ended"
}
