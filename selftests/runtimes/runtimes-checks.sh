# SPDX-License-Identifier: GPL-2.0
# selftests/runtimes/runtimes-checks.sh - the runtimes suites' cases and
# what they check of a container that tools/lib/containers.sh started.
# Sourced after vm/lib.sh and tools/lib/containers.sh by
# selftests/runtimes/runtimes-suite, reach and native:
#
#   only_known SUITE CASE...     every name in only=() is one of CASE...
#   want CASE, want_prefix P     whether a case is among those asked for
#                                (only=(CASE...), all if empty)
#   snapshot VAR [DIR...]        processes, mounts, cgroups, state dirs
#   tree_level INODE             TL: the level perfns tree --json gives it
#   refused RESULT [floor]       whether a write's RESULT is a refusal
#   locked NAME [UID [REFUSALS]] the checks on a started, locked container
#   left NAME BEFORE [DIR...]    nothing of it left once stopped
# only=(CASE...): the cases to run, all if empty.

# only_known SUITE CASE...: every name in only=() is one of CASE...; else a
# failed test naming the cases, SUITE's count line, and exit (a misspelt
# case would otherwise run nothing and pass).
only_known() {
	local suite=$1 c
	shift
	for c in "${only[@]}"; do
		[[ " $* " == *" $c "* ]] && continue
		notok "case $c exists" "the cases: $*"
		finish "$suite"
		exit 1
	done
}

want() { # CASE: true if CASE is to run
	local c
	[ ${#only[@]} -eq 0 ] && return 0
	for c in "${only[@]}"; do
		[ "$c" = "$1" ] && return 0
	done
	return 1
}

want_prefix() { # PREFIX: true if a case named PREFIX... is to run
	local c
	[ ${#only[@]} -eq 0 ] && return 0
	for c in "${only[@]}"; do
		[[ $c == "$1"* ]] && return 0
	done
	return 1
}

# What is running and mounted, into the variable named: every process but
# kernel threads (kthreadd's children come and go) by pid and comm, every
# mount, every cgroup, the subdirectories of the runtime state directories
# given. Namespaces live as long as a process, a mount or a descriptor
# holds them: the same processes and mounts mean no namespace was left
# (and the container's own is looked for in "perfns tree" too). Builtins
# only: it runs twice per container.
snapshot() { # VAR [DIR...]
	local -n snap=$1
	local d x st rest ppid
	shift
	snap=
	for d in /proc/[0-9]*; do
		read -r st 2>/dev/null <"$d/stat" || continue
		rest=${st##*) } ppid=${rest#* } ppid=${ppid%% *}
		[ "${d#/proc/}" = 2 ] || [ "$ppid" = 2 ] && continue
		rest=${st#*(}
		snap+="proc ${d#/proc/} ${rest%)*}"$'\n'
	done
	while IFS= read -r x; do
		snap+="mount ${x#* * }"$'\n'
	done </proc/self/mountinfo
	shopt -s globstar nullglob
	for d in /sys/fs/cgroup/**/; do
		snap+="cgroup $d"$'\n'
	done
	for d in "$@"; do
		for x in "$d"/*/; do
			snap+="state $x"$'\n'
		done
	done
	shopt -u globstar nullglob
}

# tree_level INODE: the level "perfns tree --json" shows for the user
# namespace INODE ("null" if it is not in the tree), in $TL.
tree_level() {
	"$P" tree --json >"$C/tree.json" 2>"$C/tree.err"
	TL=$(jq --argjson ino "${1//[^0-9]/0}" \
		'[.. | objects | select(.id? == $ino)] | .[0].level' \
		"$C/tree.json" 2>&1)
}

# refused RESULT: true if the probe's RESULT for a write is a refusal (at
# open or at the write); FLOOR for the floor file, which a kernel may lack.
refused() {
	case $1 in
	open:EACCES|open:EPERM|EPERM|EACCES) return 0 ;;
	open:ENOENT) [ "${2:-}" = floor ] && [ ! -e "$FLOOR_FILE" ] ;;
	*) return 1 ;;
	esac
}

# locked NAME [UID [REFUSALS]]: the checks on a started container, from its
# probe's report and from the host. UID: the uid it runs as inside (0, the
# default, or an unprivileged one); REFUSALS: a pattern of the probe results
# that count as refusing its write to user.perf_event_paranoid (the
# default: the kernel's EPERM) and, besides a refusal at open or write, to
# the host's files. A runtime that keeps /proc/sys read-only, or a tenant
# with no capability, is refused before the kernel's rule is reached: its
# case names what it expects.
locked() {
	local name=$1 uid=${2:-0} pat=${3:-} ino lvl flr perf hostperf lowered who
	ino=${K[userns]:-?}
	if [ "${K[uid]:-}" = "$uid" ] && [[ $ino =~ ^[0-9]+$ ]] &&
	   [ "$ino" != "$HOST_NS" ]; then
		ok "$name: started as uid $uid in a user namespace that is not the host's ($ino)"
	else
		notok "$name: started as uid $uid in a user namespace that is not the host's" \
			"uid=${K[uid]:-?} userns=$ino (host's: $HOST_NS)"
	fi
	if [ "${K[level]:-}" = 3 ] && [ "${K[ulevel]:-}" = 3 ]; then
		ok "$name: the level reads 3 inside (kernel. and user.perf_event_paranoid)"
	else
		notok "$name: the level reads 3 inside (kernel. and user.perf_event_paranoid)" \
			"kernel.perf_event_paranoid=${K[level]:-?} user.perf_event_paranoid=${K[ulevel]:-?}"
	fi
	slurp perf "$OUT/perf"
	if [ "${K[open]:-}" = EACCES ] && [ "${K[perf_rc]:-0}" != 0 ] &&
	   [[ $perf == *perf_event_paranoid* ]]; then
		ok "$name: perf_event_open refused inside (EACCES), perf stat too"
	else
		notok "$name: perf_event_open refused inside (EACCES), perf stat too" \
			"open=${K[open]:-?} perf_rc=${K[perf_rc]:-?}" \
			"perf said: ${perf:0:300}"
	fi
	if [ -z "$pat" ]; then
		[ "${K[lower]:-}" = EPERM ]
	else
		[[ ${K[lower]:-} == @($pat) ]]
	fi
	lowered=$?
	who="the container's root"
	[ "$uid" = 0 ] || who="uid $uid inside"
	if [ $lowered = 0 ] && [ "${K[after]:-}" = 3 ] &&
	   [ "${K[uafter]:-}" = 3 ]; then
		ok "$name: $who cannot lower user.perf_event_paranoid (${K[lower]}, still 3)"
	else
		notok "$name: $who cannot lower user.perf_event_paranoid (${pat:-EPERM}, still 3)" \
			"writing below ${K[level]:-?}: ${K[lower]:-?}, level after: ${K[after]:-?} (user.: ${K[uafter]:-?})" \
			"${K[remount]:+remounting /proc/sys rw failed}"
	fi
	# The host's files, written from inside: the host's level and its
	# floor are the host's only.
	read -r flr 2>/dev/null <"$FLOOR_FILE" || flr=none
	if { refused "${K[klower]:-}" || [[ ${K[klower]:-} == @(${pat:-none}) ]]; } &&
	   { refused "${K[flower]:-}" floor || [[ ${K[flower]:-} == @(${pat:-none}) ]]; } &&
	   [ "$(level)" = 2 ] && [ "$flr" = "$FLOOR_NOW" ]; then
		ok "$name: writing kernel.perf_event_paranoid or its floor from inside is refused (${K[klower]}, ${K[flower]})"
	else
		notok "$name: writing kernel.perf_event_paranoid or its floor from inside is refused" \
			"kernel.perf_event_paranoid: ${K[klower]:-?}, kernel.perf_event_paranoid_userns: ${K[flower]:-?}" \
			"the host's level now $(level), its floor reads $flr (before: $FLOOR_NOW)"
	fi
	read -r lvl <"$LEVEL_FILE"
	if [ "$lvl" = 2 ] && "${AS_USER[@]}" perf stat -e task-clock true \
			>"$C/host-perf" 2>&1; then
		ok "$name: the host stays at 2, uid $U on the host profiles"
	else
		slurp hostperf "$C/host-perf"
		notok "$name: the host stays at 2, uid $U on the host profiles" \
			"host level $lvl; perf stat: ${hostperf:0:300}"
	fi
	tree_level "$ino"
	if [ "$TL" = 3 ]; then
		ok "$name: perfns tree shows its namespace ($ino) at 3"
	else
		notok "$name: perfns tree shows its namespace ($ino) at 3" \
			"level in perfns tree --json: $TL" "$(head -c 300 "$C/tree.err")"
	fi
}

# left NAME BEFORE [DIR...]: nothing of the container is left (BEFORE: the
# snapshot taken before it started); its namespace is gone from the tree.
left() {
	local name=$1 tries=100 now tree
	local -n was=$2
	shift 2
	while snapshot now "$@"; [ "$now" != "$was" ] && [ $tries -gt 0 ]; do
		nap 0.2
		tries=$((tries - 1))
	done
	# Absent from the tree: a match in its text will do (the ids are
	# unique; an exec of jq costs half a second here).
	TL=null
	if [ -n "${K[userns]:-}" ]; then
		"$P" tree --json >"$C/tree.json" 2>"$C/tree.err"
		slurp tree "$C/tree.json"
		[[ $tree == *"\"id\": ${K[userns]},"* ]] && TL=present
		[ -n "$tree" ] || TL="no output: $(head -c 300 "$C/tree.err")"
	fi
	if [ "$now" = "$was" ] && [ "$TL" = null ]; then
		ok "$name: nothing left behind once stopped"
	else
		mapfile -t d < <(diff <(printf %s "$was") <(printf %s "$now") |
				 grep '^[<>]' | head -20)
		notok "$name: nothing left behind once stopped" "${d[@]}" \
			"${K[userns]:+its namespace ${K[userns]} in perfns tree: $TL}"
	fi
	echo "#   ($((SECONDS - T_CASE)) s)"
}
