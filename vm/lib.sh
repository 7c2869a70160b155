# SPDX-License-Identifier: GPL-2.0
# vm/lib.sh - what the project's shell scripts share. Source it:
#
#   . "$top/vm/lib.sh"
#
# TAP and the count line
#   ok NAME                 "ok N - NAME"
#   notok NAME [DIAG...]    "not ok N - NAME", each DIAG as "#   DIAG"
#   skip NAME REASON        "ok N - NAME # SKIP REASON"
#   skip_unless_series NAME REASON
#                           the same where the kernel may lack the series;
#                           "not ok" where the caller says it has it
#                           (TEST_SERIES=1: make check's stages on the
#                           patched kernel), so a case that must run there
#                           cannot vanish as a skip
#   finish STAGE            "1..N" and "STAGE: P passed, F failed[, S skipped]";
#                           returns non-zero if anything failed
#   count_line FILE         the "P F S" of the last count line in FILE
#                           ("STAGE: P passed, F failed[, S skipped]" or the
#                           same without "STAGE: "; S is 0 when not given);
#                           nothing if FILE has none. The one parser of
#                           count lines: every script that sums them uses it
#   tap_tally FILE          the "P F S PLAN" of a TAP stream in FILE: its
#                           "ok N" lines without a "# SKIP", its "not ok N"
#                           lines, its "ok N ... # SKIP" lines and its plan
#                           "1..PLAN" (PLAN 0 if there is none)
# Stages (a command whose output ends with a count line)
#   run_logged LOG CMD...   CMD with its output in LOG, shown as it comes with
#                           VERBOSE=1; on a terminal a line with the time
#                           taken and the log's last line, rewritten while it
#                           runs. CMD's status.
#   log_counts LOG [RC]     "P F S WHY" for a stage whose output is LOG and
#                           whose command exited RC (default 0): LOG's
#                           counts, except that no count line is one
#                           failure, and so is a non-zero RC after a count
#                           line with 0 failed (a kernel report, a timeout:
#                           vm/guest/run says those only by its status).
#                           WHY, possibly empty, says which of the two
#   log_failures LOG [RC]   the "not ok" lines of LOG with their diagnostics,
#                           its last lines if it has no count line, and the
#                           lines vm/guest/run wrote if RC is not 0
# The guest
#   in_guest                true inside a guest booted by vm/guest/run
#   require_guest WHAT      exit 2 with a message outside the guest or as non-root
# Users
#   as_user CMD...          run CMD as the unprivileged test user
#                           (TEST_UID, default 1000) with no groups;
#                           AS_USER is the same as a command prefix (array)
# Consoles
#   console_text FILE       a guest's console log without its timestamps and
#                           carriage returns
# Processes
#   wait_started PID COMM [TIMEOUT]
#                           wait until PID has exec'ed COMM (default 10 s);
#                           false if it died or did not get there
# Kernels
#   kernel_image KERNEL     the image KERNEL names, as vm/guest/run --kernel
#                           takes it: a file, or a variant's name
#                           (vm/kernel/kernel-tree image NAME), relative to
#                           the top when it is under it
# kmemleak (a guest booted from the debug kernel: --kernel debug)
#   KMEMLEAK                its debugfs file
#   kmemleak_forget         scan, then forget what was found (boot's leaks)
#   kmemleak_report         wait out kmemleak's minimum object age, scan
#                           twice, print the report ("unreferenced object"
#                           records; empty if none)
# the series' code
#   series_functions        the functions the series adds or changes

tap_n=0 tap_pass=0 tap_fail=0 tap_skip=0

console_text() {
	sed 's/\r$//; s/^\[ *[0-9]*\.[0-9]*\] //' "$1"
}

ok() {
	tap_n=$((tap_n + 1)) tap_pass=$((tap_pass + 1))
	echo "ok $tap_n - $1"
}

notok() {
	tap_n=$((tap_n + 1)) tap_fail=$((tap_fail + 1))
	echo "not ok $tap_n - $1"
	shift
	[ $# -eq 0 ] || printf '#   %s\n' "$@"
}

skip() {
	tap_n=$((tap_n + 1)) tap_skip=$((tap_skip + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

skip_unless_series() {
	if [ "${TEST_SERIES:-0}" = 1 ]; then
		notok "$1" "$2, on a kernel that has the series (TEST_SERIES=1)"
	else
		skip "$1" "$2"
	fi
}

finish() {
	local line
	echo "1..$tap_n"
	line="$1: $tap_pass passed, $tap_fail failed"
	[ "$tap_skip" = 0 ] || line+=", $tap_skip skipped"
	echo "$line"
	[ "$tap_fail" = 0 ]
}

count_line() {
	awk '{ sub(/\r$/, "") }
	     match($0, /^([A-Za-z0-9_. -]+: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?/) {
		last = substr($0, RSTART, RLENGTH)
	     }
	     END {
		if (last == "")
			exit
		sub(/^[^:]*: /, "", last)
		split(last, n, /[^0-9]+/)
		print n[1], n[2], n[3] + 0
	     }' "$1"
}

tap_tally() {
	awk '/^ok [0-9]+/ { if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) s++; else p++ }
	     /^not ok [0-9]+/ { f++ }
	     /^1\.\.[0-9]+$/ && !plan { plan = substr($0, 4) }
	     END { print p + 0, f + 0, s + 0, plan + 0 }' "$1"
}

run_logged() {
	local log=$1 pid rc=0 t0=$SECONDS last
	shift
	mkdir -p "$(dirname "$log")"
	if [ "${VERBOSE:-0}" = 1 ]; then
		"$@" 2>&1 | tee "$log"
		return "${PIPESTATUS[0]}"
	fi
	"$@" > "$log" 2>&1 < /dev/null &
	pid=$!
	if [ -t 1 ]; then
		while kill -0 "$pid" 2>/dev/null; do
			last=$(grep -av '^ *$' "$log" 2>/dev/null | tail -1 | tr -d '\r' | cut -c1-56)
			printf '\r  %3d:%02d  %-60s' $(( (SECONDS - t0) / 60 )) $(( (SECONDS - t0) % 60 )) "$last"
			sleep 2
		done
		printf '\r%-72s\r' ''
	fi
	wait "$pid" || rc=$?
	return "$rc"
}

log_counts() {
	local p f sk rc=${2:-0} counts
	counts=$(count_line "$1")
	if [ -z "$counts" ]; then
		echo "0 1 0 no count line (exit status $rc)"
		return
	fi
	read -r p f sk <<<"$counts"
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "$p 1 $sk exit status $rc after its count line"
		return
	fi
	echo "$p $f $sk"
}

log_failures() {
	local rc=${2:-0}
	if [ -z "$(count_line "$1")" ]; then
		echo "# no count line; the log ends:"
		tail -15 "$1" | sed 's/^/#   /'
		return
	fi
	awk '/^not ok / { show = 1; print; next }
	     show && /^#/ { print; next }
	     { show = 0 }' "$1" | head -40
	if [ "$rc" != 0 ]; then
		echo "# the command exited $rc; what vm/guest/run said, or the log's end:"
		{ grep -a '^vm/guest/run: ' "$1" || tail -8 "$1"; } | head -12 | sed 's/^/#   /'
	fi
}

in_guest() {
	grep -q 'vmrun\.job=' /proc/cmdline 2>/dev/null
}

require_guest() {
	if ! in_guest || [ "$(id -u)" != 0 ]; then
		echo "$1: runs as root inside the guest only: vm/guest/run -- $1" >&2
		exit 2
	fi
}

AS_USER=(setpriv --reuid="${TEST_UID:-1000}" --regid="${TEST_UID:-1000}"
	--clear-groups --)

as_user() {
	"${AS_USER[@]}" "$@"
}

wait_started() {
	local pid=$1 comm=$2 tries=$(( ${3:-10} * 20 ))
	while [ "$tries" -gt 0 ]; do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$comm" ] && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
		tries=$((tries - 1))
	done
	return 1
}

kernel_image() {
	local top image
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	if [ -f "$1" ] || ! [[ $1 =~ ^[a-z0-9-]+$ ]]; then
		echo "$1"
	elif image=$("$top/vm/kernel/kernel-tree" image "$1"); then
		echo "${image#"$top"/}"
	else
		return 1
	fi
}

KMEMLEAK=/sys/kernel/debug/kmemleak

kmemleak_forget() {
	echo scan >"$KMEMLEAK"
	echo clear >"$KMEMLEAK"
}

kmemleak_report() {
	# kmemleak ignores objects younger than 5 s; objects freed from a
	# workqueue (user namespaces) get a moment more. A second scan
	# confirms what the first found.
	sleep 7
	echo scan >"$KMEMLEAK"
	sleep 1
	echo scan >"$KMEMLEAK"
	cat "$KMEMLEAK"
}

# series_functions: the functions the series adds or changes, one per line:
# every function defined in an added line of build/linux's diff against the
# base, and the function of each changed hunk (the syscalls under the names
# their stack frames have). For sorting kernel reports into the series' and
# the rest (vm/check/kcsan, vm/soak/soak).
series_functions() {
	local tree
	tree=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/linux
	git -C "$tree" diff -U0 base -- '*.c' '*.h' ':!tools' | awk '
		/^@@/ {
			ctx = $0; sub(/^@@[^@]*@@ ?/, "", ctx)
			if (match(ctx, /SYSCALL_DEFINE[0-9]\([a-z0-9_]+/)) {
				s = substr(ctx, RSTART, RLENGTH); sub(/.*\(/, "", s)
				print "__do_sys_" s; print "__se_sys_" s; print "__x64_sys_" s
			} else if (match(ctx, /[A-Za-z_][A-Za-z0-9_]*\(/)) {
				print substr(ctx, RSTART, RLENGTH - 1)
			}
			next
		}
		/^\+[A-Za-z_]/ && !/;[ \t]*$/ && match($0, /[A-Za-z_][A-Za-z0-9_]*\(/) {
			print substr($0, RSTART, RLENGTH - 1)
		}' | grep -vxE 'if|for|while|switch|return|sizeof|defined|__attribute__|EXPORT_SYMBOL[A-Z_]*|[A-Z_]+' |
		sort -u
}
