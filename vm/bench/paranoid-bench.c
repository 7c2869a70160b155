// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid-bench - what kernel.perf_event_paranoid per user namespace costs
 *
 * Runs inside a guest booted by vm/bench/bench, as root in the initial user
 * namespace, on the baseline and on the patched kernel alike, and prints
 *
 *	SAMPLE <scenario> <value> <unit>	one per repetition
 *	INFO <key> <value...>			facts about the run
 *
 * vm/bench/bench takes the medians and writes docs/benchmarks.md.
 *
 * paranoid-bench [options] icount
 *	the instruction-count scenarios (run under QEMU -icount, one vCPU)
 * paranoid-bench [options] wall
 *	the wall-clock ones, one worker per CPU (run without -icount)
 *
 * --kind baseline|patched	default: look for the series' functions in
 *				/proc/kallsyms
 * --reps N			timed repetitions per scenario (5)
 * --scale F			multiply every iteration count by F
 * --held N			namespaces held for userns_bytes (2000)
 * --held-reps N		times they are held and released (2)
 * --trace FILE			also hold 64 namespaces under the kmem
 *				trace events, copy the trace to FILE
 * --only GROUP[,GROUP...]	groups of scenarios: open, floors,
 *				kernel, sysctl, denied, getpid, create,
 *				bytes, lookup
 *
 * The level is set the way each kernel allows: with the series, by the
 * namespace's root in /proc/sys/user/perf_event_paranoid inside the
 * namespace; without it (the baseline, and the kernel with the series'
 * get_links() patches only, which vm/bench/bench runs with --kind
 * baseline), globally by the initial namespace around the child that
 * measures (and set back to 2 afterwards).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "userns_agent.h"

#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"
#define FLOOR		"/proc/sys/kernel/perf_event_paranoid_userns"
#define USER_LEVEL	"/proc/sys/user/perf_event_paranoid"
#define TRACEFS		"/sys/kernel/tracing"
#define MAX_DEPTH	32

static bool patched;
static int reps = 5;
static double scale = 1.0;
static int held_count = 2000;
static int held_reps = 2;
static const char *trace_file;
static const char *only;

/* Output: unbuffered, so that forked children never repeat a line. */
static int format(char *buf, size_t size, const char *fmt, va_list ap)
{
	int len = vsnprintf(buf, size, fmt, ap);

	return len > (int)size - 1 ? (int)size - 1 : len;
}

static void out(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = format(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (write(STDOUT_FILENO, buf, len) != len)
		_exit(3);
}

static void __attribute__((__noreturn__)) die(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = format(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (write(STDERR_FILENO, "paranoid-bench: ", 14) < 0 ||
	    write(STDERR_FILENO, buf, len) < 0 ||
	    write(STDERR_FILENO, "\n", 1) < 0)
		_exit(2);
	exit(1);
}

/* @group is one of the comma-separated groups of --only, or no --only */
static bool want(const char *group)
{
	size_t len = strlen(group);
	const char *p = only;

	if (!only)
		return true;
	while ((p = strstr(p, group))) {
		if ((p == only || p[-1] == ',') &&
		    (p[len] == ',' || p[len] == '\0'))
			return true;
		p += len;
	}
	return false;
}

static long iters(long n)
{
	long v = (long)(n * scale);

	return v > 0 ? v : 1;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int paranoid_level(void)
{
	int level, err = read_int(PARANOID, &level);

	if (err)
		die("cannot read %s: %s", PARANOID, strerror(-err));
	return level;
}

/* Write @value to the sysctl @file, or die: the run cannot go on without. */
static void set_sysctl(const char *file, const char *value)
{
	int err = write_file(file, value);

	if (err)
		die("cannot write %s to %s: %s", value, file, strerror(-err));
}

/*
 * Enter a new user namespace @depth times, each time mapping uid and gid 0
 * to the parent's 0 as "unshare --map-root-user" does: the task stays
 * GLOBAL_ROOT_UID with every capability inside, none outside.
 */
static void enter_userns(int depth)
{
	int i;

	for (i = 0; i < depth; i++)
		if (unshare_mapped())
			die("at depth %d: %s", i + 1, agent_error());
}

/*
 * Lock the current task out of perf at level 3: in its own namespace with
 * the series, or check that the initial namespace did it without.
 */
static void lock_level3(void)
{
	if (patched)
		set_sysctl(USER_LEVEL, "3");
	if (paranoid_level() != 3)
		die("level is %d, not 3", paranoid_level());
}

/* fork, run @fn in the child, wait; the global level around it if asked */
static void run_child(void (*fn)(void *), void *arg, bool global3)
{
	int status;
	pid_t pid;

	if (global3 && !patched)
		set_sysctl(PARANOID, "3");
	pid = fork();
	if (pid < 0)
		die("fork: %m");
	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid: %m");
	if (global3 && !patched)
		set_sysctl(PARANOID, "2");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die("a measuring child failed (status 0x%x)", status);
}

/* The timed loop: one sample per repetition, after a warm-up. */
typedef void (*op_fn)(void);

static void measure(const char *name, op_fn op, long n)
{
	double t0, t1;
	long i;
	int r;

	for (i = 0; i < n; i++)		/* warm-up, not counted */
		op();
	for (r = 0; r < reps; r++) {
		t0 = now_ns();
		for (i = 0; i < n; i++)
			op();
		t1 = now_ns();
		out("SAMPLE %s %.1f ns\n", name, (t1 - t0) / n);
	}
}

/* perf_event_open(2) of a user-only software event: what perf stat opens */
static struct perf_event_attr task_clock = {
	.type		= PERF_TYPE_SOFTWARE,
	.size		= sizeof(struct perf_event_attr),
	.config		= PERF_COUNT_SW_TASK_CLOCK,
	.disabled	= 1,
	.exclude_kernel	= 1,
	.exclude_hv	= 1,
};

static int perf_open(const struct perf_event_attr *attr)
{
	return syscall(SYS_perf_event_open, attr, 0, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static void open_close(const struct perf_event_attr *attr)
{
	int fd = perf_open(attr);

	if (fd < 0)
		die("perf_event_open: %m");
	close(fd);
}

static void op_open_close(void)
{
	open_close(&task_clock);
}

static int denied_errno;

static void op_open_denied(void)
{
	if (perf_open(&task_clock) >= 0 || errno != denied_errno)
		die("perf_event_open was not refused with %s: %m",
		    strerror(denied_errno));
}

static void op_sysctl_read(void)
{
	char buf[16];
	int fd = open(PARANOID, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
		die("cannot read %s: %m", PARANOID);
	close(fd);
}

static void op_getpid(void)
{
	syscall(SYS_getpid);
}

/*
 * fork(), the child exits (after unshare(CLONE_NEWUSER) if @new_userns),
 * waitpid(): the same code on both sides of userns_create - fork_exit.
 */
static void fork_exit(bool new_userns)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %m");
	if (pid == 0)
		_exit(new_userns && unshare(CLONE_NEWUSER) ? 1 : 0);
	if (waitpid(pid, &status, 0) != pid || status)
		die(new_userns ? "unshare(CLONE_NEWUSER) failed in the child" :
		    "fork child failed");
}

static void op_fork_exit(void)
{
	fork_exit(false);
}

static void op_userns_create(void)
{
	fork_exit(true);
}

/*
 * Iterations per sample at --scale 1: 9-50M instructions each, a few ticks
 * (4M instructions apart at HZ=250), whose cost the loop shares. Opening and
 * closing perf events frees them in RCU batches whose cost comes and goes
 * from one short sample to the next; 6000 of them average that out to
 * well under 1%. The wall-clock loops run on every CPU at once.
 */
#define N_OPEN		6000
#define N_SYSCTL	1500
#define N_DENIED	30000
#define N_SECCOMP	2000
#define N_GETPID	40000
#define N_FORK		400
#define N_WALL_FORK	100
#define N_WALL_SYSCTL	5000

/*
 * host_lookup_<n>: the host's open + read + close of
 * /proc/sys/kernel/perf_event_paranoid with <n> live user namespaces, each
 * of which read its level through the host's procfs once: the kernel. file
 * and, where the kernel has it, user.perf_event_paranoid. Where a name is
 * registered in each namespace's ctl_table_set, every namespace that
 * looked it up leaves a dentry of that name under the same parent, and
 * each later lookup of the name compares them all.
 */
#define N_LOOKUP_NS	2000

/* A child in a new user namespace reads its level; @fds[i] holds the ns. */
static void hold_reader(int *fd)
{
	char path[64], buf[16];
	int sv[2], status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair: %m");
	pid = fork();
	if (pid < 0)
		die("fork: %m");
	if (pid == 0) {
		close(sv[0]);
		if (unshare(CLONE_NEWUSER) ||
		    read_file(PARANOID, buf, sizeof(buf)) <= 0)
			_exit(1);
		read_file(USER_LEVEL, buf, sizeof(buf));
		/* Ready; exit once the parent holds the namespace. */
		if (write(sv[1], "r", 1) != 1 || read(sv[1], buf, 1) != 0)
			_exit(1);
		_exit(0);
	}
	close(sv[1]);
	if (read(sv[0], buf, 1) != 1)
		die("a reader in a new user namespace failed");
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		die("open %s: %m", path);
	close(sv[0]);
	if (waitpid(pid, &status, 0) != pid || status)
		die("a reader in a new user namespace failed");
}

static void host_lookup(void *arg)
{
	static int fds[N_LOOKUP_NS];
	int i;

	(void)arg;
	measure("host_lookup_0", op_sysctl_read, iters(N_SYSCTL));
	for (i = 0; i < N_LOOKUP_NS; i++)
		hold_reader(&fds[i]);
	measure("host_lookup_2000", op_sysctl_read, iters(N_SYSCTL));
	for (i = 0; i < N_LOOKUP_NS; i++)
		close(fds[i]);
}

static void at_depth(void *arg)
{
	int depth = (long)arg;
	char name[64];

	enter_userns(depth);
	if (paranoid_level() > 2)
		die("level %d at depth %d", paranoid_level(), depth);
	if (want("open")) {
		snprintf(name, sizeof(name), "open_close_d%d", depth);
		measure(name, op_open_close, iters(N_OPEN));
	}
	if (want("sysctl")) {
		snprintf(name, sizeof(name), "sysctl_read_d%d", depth);
		measure(name, op_sysctl_read, iters(N_SYSCTL));
	}
	if (depth == 1 && (want("getpid")))
		measure("getpid_d1", op_getpid, iters(N_GETPID));
}

/*
 * open_close_d<depth>_floors: the same open and close with the host's floor
 * set, which the walk reads where it ends. A floor in force must not lock
 * the task out: it is set to 2, the level in force. The baseline has no
 * floor: the same chain without it.
 */
/* The host's floor: only the series has one. */
static void set_floor(const char *value)
{
	if (patched)
		set_sysctl(FLOOR, value);
}

static void floors_at_depth(void *arg)
{
	int depth = (long)arg;
	char name[64];

	set_floor("2");
	enter_userns(depth);
	if (paranoid_level() != 2)
		die("level %d at depth %d with floors", paranoid_level(), depth);
	snprintf(name, sizeof(name), "open_close_d%d_floors", depth);
	measure(name, op_open_close, iters(N_OPEN));
}

/*
 * open_close_d<depth>_anchored: the same open and close, @depth deep, with
 * the namespace at depth 1 granted level 2 by the host (NS_PERF_PARANOID_GRANT
 * on its descriptor, opened here in the initial namespace): the walk stops
 * there and reads grant_min instead of going on to the initial namespace.
 * A kernel without grants (the baseline) runs the same chain without one.
 */
static void anchored_at_depth(void *arg)
{
	struct ns_perf_paranoid req = { .level = 2 };
	int depth = (long)arg, ready[2], go[2], fd;
	char path[64], name[64], c = 0;
	pid_t pid;

	if (pipe(ready) || pipe(go))
		die("pipe: %m");
	pid = fork();
	if (pid < 0)
		die("fork: %m");
	if (pid == 0) {
		enter_userns(1);
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			die("the granting parent went away");
		enter_userns(depth - 1);
		if (paranoid_level() != 2)
			die("level %d at depth %d anchored", paranoid_level(),
			    depth);
		snprintf(name, sizeof(name), "open_close_d%d_anchored", depth);
		measure(name, op_open_close, iters(N_OPEN));
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1)
		die("the measuring child went away");
	if (!access("/proc/sys/kernel/perf_event_paranoid_grant_min", F_OK)) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, NS_PERF_PARANOID_GRANT, &req))
			die("granting %s level 2: %m", path);
		close(fd);
	}
	if (write(go[1], &c, 1) != 1)
		die("write: %m");
	if (waitpid(pid, &fd, 0) != pid || !WIFEXITED(fd) || WEXITSTATUS(fd))
		die("the anchored measuring child failed");
}

/*
 * open_close_kernel_d<depth>: an event that counts the kernel too
 * (exclude_kernel=0), allowed at level 1, which the initial namespace is
 * set to before the chain is made (on both kernels: the chain inherits it
 * with the series). perf_event_open() then makes its level-3 check and
 * perf_allow_kernel()'s level-2 check: with the series one lookup of the
 * level serves both.
 */
static struct perf_event_attr task_clock_kernel;

static void op_open_close_kernel(void)
{
	open_close(&task_clock_kernel);
}

static void kernel_at_depth(void *arg)
{
	int depth = (long)arg;
	char name[64];

	task_clock_kernel = task_clock;
	task_clock_kernel.exclude_kernel = 0;
	enter_userns(depth);
	if (paranoid_level() != 1)
		die("level %d at depth %d, not 1", paranoid_level(), depth);
	snprintf(name, sizeof(name), "open_close_kernel_d%d", depth);
	measure(name, op_open_close_kernel, iters(N_OPEN));
}

static void denied_at_depth(void *arg)
{
	int depth = (long)arg;
	char name[64];

	enter_userns(depth);
	lock_level3();
	denied_errno = EACCES;
	snprintf(name, sizeof(name), "open_denied_d%d_level3", depth);
	measure(name, op_open_denied, iters(N_DENIED));
	if (depth == 1 && (want("getpid")))
		measure("getpid_d1_level3", op_getpid, iters(N_GETPID));
}

/*
 * The seccomp lockdown that containers use today: a filter shaped like the
 * one libseccomp generates from Docker's default profile. An architecture
 * check, the x32 check, then one comparison per allowed syscall in the
 * profile's order (each "jeq nr; ret ALLOW" pair, as libseccomp inlines the
 * return once the shared one is out of the 8-bit jump range), the rules
 * with argument checks (personality, socket, clone, clone3), and the
 * default action ERRNO(EPERM) - which is what refuses perf_event_open.
 */
struct sysent {
	int nr;
	const char *name;
};

static const struct sysent docker_allow[] = {
#include "docker-syscalls.h"
};

#define MAX_INSNS	1024
#define ARG0_LO		offsetof(struct seccomp_data, args[0])
#define ARG0_HI		(offsetof(struct seccomp_data, args[0]) + 4)
#define RET_EPERM	(SECCOMP_RET_ERRNO | EPERM)
#define RET_ENOSYS	(SECCOMP_RET_ERRNO | ENOSYS)

static struct sock_filter insns[MAX_INSNS];
static unsigned int ninsns, ncmp;

static void emit(unsigned short code, unsigned char jt, unsigned char jf,
		 unsigned int k)
{
	if (ninsns == MAX_INSNS)
		die("seccomp filter too long");
	insns[ninsns++] = (struct sock_filter)BPF_JUMP(code, k, jt, jf);
	if (BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA)
		ncmp++;
}

#define LD(k)		emit(BPF_LD | BPF_W | BPF_ABS, 0, 0, (k))
#define RET(k)		emit(BPF_RET | BPF_K, 0, 0, (k))
#define JEQ(k, t, f)	emit(BPF_JMP | BPF_JEQ | BPF_K, (t), (f), (k))
#define JGE(k, t, f)	emit(BPF_JMP | BPF_JGE | BPF_K, (t), (f), (k))
#define JSET(k, t, f)	emit(BPF_JMP | BPF_JSET | BPF_K, (t), (f), (k))

static void build_docker_filter(struct sock_fprog *prog)
{
	static const unsigned int personas[] = {
		0x0, 0x8, 0x20000, 0x20008, 0xffffffff,
	};
	unsigned int i, n = ARRAY_SIZE(personas);

	ninsns = 0;
	ncmp = 0;
	LD(offsetof(struct seccomp_data, arch));
	JEQ(AUDIT_ARCH_X86_64, 1, 0);
	RET(SECCOMP_RET_KILL_PROCESS);
	LD(offsetof(struct seccomp_data, nr));
	JGE(0x40000000, 0, 1);			/* x32 */
	RET(RET_EPERM);
	for (i = 0; i < ARRAY_SIZE(docker_allow); i++) {
		JEQ(docker_allow[i].nr, 0, 1);
		RET(SECCOMP_RET_ALLOW);
	}

	/* personality(2): a handful of personas */
	JEQ(__NR_personality, 0, 3 + 2 * n + 1);
	LD(ARG0_HI);
	JEQ(0, 0, 2 * n + 1);
	LD(ARG0_LO);
	for (i = 0; i < n; i++) {
		JEQ(personas[i], 0, 1);
		RET(SECCOMP_RET_ALLOW);
	}
	RET(RET_EPERM);

	/* socket(2): anything but AF_VSOCK */
	JEQ(__NR_socket, 0, 4);
	LD(ARG0_LO);
	JEQ(40, 0, 1);
	RET(RET_EPERM);
	RET(SECCOMP_RET_ALLOW);

	/* clone(2) without namespace flags */
	JEQ(__NR_clone, 0, 4);
	LD(ARG0_LO);
	JSET(0x7e020000, 0, 1);
	RET(RET_EPERM);
	RET(SECCOMP_RET_ALLOW);

	/* clone3(2): ENOSYS, so that libcs fall back to clone(2) */
	JEQ(__NR_clone3, 0, 1);
	RET(RET_ENOSYS);

	RET(RET_EPERM);				/* the default action */
	prog->len = ninsns;
	prog->filter = insns;
}

static void install_docker_filter(void)
{
	struct sock_fprog prog;

	build_docker_filter(&prog);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("PR_SET_NO_NEW_PRIVS: %m");
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		die("seccomp: %m");
}

static void seccomp_at_depth1(void *arg)
{
	enter_userns(1);
	install_docker_filter();
	if (paranoid_level() > 2)
		die("level %d under seccomp", paranoid_level());
	denied_errno = EPERM;
	if (want("denied"))
		measure("open_denied_d1_seccomp", op_open_denied,
			iters(N_SECCOMP));
	if (want("getpid"))
		measure("getpid_d1_seccomp", op_getpid, iters(N_GETPID));
}

/*
 * The unshare(CLONE_NEWUSER) call alone, timed in the child: the creation
 * of the namespace without its destruction (which follows the child's exit
 * in a work item) and without the fork.
 */
static int unshare_pipe[2];
static double unshare_ns;

static void op_unshare_call(void)
{
	int status;
	double t;
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %m");
	if (pid == 0) {
		t = now_ns();
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		t = now_ns() - t;
		_exit(write(unshare_pipe[1], &t, sizeof(t)) == sizeof(t) ?
		      0 : 1);
	}
	if (read(unshare_pipe[0], &t, sizeof(t)) != sizeof(t) ||
	    waitpid(pid, &status, 0) != pid || status)
		die("unshare(CLONE_NEWUSER) failed in the child");
	unshare_ns += t;
}

/*
 * fork_exit, userns_create and userns_unshare_call take turns, sample by
 * sample, so that vm/bench/bench can subtract the first from the second sample
 * by sample.
 */
static void create_loop(void *arg)
{
	static const struct {
		const char *name;
		op_fn op;
	} loops[] = {
		{ "fork_exit", op_fork_exit },
		{ "userns_create", op_userns_create },
		{ "userns_unshare_call", op_unshare_call },
	};
	long n = iters(N_FORK), i;
	unsigned int l;
	double t;
	int r;

	if (pipe(unshare_pipe))
		die("pipe: %m");
	for (l = 0; l < ARRAY_SIZE(loops); l++)
		for (i = 0; i < n; i++)		/* warm-up */
			loops[l].op();
	for (r = 0; r < reps; r++) {
		for (l = 0; l < ARRAY_SIZE(loops); l++) {
			unshare_ns = 0;
			t = now_ns();
			for (i = 0; i < n; i++)
				loops[l].op();
			t = now_ns() - t;
			if (loops[l].op == op_unshare_call)
				t = unshare_ns;		/* the call only */
			out("SAMPLE %s %.1f ns\n", loops[l].name, t / n);
		}
	}
}

/*
 * Holding user namespaces without tasks: a child enters a new namespace and
 * passes an open /proc/self/ns/user to us over a socket, then exits.
 */
static void hold_userns(int n, int *fds)
{
	int sv[2], i, status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair: %m");
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			die("fork: %m");
		if (pid == 0) {
			int fd, err;

			if (unshare(CLONE_NEWUSER))
				die("unshare(CLONE_NEWUSER) #%d: %m", i);
			fd = open("/proc/self/ns/user", O_RDONLY);
			if (fd < 0)
				die("open /proc/self/ns/user: %m");
			err = send_fd(sv[1], fd);
			if (err)
				die("sending a descriptor: %s", strerror(-err));
			_exit(0);
		}
		fds[i] = recv_fd(sv[0], -1);
		if (fds[i] < 0)
			die("receiving a descriptor: %s", strerror(-fds[i]));
		if (waitpid(pid, &status, 0) != pid || status)
			die("holding child failed");
	}
	close(sv[0]);
	close(sv[1]);
}

static void release_userns(int n, int *fds)
{
	int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

/* Let RCU callbacks and the deferred free_user_ns() work run. */
static void settle(void)
{
	int i;

	sync();
	for (i = 0; i < 5; i++)
		usleep(100 * 1000);
}

struct meminfo {
	long slab, sunreclaim, memfree, memavail;
};

static long meminfo_field(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	if (!p)
		die("no %s in /proc/meminfo", key);
	return strtol(p + strlen(key), NULL, 10);
}

static void read_meminfo(struct meminfo *m)
{
	char buf[4096];

	if (read_file("/proc/meminfo", buf, sizeof(buf)) <= 0)
		die("cannot read /proc/meminfo");
	m->slab = meminfo_field(buf, "\nSlab:");
	m->sunreclaim = meminfo_field(buf, "\nSUnreclaim:");
	m->memfree = meminfo_field(buf, "MemFree:");
	m->memavail = meminfo_field(buf, "\nMemAvailable:");
}

static void bytes_per_userns(void)
{
	struct meminfo a, b, c;
	int *fds = calloc(held_count, sizeof(int));
	int r;

	if (!fds)
		die("out of memory");
	/* Warm the caches so that the first slabs are not counted. */
	hold_userns(held_count / 8, fds);
	release_userns(held_count / 8, fds);
	for (r = 0; r < held_reps; r++) {
		settle();
		read_meminfo(&a);
		hold_userns(held_count, fds);
		settle();
		read_meminfo(&b);
		release_userns(held_count, fds);
		settle();
		read_meminfo(&c);
		out("SAMPLE userns_bytes_slab %.1f bytes\n",
		    (b.slab - a.slab) * 1024.0 / held_count);
		out("SAMPLE userns_bytes_memfree %.1f bytes\n",
		    (a.memfree - b.memfree) * 1024.0 / held_count);
		out("INFO userns_bytes held=%d slab_kB=%ld+%ld-%ld "
		    "sunreclaim_kB=%ld+%ld memfree_kB=%ld-%ld "
		    "memavail_kB=%ld-%ld\n",
		    held_count, a.slab, b.slab - a.slab, b.slab - c.slab,
		    a.sunreclaim, b.sunreclaim - a.sunreclaim,
		    a.memfree, a.memfree - b.memfree,
		    a.memavail, a.memavail - b.memavail);
	}
	free(fds);
}

/*
 * The allocation breakdown: the kmem trace events while a few namespaces
 * are created and held. vm/bench/bench matches allocations with frees and
 * reports what is still allocated per namespace, by call site and size.
 */
static void trace_userns(const char *file)
{
	static const char * const events[] = {
		"kmem/kmalloc", "kmem/kmem_cache_alloc",
		"kmem/kfree", "kmem/kmem_cache_free",
	};
	const int n = 64;
	int fds[64], i, in, outfd;
	char path[256], buf[65536];
	ssize_t len;

	if (access(TRACEFS "/trace", F_OK) &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		die("cannot mount tracefs: %m");
	hold_userns(n, fds);			/* warm up */
	release_userns(n, fds);
	settle();
	write_file(TRACEFS "/tracing_on", "0");
	if (write_file(TRACEFS "/buffer_size_kb", "16384"))
		die("cannot size the trace buffer");
	write_file(TRACEFS "/trace", "");
	for (i = 0; i < (int)ARRAY_SIZE(events); i++) {
		snprintf(path, sizeof(path), TRACEFS "/events/%s/enable",
			 events[i]);
		if (write_file(path, "1"))
			die("cannot enable %s", events[i]);
	}
	write_file(TRACEFS "/tracing_on", "1");
	hold_userns(n, fds);
	settle();
	write_file(TRACEFS "/tracing_on", "0");
	for (i = 0; i < (int)ARRAY_SIZE(events); i++) {
		snprintf(path, sizeof(path), TRACEFS "/events/%s/enable",
			 events[i]);
		write_file(path, "0");
	}

	in = open(TRACEFS "/trace", O_RDONLY);
	outfd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || outfd < 0)
		die("cannot copy the trace to %s: %m", file);
	dprintf(outfd, "# held %d\n", n);
	while ((len = read(in, buf, sizeof(buf))) > 0)
		if (write(outfd, buf, len) != len)
			die("write %s: %m", file);
	close(in);
	close(outfd);
	if (read_file(TRACEFS "/per_cpu/cpu0/stats", buf, sizeof(buf)) > 0 &&
	    strstr(buf, "overrun: ") && atol(strstr(buf, "overrun: ") + 9))
		die("the trace buffer overran");
	write_file(TRACEFS "/trace", "");
	write_file(TRACEFS "/buffer_size_kb", "64");
	release_userns(n, fds);
	out("INFO trace %s held=%d\n", file, n);
}

/* Wall clock: one worker per CPU doing the same loop at the same time. */
static void wall(const char *name, op_fn op, long n, int depth)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int go[2], w, r, status;
	double t0, t1;
	pid_t pid;
	char c;

	for (r = 0; r < reps; r++) {
		if (pipe(go))
			die("pipe: %m");
		for (w = 0; w < ncpu; w++) {
			pid = fork();
			if (pid < 0)
				die("fork: %m");
			if (pid == 0) {
				long i;

				close(go[1]);
				enter_userns(depth);
				for (i = 0; i < n / 10 + 1; i++)
					op();
				if (read(go[0], &c, 1) != 0)
					_exit(1);
				for (i = 0; i < n; i++)
					op();
				_exit(0);
			}
		}
		close(go[0]);
		usleep(200 * 1000);		/* let them warm up */
		t0 = now_ns();
		close(go[1]);
		for (w = 0; w < ncpu; w++)
			if (wait(&status) < 0 || status)
				die("a %s worker failed", name);
		t1 = now_ns();
		out("SAMPLE %s %.1f ns\n", name, (t1 - t0) / (n * ncpu));
	}
}

static bool detect_patched(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256];
	bool found = false;

	if (!f)
		die("cannot read /proc/kallsyms: %m");
	/* The series' functions, under the names it has had. */
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " perf_userns_init\n") ||
			strstr(line, " perf_paranoid_level\n") ||
			strstr(line, " perf_event_paranoid\n");
	fclose(f);
	return found;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: paranoid-bench [--kind baseline|patched] [--reps N]\n"
		"         [--scale F] [--held N] [--held-reps N]\n"
		"         [--trace FILE] [--only GROUP] icount|wall\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *kind = NULL, *mode;
	struct rlimit rl;
	struct sock_fprog prog;
	char release[128] = "?";
	int i;

	for (i = 1; i < argc - 1; i += 2) {
		if (!strcmp(argv[i], "--kind"))
			kind = argv[i + 1];
		else if (!strcmp(argv[i], "--reps"))
			reps = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--scale"))
			scale = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--held"))
			held_count = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--held-reps"))
			held_reps = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--trace"))
			trace_file = argv[i + 1];
		else if (!strcmp(argv[i], "--only"))
			only = argv[i + 1];
		else
			usage();
	}
	if (i != argc - 1 || reps < 1 || scale <= 0 || held_count < 1 ||
	    held_reps < 1)
		usage();
	mode = argv[i];
	if (geteuid() != 0)
		die("run as root in the guest");
	patched = kind ? !strcmp(kind, "patched") : detect_patched();
	if (kind && !patched && strcmp(kind, "baseline"))
		usage();
	if (paranoid_level() != 2)
		die("the initial namespace is at level %d, not 2",
		    paranoid_level());

	/* Enough descriptors to hold the namespaces. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_max < (rlim_t)held_count + 64)
			rl.rlim_max = held_count + 64;
		if (rl.rlim_max < N_LOOKUP_NS + 64)
			rl.rlim_max = N_LOOKUP_NS + 64;
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			die("setrlimit: %m");
	}

	read_file("/proc/sys/kernel/osrelease", release, sizeof(release));
	release[strcspn(release, "\n")] = '\0';
	build_docker_filter(&prog);
	out("INFO kind %s\n", patched ? "patched" : "baseline");
	out("INFO uname_r %s\n", release);
	out("INFO cpus %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	out("INFO seccomp_filter insns=%u comparisons=%u allow_list=%zu\n",
	    prog.len, ncmp, ARRAY_SIZE(docker_allow));

	if (!strcmp(mode, "icount")) {
		if (want("open") || want("sysctl") || want("getpid")) {
			run_child(at_depth, (void *)1L, false);
			run_child(at_depth, (void *)(long)MAX_DEPTH, false);
		}
		if (want("floors")) {
			run_child(floors_at_depth, (void *)1L, false);
			set_floor("-1");	/* no floor */
			run_child(floors_at_depth, (void *)(long)MAX_DEPTH,
				  false);
			set_floor("-1");	/* no floor */
		}
		if (want("anchored"))
			run_child(anchored_at_depth, (void *)(long)MAX_DEPTH,
				  false);
		if (want("kernel")) {
			set_sysctl(PARANOID, "1");
			run_child(kernel_at_depth, (void *)1L, false);
			run_child(kernel_at_depth, (void *)(long)MAX_DEPTH,
				  false);
			set_sysctl(PARANOID, "2");
		}
		if (want("denied") || want("getpid")) {
			run_child(denied_at_depth, (void *)1L, true);
			if (want("denied"))
				run_child(denied_at_depth,
					  (void *)(long)MAX_DEPTH, true);
			run_child(seccomp_at_depth1, NULL, false);
		}
		if (want("create"))
			run_child(create_loop, NULL, false);
		if (want("lookup"))
			run_child(host_lookup, NULL, false);
		if (want("bytes"))
			bytes_per_userns();
		if (trace_file)
			trace_userns(trace_file);
	} else if (!strcmp(mode, "wall")) {
		if (want("create")) {
			wall("userns_create_wall", op_userns_create,
			     iters(N_WALL_FORK), 0);
			wall("fork_exit_wall", op_fork_exit,
			     iters(N_WALL_FORK), 0);
		}
		if (want("sysctl"))
			wall("sysctl_read_d1_wall", op_sysctl_read,
			     iters(N_WALL_SYSCTL), 1);
	} else {
		usage();
	}
	if (paranoid_level() != 2)
		die("the initial namespace was left at level %d",
		    paranoid_level());
	out("INFO done\n");
	return 0;
}
