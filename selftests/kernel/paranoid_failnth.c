// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_failnth - every allocation of the series' paths made to fail
 *
 * With /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION), failslab and
 * fail_page_alloc, the n-th allocation of one system call fails, for
 * n = 1, 2, ... until the call makes fewer than n allocations and succeeds
 * untouched. Each failure must be the call's documented error, change
 * nothing that can be read back and leave no report on the kernel log; at
 * the end kmemleak must find no object left behind. The calls:
 *
 *   unshare(CLONE_NEWUSER) from the initial namespace, and from a namespace
 *   raised to level 3 (the new namespace must then start at 3): the
 *   namespace and its user.* sysctl table, user.perf_event_paranoid among
 *   them;
 *   write(2) of user.perf_event_paranoid in a namespace (raise 2 -> 3), of
 *   kernel.perf_event_paranoid in the initial namespace (2 -> 1) and of
 *   every other /proc/sys/kernel/perf_event_paranoid* file there (its own
 *   value written back);
 *   write(2) of kernel.perf_event_paranoid and of every other
 *   /proc/sys/kernel/perf_event_paranoid* file in a namespace, which must be
 *   refused with EPERM when no allocation failed.
 *
 * unshare(CLONE_NEWUSER) documents ENOMEM for a failed allocation. Two
 * other errors come from a failed allocation in code the series does not
 * touch, and are accepted for unshare too: ENOSPC when the ucounts of the
 * namespace's owner cannot be allocated (inc_ucount() does not tell that
 * from the namespace limit), EAGAIN when set_cred_ucounts() cannot
 * allocate the new credentials' ucounts (kernel/cred.c). The writes must
 * fail with ENOMEM (or EPERM, the refused ones).
 *
 * A cmocka program (harness.h): one test per sweep of a call, the files
 * found at run time adding theirs, between a test that sets up the fault
 * injection knobs and kmemleak and one that asks kmemleak what is left.
 * Each attempt runs in a forked child that makes no cmocka call: it reports
 * to the parent through a shared page and its exit status, and the parent
 * asserts. Runs as root in a guest booted on the debug kernel (it
 * changes the fault injection knobs in debugfs and the host's level):
 *
 *   vm/guest/run --kernel debug -- selftests/kernel/run-suites paranoid_failnth
 *
 * SELFTESTS_ONLY selects sweeps by name (each sets up fault injection
 * itself); the kmemleak test needs kmemleak_is_cleared to have run first.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define DEBUGFS		"/sys/kernel/debug"
#define KMEMLEAK	DEBUGFS "/kmemleak"
#define MAX_NTH		4000	/* no path of these makes that many */

/* --- the kernel log: anything a WARN, BUG or lockdep splat prints ------ */

static int kmsg = -1;

static void kmsg_open(void)
{
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
}

/* The number of report lines logged since the last call (shown). */
static int kmsg_reports(void)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "Oops", "Call Trace", "circular locking",
		"suspicious RCU usage", "UBSAN:", "memory leak", "refcount_t",
	};
	char rec[2048];
	int found = 0;
	ssize_t n;
	size_t i;

	if (kmsg < 0)
		return 0;
	for (;;) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			if (strstr(rec, bad[i])) {
				if (found++ < 5)
					diag("kernel log: %.*s",
					     (int)strcspn(rec, "\n"), rec);
				break;
			}
		}
	}
	return found;
}

/* --- one call with its n-th allocation failing, in a child ------------- */

/*
 * What the child reports. Levels can be negative: what it reads back comes
 * with the read's result apart.
 */
struct outcome {
	int setup;		/* 0, or -errno of the child's set-up... */
	const char *step;	/* ...and the step that failed */
	int ret;		/* the call's result: 0 or -errno */
	int left;		/* fail-nth after the call: > 0 if nothing failed */
	int nread;		/* the files read back after the call */
	const char *path[2];
	int err[2];		/* read_int(): 0 or -errno */
	int value[2];
};

/*
 * An operation: set up (unarmed), then the call between arm() and
 * disarm(); fills @o. Runs in a forked child that exits afterwards, so it
 * never asserts. Pointers it leaves in @o (string constants, the
 * operation's arguments) are the parent's too.
 */
typedef void (*op_fn)(const void *arg, int nth_fd, int n, struct outcome *o);

static void setup_failed(struct outcome *o, int err, const char *step)
{
	o->setup = err;
	o->step = step;
}

static void read_back(struct outcome *o, const char *path)
{
	int i = o->nread++;

	o->path[i] = path;
	o->err[i] = read_int(path, &o->value[i]);
}

static int arm(int fd, int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	return pwrite(fd, buf, len, 0) == len ? 0 : -errno;
}

/* Right after the call: fail-nth left (0 if the n-th allocation failed). */
static int disarm(int fd)
{
	char buf[16];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	int left;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	left = atoi(buf);
	pwrite(fd, "0", 1, 0);
	return left;
}

/*
 * The signals cmocka catches while a test runs: its handler would jump back
 * into the test runner, in the child.
 */
static const int cmocka_signals[] = { SIGFPE, SIGILL, SIGSEGV, SIGBUS, SIGSYS };

/*
 * Run @fn with the @n-th allocation of its call failing, in a child that
 * fills *@o through a shared page. Returns the child's wait status, or
 * -errno if there was no child.
 */
static int run_nth(op_fn fn, const void *arg, int n, struct outcome *o)
{
	struct outcome *shared;
	int status, fd, err;
	size_t i;
	pid_t pid;

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -errno;
	memset(shared, 0, sizeof(*shared));
	setup_failed(shared, -ECHILD, "the child's start");
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		munmap(shared, sizeof(*shared));
		return err;
	}
	if (pid == 0) {
		struct outcome mine = { 0 };

		for (i = 0; i < ARRAY_SIZE(cmocka_signals); i++)
			signal(cmocka_signals[i], SIG_DFL);
		/*
		 * Fault every page in now: a page fault of this process
		 * between arm() and disarm() would take the n-th allocation,
		 * and failing it kills the process instead of failing a call.
		 */
		if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
			setup_failed(shared, -errno, "mlockall()");
			_exit(1);
		}
		fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			setup_failed(shared, -errno, FAIL_NTH);
			_exit(1);
		}
		fn(arg, fd, n, &mine);
		*shared = mine;
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err = -errno;
			munmap(shared, sizeof(*shared));
			return err;
		}
	}
	*o = *shared;
	munmap(shared, sizeof(*shared));
	return status;
}

/* --- the operations ----------------------------------------------------- */

struct unshare_arg {
	int depth;	/* 1: from the initial namespace; 2: from a child */
	int parent_level;	/* level set on the parent first (depth 2) */
};

static void op_unshare(const void *varg, int fd, int n, struct outcome *o)
{
	const struct unshare_arg *arg = varg;
	int err;

	if (arg->depth == 2) {
		/*
		 * The owner of a namespace must be mapped in its parent: map
		 * our uid and gid 0 to themselves (the one mapping a process
		 * may write for itself), then raise the parent.
		 */
		err = unshare_mapped();
		if (err) {
			setup_failed(o, err, "unshare_mapped()");
			return;
		}
		err = write_int(USER_PATH, arg->parent_level);
		if (err) {
			setup_failed(o, err, "raising the parent namespace");
			return;
		}
	}
	err = arm(fd, n);
	if (err) {
		setup_failed(o, err, "arming " FAIL_NTH);
		return;
	}
	o->ret = unshare(CLONE_NEWUSER) ? -errno : 0;
	o->left = disarm(fd);
	/*
	 * The level this task sees now, the new namespace's if it exists:
	 * kernel.perf_event_paranoid shows the reader's, and the new
	 * namespace's user.perf_event_paranoid must show the same.
	 */
	read_back(o, PARANOID_PATH);
	read_back(o, USER_PATH);
}

/* Created or not, the task sees the level it inherits. */
static int expect_unshare(const void *varg, const struct outcome *o)
{
	const struct unshare_arg *arg = varg;

	(void)o;
	return arg->depth == 2 ? arg->parent_level : HOST_LEVEL;
}

struct write_arg {
	const char *path;
	int in_userns;	/* write from a new user namespace */
	int before, after;	/* value before; value written */
	int refused;	/* refused with EPERM when nothing failed */
};

static void op_write(const void *varg, int fd, int n, struct outcome *o)
{
	const struct write_arg *arg = varg;
	char buf[16];
	int wfd, err;
	ssize_t w;

	if (arg->in_userns && unshare(CLONE_NEWUSER)) {
		setup_failed(o, -errno, "unshare(CLONE_NEWUSER)");
		return;
	}
	wfd = open(arg->path, O_WRONLY | O_CLOEXEC);
	if (wfd < 0) {
		setup_failed(o, -errno, "opening the file for writing");
		return;
	}
	snprintf(buf, sizeof(buf), "%d\n", arg->after);
	err = arm(fd, n);
	if (err) {
		setup_failed(o, err, "arming " FAIL_NTH);
		return;
	}
	w = write(wfd, buf, strlen(buf));
	o->ret = w < 0 ? -errno : 0;
	o->left = disarm(fd);
	if (w >= 0 && (size_t)w != strlen(buf))
		o->ret = -EMSGSIZE;	/* a short write: not the contract */
	close(wfd);
	read_back(o, arg->path);
}

/* Written whole, or not at all; a refused write never. */
static int expect_write(const void *varg, const struct outcome *o)
{
	const struct write_arg *arg = varg;

	return o->ret || arg->refused ? arg->before : arg->after;
}

static void reset_host(void)
{
	write_int(PARANOID_PATH, HOST_LEVEL);
}

/* --- a sweep: one cmocka test ------------------------------------------- */

struct sweep {
	const char *name;	/* the test's */
	const char *what;	/* the call, in the diagnostics */
	op_fn op;
	const void *arg;
	/* What a failed allocation may make the call return (0-terminated). */
	const int *errs;
	int clean;		/* what it returns when nothing failed */
	/* The level each file read back after the call must show. */
	int (*expect)(const void *arg, const struct outcome *o);
	void (*reset)(void);	/* after each call, in the parent */
};

/*
 * Make the n-th allocation of @s's call fail, n = 1, 2, ... until the call
 * makes fewer than n allocations; fails the test at the first n that
 * breaks a rule, showing it.
 */
static void sweep(const struct sweep *s)
{
	int n, i, want, errs[8] = { 0 }, counts[8] = { 0 }, tolerated = 0;
	struct outcome o;
	char line[256];
	size_t len;

	for (n = 1; n <= MAX_NTH; n++) {
		int status = run_nth(s->op, s->arg, n, &o);
		int reports = kmsg_reports();

		if (s->reset)
			s->reset();
		if (status < 0) {
			diag("%s, allocation %d: no child: %s", s->what, n,
			     ret_str(status));
			fail();
		}
		if (WIFSIGNALED(status)) {
			diag("%s, allocation %d: the child was killed by signal %d (%s)",
			     s->what, n, WTERMSIG(status),
			     strsignal(WTERMSIG(status)));
			fail();
		}
		if (o.setup) {
			diag("%s, allocation %d: the child's set-up failed: %s: %s",
			     s->what, n, o.step, ret_str(o.setup));
			fail();
		}
		if (reports) {
			diag("%s, allocation %d failed: %d report(s) in the kernel log",
			     s->what, n, reports);
			fail();
		}
		want = s->expect(s->arg, &o);
		for (i = 0; i < o.nread; i++) {
			if (o.err[i]) {
				diag("%s, allocation %d: reading %s after the call: %s",
				     s->what, n, o.path[i], ret_str(o.err[i]));
				fail();
			}
			if (o.value[i] != want) {
				diag("%s, allocation %d: the call returned %s, %s reads %d, expected %d",
				     s->what, n, ret_str(o.ret), o.path[i],
				     o.value[i], want);
				fail();
			}
		}
		if (o.left > 0) {
			/* Fewer than n allocations: nothing was failed. */
			if (o.ret != s->clean) {
				diag("%s: returns %s with no injected failure, expected %s",
				     s->what, ret_str(o.ret),
				     ret_str(s->clean));
				fail();
			}
			break;
		}
		if (o.left < 0) {
			diag("%s: cannot read %s back", s->what, FAIL_NTH);
			fail();
		}
		if (o.ret == s->clean) {
			/* An allocation failed and made no difference. */
			tolerated++;
			continue;
		}
		for (i = 0; s->errs[i] && s->errs[i] != o.ret; i++)
			;
		if (!s->errs[i]) {
			diag("%s, allocation %d failed: the call returned %s, not one of its documented errors",
			     s->what, n, ret_str(o.ret));
			fail();
		}
		for (i = 0; i < 8 && errs[i] && errs[i] != o.ret; i++)
			;
		if (i < 8) {
			errs[i] = o.ret;
			counts[i]++;
		}
	}
	if (n > MAX_NTH) {
		diag("%s: still failing after %d allocations", s->what,
		     MAX_NTH);
		fail();
	}
	len = snprintf(line, sizeof(line),
		       "%s: %d allocation(s), failing each:", s->what, n - 1);
	for (i = 0; i < 8 && errs[i] && len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s x%d",
				strerrorname_np(-errs[i]) ?: "?", counts[i]);
	if (tolerated && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len,
			 " success x%d (failure absorbed)", tolerated);
	diag("%s", line);
	/* Every one of these calls allocates: else fail-nth missed it. */
	if (n == 1) {
		diag("%s: no allocation failed: is fault injection set up?",
		     s->what);
		fail();
	}
}

static void sweep_test(void **state)
{
	sweep(*state);
}

/*
 * A file of /proc/sys/kernel/perf_event_paranoid*, other than the level,
 * found at run time: its own value written back in the initial namespace,
 * or that value + 1 from a namespace (refused).
 */
struct file_sweep {
	struct sweep s;
	struct write_arg w;
};

static void file_sweep_test(void **state)
{
	const struct file_sweep *f = *state;
	struct write_arg w = f->w;
	struct sweep s = f->s;

	assert_ret(read_int(w.path, &w.before), 0);
	w.after = w.in_userns ? w.before + 1 : w.before;
	diag("%s reads %d, writing %d", w.path, w.before, w.after);
	s.arg = &w;
	sweep(&s);
}

/* --- fault injection, fixtures and kmemleak ------------------------------ */

static int knob(const char *attr, const char *file, const char *val)
{
	char path[128];
	int err;

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", attr, file);
	err = write_file(path, val);
	if (err)
		diag("%s: %s", path, ret_str(err));
	return err;
}

/* The fault injection the sweeps need: 0, or -errno (shown). */
static int fault_injection(void)
{
	/*
	 * By default failslab and fail_page_alloc leave out allocations that
	 * may sleep, and fail_page_alloc those of order 0: the series' are
	 * GFP_KERNEL, of any order. verbose 1: one log line per failure, no
	 * stack dump.
	 */
	static const char *const knobs[][3] = {
		{ "failslab", "ignore-gfp-wait", "N" },
		{ "failslab", "verbose", "1" },
		{ "fail_page_alloc", "ignore-gfp-wait", "N" },
		{ "fail_page_alloc", "ignore-gfp-highmem", "N" },
		{ "fail_page_alloc", "min-order", "0" },
		{ "fail_page_alloc", "verbose", "1" },
	};
	int err = 0;
	size_t i;

	if (access(DEBUGFS "/failslab", F_OK))
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	if (access(FAIL_NTH, W_OK)) {
		err = -errno;
		diag("%s: %s (CONFIG_FAULT_INJECTION, the debug kernel)",
		     FAIL_NTH, ret_str(err));
		return err;
	}
	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		err = knob(knobs[i][0], knobs[i][1], knobs[i][2]) ?: err;
	return err;
}

/* 0 when the host is at HOST_LEVEL, else -1 (shown). */
static int host_at_its_level(const char *when)
{
	int level, err = read_int(PARANOID_PATH, &level);

	if (!err && level == HOST_LEVEL)
		return 0;
	diag("the host level is %s %s, not %d", ret_str(err ?: level), when,
	     HOST_LEVEL);
	return -1;
}

/* Each sweep: fault injection set up, the host at its level. */
static int sweep_setup(void **state)
{
	(void)state;
	if (fault_injection())
		return -1;
	return host_at_its_level("before the sweep");
}

/* Restores the host level; a report left on the kernel log fails it. */
static int sweep_teardown(void **state)
{
	int err, reports, ret = 0;

	(void)state;
	err = write_int(PARANOID_PATH, HOST_LEVEL);
	if (err) {
		diag("restoring the host level to %d: %s", HOST_LEVEL,
		     ret_str(err));
		ret = -1;
	} else if (host_at_its_level("after the sweep")) {
		ret = -1;
	}
	reports = kmsg_reports();
	if (reports) {
		diag("%d report(s) in the kernel log after the sweep",
		     reports);
		ret = -1;
	}
	return ret;
}

static bool kmemleak_cleared;

static void kmemleak_cmd(const char *cmd)
{
	int err = write_file(KMEMLEAK, cmd);

	if (err) {
		diag("%s %s: %s (CONFIG_DEBUG_KMEMLEAK)", KMEMLEAK, cmd,
		     ret_str(err));
		fail();
	}
}

/*
 * The unreferenced objects kmemleak finds now, or -errno; shows them, and
 * counts in *@ours those whose record names user namespace, sysctl, cred
 * or perf code.
 */
static int kmemleak_objects(int *ours)
{
	char line[512];
	int total = 0, hit = 0, err;
	FILE *f;

	*ours = 0;
	/*
	 * kmemleak ignores objects younger than 5 s; namespaces are freed
	 * from a workqueue after their last reference.
	 */
	sleep(7);
	err = write_file(KMEMLEAK, "scan");
	if (err)
		return err;
	sleep(1);
	err = write_file(KMEMLEAK, "scan");
	if (err)
		return err;
	f = fopen(KMEMLEAK, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "unreferenced object", 19)) {
			if (hit)
				(*ours)++;
			total++;
			hit = 0;
		}
		if (total <= 10)
			diag("  %s", line);
		if (strstr(line, "user_ns") || strstr(line, "userns") ||
		    strstr(line, "sysctl") || strstr(line, "perf_") ||
		    strstr(line, "paranoid") || strstr(line, "cred"))
			hit = 1;
	}
	if (hit)
		(*ours)++;
	fclose(f);
	return total;
}

/* --- the tests ------------------------------------------------------------ */

/* fail-nth, failslab and fail_page_alloc set up (each sweep checks too). */
static void fault_injection_is_set_up(void **state)
{
	(void)state;
	assert_ret(fault_injection(), 0);
}

/* kmemleak available, and what it found before the sweeps forgotten. */
static void kmemleak_is_cleared(void **state)
{
	(void)state;
	kmemleak_cmd("scan");
	kmemleak_cmd("clear");
	kmemleak_cleared = true;
}

/* No object left behind by the sweeps, no report on the kernel log. */
static void kmemleak_finds_nothing_left(void **state)
{
	int leaks, ours;

	(void)state;
	if (!kmemleak_cleared) {
		diag("kmemleak was not cleared before the sweeps (kmemleak_is_cleared)");
		fail();
	}
	leaks = kmemleak_objects(&ours);
	if (leaks < 0) {
		diag("%s: %s", KMEMLEAK, ret_str(leaks));
		fail();
	}
	if (leaks > 0) {
		diag("kmemleak: %d unreferenced object(s), %d through user namespace, sysctl, cred or perf code",
		     leaks, ours);
		fail();
	}
	assert_ret(kmsg_reports(), 0);
}

static const int enomem[] = { -ENOMEM, 0 };
static const int refused[] = { -ENOMEM, -EPERM, 0 };
static const int unshare_errs[] = { -ENOMEM, -ENOSPC, -EAGAIN, 0 };

static const struct unshare_arg top = { .depth = 1 };
static const struct unshare_arg nested = { .depth = 2, .parent_level = 3 };
static const struct write_arg ns_write = {
	.path = USER_PATH, .in_userns = 1, .before = HOST_LEVEL, .after = 3,
};

static const struct write_arg host_write = {
	.path = PARANOID_PATH, .in_userns = 0, .before = HOST_LEVEL,
	.after = 1,
};

static const struct write_arg ns_kernel_write = {
	.path = PARANOID_PATH, .in_userns = 1, .before = HOST_LEVEL,
	.after = 3, .refused = 1,
};

static const struct sweep sweeps[] = {
	/* Each allocation failed gives ENOMEM (ENOSPC, EAGAIN), nothing changed. */
	{
		.name = "unshare_from_the_initial_namespace",
		.what = "unshare(CLONE_NEWUSER) from the initial namespace",
		.op = op_unshare, .arg = &top, .errs = unshare_errs,
		.expect = expect_unshare,
	},
	/* The same, and the new namespace starts at 3. */
	{
		.name = "unshare_from_a_namespace_at_level_3",
		.what = "unshare(CLONE_NEWUSER) from a namespace at level 3",
		.op = op_unshare, .arg = &nested, .errs = unshare_errs,
		.expect = expect_unshare,
	},
	/* ENOMEM and the level unchanged, or written. */
	{
		.name = "write_the_level_in_a_namespace",
		.what = "write 3 to user.perf_event_paranoid in a user namespace",
		.op = op_write, .arg = &ns_write, .errs = enomem,
		.expect = expect_write,
	},
	/* ENOMEM and the host level unchanged, or written. */
	{
		.name = "write_the_host_level",
		.what = "write 1 in the initial namespace",
		.op = op_write, .arg = &host_write, .errs = enomem,
		.expect = expect_write, .reset = reset_host,
	},
	/* ENOMEM or EPERM, nothing changed. */
	{
		.name = "write_kernel_level_in_a_namespace_is_refused",
		.what = "write 3 to kernel.perf_event_paranoid in a user namespace",
		.op = op_write, .arg = &ns_kernel_write, .errs = refused,
		.clean = -EPERM, .expect = expect_write,
	},
};

static struct CMUnitTest sweep_case(const struct sweep *s,
				    CMUnitTestFunction fn)
{
	return (struct CMUnitTest){
		.name = s->name, .test_func = fn, .setup_func = sweep_setup,
		.teardown_func = sweep_teardown, .initial_state = (void *)s,
	};
}

int main(void)
{
	struct file_sweep *files;
	struct CMUnitTest *tests;
	glob_t g = { 0 };
	size_t i, n = 0;
	int failed;

	/* The other perf_event_paranoid* files: two sweeps each. */
	glob(PARANOID_PATH "?*", 0, NULL, &g);
	tests = calloc(3 + ARRAY_SIZE(sweeps) + 2 * g.gl_pathc,
		       sizeof(*tests));
	files = calloc(2 * g.gl_pathc + 1, sizeof(*files));
	if (!tests || !files) {
		perror("paranoid_failnth");
		return 1;
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(fault_injection_is_set_up);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(kmemleak_is_cleared);
	for (i = 0; i < ARRAY_SIZE(sweeps); i++)
		tests[n++] = sweep_case(&sweeps[i], sweep_test);
	for (i = 0; i < 2 * g.gl_pathc; i++) {
		struct file_sweep *f = &files[i];
		const char *path = g.gl_pathv[i / 2];
		const char *name = strrchr(path, '/') + 1;
		char *s, *what;
		int r;

		f->w.path = path;
		f->s.op = op_write;
		f->s.expect = expect_write;
		if (i % 2 == 0) {
			/* ENOMEM, or written. */
			f->s.errs = enomem;
			r = asprintf(&s, "write_back_%s", name);
			if (r >= 0)
				r = asprintf(&what, "write of kernel.%s (its value)",
					     name);
		} else {
			/* ENOMEM or EPERM, nothing changed. */
			f->w.in_userns = 1;
			f->w.refused = 1;
			f->s.errs = refused;
			f->s.clean = -EPERM;
			r = asprintf(&s, "write_%s_in_a_namespace_is_refused",
				     name);
			if (r >= 0)
				r = asprintf(&what, "write of kernel.%s in a namespace",
					     name);
		}
		if (r < 0) {
			perror("paranoid_failnth");
			return 1;
		}
		f->s.name = s;
		f->s.what = what;
		tests[n++] = sweep_case(&f->s, file_sweep_test);
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(kmemleak_finds_nothing_left);

	kmsg_open();
	failed = selftests_run("paranoid_failnth", tests, n);
	/* After the last test: a report counts, with no test to fail. */
	if (kmsg_reports()) {
		diag("report(s) in the kernel log after the tests");
		failed++;
	}
	return failed;
}
