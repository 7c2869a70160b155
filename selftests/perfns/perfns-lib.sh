# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/perfns-lib.sh - sourced by perfns-suite,
# perfns-suite-baseline and perfns-suite-scale.
#
# TAP lines "ok N - name" / "not ok N - name", diagnostics as "# ...", and
# at the end "STAGE: N passed, M failed[, K skipped]".

export LC_ALL=C HOME=/tmp
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# The project's shared helpers (TAP lines, the count line, the guest
# guard, the unprivileged user); what is only ours stays below.
. "$top/vm/lib.sh"
P=${PERFNS_BIN:-$top/build/bin/perfns}
# The hostile tenant's helper (selftests/perfns/tenant.c, built by make tools).
TENANT=${PERFNS_TENANT:-$(dirname "$(dirname "$P")")/selftests/perfns/tenant}
# The host's floor; the global level file (in a namespace other than the
# initial one it reads the reader's level); each namespace's own copy.
FLOOR_FILE=/proc/sys/kernel/perf_event_paranoid_userns
FILE=/proc/sys/kernel/perf_event_paranoid
USER_FILE=/proc/sys/user/perf_event_paranoid
PY=/usr/bin/python3
TEST_UID=${TEST_UID:-1000}
as_user=(setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --clear-groups --)
# root without CAP_SYS_ADMIN, but with CAP_SYS_PTRACE: it sees every
# namespace, and may enter only those that uid 0 owns.
no_admin=(setpriv --bounding-set=-sys_admin --)

pids=()

# These tests write perf_event_paranoid: only ever in the QEMU guest.
guard_guest() {
	require_guest "$0"
	if [ ! -x "$P" ] || [ ! -x "$TENANT" ]; then
		echo "$0: no perfns binary at $P or tenant helper at $TENANT" \
		     "(make tools)" >&2
		exit 2
	fi
}

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# Command output goes through files in $T; read back without a fork: every
# process costs under TCG.
T=$(mktemp -d /tmp/perfns-tests.XXXXXX)

slurp() { # VAR FILE: FILE's text without trailing newlines, like $(cat)
	local -n var=$1
	IFS= read -r -d '' var <"$2"
	while [[ $var == *$'\n' ]]; do
		var=${var%$'\n'}
	done
}

# run CMD...: OUT, ERR and RC of CMD
run() {
	"$@" >"$T/out" 2>"$T/err" </dev/null
	RC=$?
	slurp OUT "$T/out"
	slurp ERR "$T/err"
}

# runin INPUT CMD...: run with INPUT on stdin
runin() {
	local in=$1
	shift
	printf '%s' "$in" >"$T/in"
	"$@" <"$T/in" >"$T/out" 2>"$T/err"
	RC=$?
	slurp OUT "$T/out"
	slurp ERR "$T/err"
}

pass() {
	ok "$1"
}

# fail NAME [DIAG...]: not ok, with the last command's status and output
fail() {
	notok "$@"
	printf '#   exit status %s\n' "${RC:-?}"
	[ -z "${OUT:-}" ] || printf '#   stdout: %s\n' "${OUT//$'\n'/$'\n#           '}"
	[ -z "${ERR:-}" ] || printf '#   stderr: %s\n' "${ERR//$'\n'/$'\n#           '}"
}

# tcase NAME RC OUT_RE ERR_RE CMD...: run CMD and check its exit status,
# stdout and stderr against extended regular expressions matched on the
# whole text ('' means: must be empty, '*' means: anything).
tcase() {
	local name=$1 rc=$2 ore=$3 ere=$4
	shift 4
	run "$@"
	check_last "$name" "$rc" "$ore" "$ere"
}

# tcasein NAME INPUT RC OUT_RE ERR_RE CMD...: the same, INPUT on stdin
tcasein() {
	local name=$1 in=$2 rc=$3 ore=$4 ere=$5
	shift 5
	runin "$in" "$@"
	check_last "$name" "$rc" "$ore" "$ere"
}

matches() { # TEXT RE
	case $2 in
	'*') return 0 ;;
	'') [ -z "$1" ] ;;
	*) [[ $1 =~ $2 ]] ;;
	esac
}

check_last() {
	local name=$1 rc=$2 ore=$3 ere=$4
	if [ "$rc" != '*' ] && [ "$RC" != "$rc" ]; then
		fail "$name" "expected exit status $rc"
	elif ! matches "$OUT" "$ore"; then
		fail "$name" "stdout does not match: $ore"
	elif ! matches "$ERR" "$ere"; then
		fail "$name" "stderr does not match: $ere"
	else
		pass "$name"
	fi
}

# ok_if NAME CMD...: passes when CMD succeeds (OUT/ERR/RC kept for diags)
ok_if() {
	local name=$1
	shift
	if "$@"; then
		pass "$name"
	else
		fail "$name" "failed: $*"
	fi
}

# qre TEXT: TEXT as an extended regular expression matching itself
qre() {
	local s=$1 out= c i
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		[][\\.*^\$+?\(\)\{\}\|]) out+="\\$c" ;;
		*) out+=$c ;;
		esac
	done
	printf '%s' "$out"
}

userns_of() { readlink "/proc/$1/ns/user" 2>/dev/null; }

# spawn CMD...: start CMD in the background; SPAWNED is its pid once it is
# in a user namespace other than ours and has exec'ed sleep.
spawn() {
	local me i
	me=$(userns_of $$)
	"$@" </dev/null >/dev/null 2>&1 &
	SPAWNED=$!
	pids+=("$SPAWNED")
	for i in $(seq 200); do
		if [ "$(userns_of "$SPAWNED")" != "$me" ] &&
		   [ "$(cat "/proc/$SPAWNED/comm" 2>/dev/null)" = sleep ]; then
			return 0
		fi
		sleep 0.05
	done
	echo "# spawn: $* did not start" >&2
	return 1
}

# pid_of PATTERN: the newest process whose command line matches
pid_of() {
	local i p
	for i in $(seq 200); do
		p=$(pgrep -n -f "$1") && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = sleep ] &&
			{ pids+=("$p"); echo "$p"; return 0; }
		sleep 0.05
	done
	return 1
}

# A Python one-off on the JSON in $OUT: the Python code given sees
# the parsed document as 'doc' and must not raise.
json_ok() {
	PYCODE=$1 "$PY" -c '
import json, os, sys
doc = json.loads(sys.stdin.read())
def walk(nodes):
    for n in nodes:
        yield n
        yield from walk(n["children"])
def by_pid(pid):
    for n in walk(doc["namespaces"]):
        if any(p["pid"] == pid for p in n["processes"]):
            return n
    raise SystemExit("no namespace with pid %d" % pid)
def by_id(i):
    for n in walk(doc["namespaces"]):
        if n["id"] == i:
            return n
    raise SystemExit("no namespace %d" % i)
exec(os.environ["PYCODE"])
' <<<"$OUT"
}

ns_id() { userns_of "$1" | tr -dc 0-9; }

# wait_line FILE RE [SECONDS]: until a line of FILE matches RE (default 20 s)
wait_line() {
	local i
	for ((i = 0; i < ${3:-20} * 20; i++)); do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "# wait_line: no line matching $2 in $1" >&2
	return 1
}

# fl FLOOR: the floor column of the initial namespace's tree row (the only
# row that has one) when the kernel has the floor ("none" when the floor
# file reads -1)
fl() {
	[ -z "${HAVE_FLOOR:-}" ] || printf '  floor: %s' "$1"
}

# stop_farm PID: kill the tenant's farm and wait until its processes (which
# die with it) are reaped, so that what lists namespaces next does not catch
# some of them on their way out.
stop_farm() {
	local farm=$1 kids p i
	kids=$(pgrep -P "$farm")
	kill "$farm"
	wait "$farm" 2>/dev/null
	for p in $kids; do
		for ((i = 0; i < 600; i++)); do
			[ -e "/proc/$p" ] || break
			sleep 0.05
		done
	done
}

# farm_tree NPROC DEPTH [text]: NPROC tenant processes, each at the bottom
# of a chain of DEPTH user namespaces of its own, listed by inode number by
# the tenant's helper; tree (--json, and the text with "text") must list
# every one, once, with its level, under a limit of 64 open descriptors
# (one child reads a whole chain; with fewer descriptors, shorter ones).
farm_tree() {
	local np=$1 depth=$2 want=$(($1 * $2)) maxns farm t0 t1
	maxns=$(cat /proc/sys/user/max_user_namespaces)
	echo $((want * 2 + 1000)) >/proc/sys/user/max_user_namespaces
	t0=$EPOCHREALTIME
	"$TENANT" farm "$np" "$depth" >"$T/farm" 2>"$T/farm.err" &
	farm=$!
	pids+=($farm)
	wait_line "$T/farm" '^ready$' 600
	t1=$EPOCHREALTIME
	grep -E '^[0-9]+$' "$T/farm" | sort -u >"$T/farm.ids"
	echo "# farm: $(wc -l <"$T/farm.ids") namespaces made in $(( (${t1/./} - ${t0/./}) / 1000 )) ms"
	ok_if "the tenant made $want namespaces" \
		[ "$(wc -l <"$T/farm.ids")" = "$want" ]
	t0=$EPOCHREALTIME
	bash -c "ulimit -n 64 && exec $P tree --json" >"$T/farmtree" \
		2>"$T/err" </dev/null
	RC=$?
	t1=$EPOCHREALTIME
	OUT= ERR=$(cat "$T/err")
	echo "# tree --json over $want more namespaces, ulimit -n 64: $(( (${t1/./} - ${t0/./}) / 1000 )) ms, exit $RC"
	ok_if "tree --json over $want namespaces with 64 descriptors succeeds" \
		eval '[ "$RC" = 0 ] && [ -z "$ERR" ]'
	ok_if "... and lists every one of them, once, with its level" \
		env FARM_IDS="$T/farm.ids" H="$H" DEPTH="$depth" "$PY" -c '
import json, os, sys
doc = json.load(open(sys.argv[1]))
want = set(int(l) for l in open(os.environ["FARM_IDS"]))
seen = {}
def walk(ns):
    for n in ns:
        seen[n["id"]] = seen.get(n["id"], 0) + 1
        if n["id"] in want:
            assert n["level"] == int(os.environ["H"]), n
            assert n["owner_uid"] == 0, n
            assert 1 <= n["depth"] <= int(os.environ["DEPTH"]), n
        walk(n["children"])
walk(doc["namespaces"])
missing = want - set(seen)
assert not missing, "%d missing" % len(missing)
assert all(c == 1 for c in seen.values())
' "$T/farmtree"
	if [ "${3:-}" = text ]; then
		bash -c "ulimit -n 64 && exec $P tree" >"$T/farmtree" \
			2>"$T/err" </dev/null
		RC=$?
		ERR=$(cat "$T/err")
		ok_if "tree (text) lists every one of them, and succeeds" \
			env FARM_IDS="$T/farm.ids" RC=$RC ERR="$ERR" "$PY" -c '
import os, re, sys
assert os.environ["RC"] == "0" and not os.environ["ERR"], os.environ["ERR"]
want = set(l.strip() for l in open(os.environ["FARM_IDS"]))
rows = [re.match(r"^[|` -]*([0-9]+)", l).group(1) for l in open(sys.argv[1])
	if re.match(r"^[|` -]*[0-9]+ ", l)]
assert want <= set(rows), len(want - set(rows))
assert len(rows) == len(set(rows))
' "$T/farmtree"
	fi
	stop_farm "$farm"
	echo "$maxns" >/proc/sys/user/max_user_namespaces
}
