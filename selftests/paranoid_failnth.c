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
 * Runs as root in a guest booted on build/bzImage-debug (it changes the
 * fault injection knobs in debugfs and the host's level):
 *
 *   vm/guest/run --kernel build/bzImage-debug -- selftests/run paranoid_failnth
 *
 * TAP output; the exit status is non-zero if a test failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"
#define USER_PARANOID	"/proc/sys/user/perf_event_paranoid"
#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define DEBUGFS		"/sys/kernel/debug"
#define KMEMLEAK	DEBUGFS "/kmemleak"
#define HOST_LEVEL	2
#define MAX_NTH		4000	/* no path of these makes that many */

static int tests, failures;

static void __attribute__((format(printf, 1, 2))) diag(const char *fmt, ...)
{
	va_list ap;

	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void __attribute__((format(printf, 2, 3)))
result(int ok, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!ok)
		failures++;
	printf("%sok %d - ", ok ? "" : "not ", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : 0;
}

/* An integer file: its value, or NO_VALUE if it cannot be read. */
#define NO_VALUE	(-100000)
/* The two level files of a namespace read differently. */
#define LEVELS_DIFFER	(-100001)

static int read_int(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NO_VALUE;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NO_VALUE;
	buf[n] = '\0';
	return atoi(buf);
}

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
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
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

struct outcome {
	int ret;	/* the call's result: 0 or -errno */
	int left;	/* fail-nth after the call: > 0 if nothing failed */
	int value;	/* what the call should have changed, read back */
	int setup;	/* 0, or -errno of the child's setup */
};

/*
 * An operation: set up (unarmed), then the call between arm() and
 * disarm(); fills @o. Runs in a forked child that exits afterwards.
 */
typedef void (*op_fn)(const void *arg, int nth_fd, int n, struct outcome *o);

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

static int run_nth(op_fn fn, const void *arg, int n, struct outcome *o)
{
	struct outcome *shared;
	int status, fd;
	pid_t pid;

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -errno;
	memset(shared, 0, sizeof(*shared));
	shared->setup = -ECHILD;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		munmap(shared, sizeof(*shared));
		return -errno;
	}
	if (pid == 0) {
		struct outcome mine = { .setup = 0 };

		/*
		 * Fault every page in now: a page fault of this process
		 * between arm() and disarm() would take the n-th allocation,
		 * and failing it kills the process instead of failing a call.
		 */
		if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
			shared->setup = -errno;
			_exit(1);
		}
		fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			shared->setup = -errno;
			_exit(1);
		}
		fn(arg, fd, n, &mine);
		*shared = mine;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	*o = *shared;
	munmap(shared, sizeof(*shared));
	if (!WIFEXITED(status))
		return -EINTR;	/* killed: the caller says so */
	return 0;
}

/*
 * Make the n-th allocation of @fn's call fail, n = 1, 2, ... until the call
 * makes fewer than n allocations. @ok_errs: the errors a failure may return
 * (0-terminated); @clean: what the call returns when nothing failed (0 or
 * -errno); @check(arg, o): the value read back is right for the outcome.
 * Returns 1 if every n passed.
 */
typedef int (*check_fn)(const void *arg, const struct outcome *o);

static int sweep(const char *what, op_fn fn, const void *arg,
		 const int *ok_errs, int clean, check_fn check,
		 void (*reset)(void))
{
	int n, i, errs[8] = { 0 }, nerrs[8] = { 0 }, tolerated = 0, good = 1;
	struct outcome o;
	char line[200];
	size_t len;

	for (n = 1; n <= MAX_NTH; n++) {
		int r = run_nth(fn, arg, n, &o), reports;

		reports = kmsg_reports();
		if (r) {
			diag("%s, allocation %d: child %s", what, n,
			     r == -EINTR ? "killed" : strerror(-r));
			good = 0;
			break;
		}
		if (o.setup) {
			diag("%s: setup failed: %s", what, strerror(-o.setup));
			good = 0;
			break;
		}
		if (reports) {
			diag("%s, allocation %d failed: %d report(s) in the kernel log",
			     what, n, reports);
			good = 0;
		}
		if (!check(arg, &o)) {
			diag("%s, allocation %d: call returned %s, value read back %d",
			     what, n, o.ret ? strerror(-o.ret) : "0", o.value);
			good = 0;
		}
		if (reset)
			reset();
		if (o.left > 0) {
			/* Fewer than n allocations: nothing was failed. */
			if (o.ret != clean) {
				diag("%s: returns %s with no injected failure, not %s",
				     what, o.ret ? strerror(-o.ret) : "0",
				     clean ? strerror(-clean) : "0");
				good = 0;
			}
			break;
		}
		if (o.left < 0) {
			diag("%s: cannot read %s", what, FAIL_NTH);
			good = 0;
			break;
		}
		if (o.ret == clean) {
			/* An allocation failed and made no difference. */
			tolerated++;
			continue;
		}
		for (i = 0; ok_errs[i]; i++)
			if (-o.ret == ok_errs[i])
				break;
		if (!ok_errs[i]) {
			diag("%s, allocation %d failed: %s, expected one of the documented errors",
			     what, n, strerror(-o.ret));
			good = 0;
		}
		for (i = 0; i < 8 && errs[i] && errs[i] != -o.ret; i++)
			;
		if (i < 8) {
			errs[i] = -o.ret;
			nerrs[i]++;
		}
	}
	if (n > MAX_NTH) {
		diag("%s: still failing after %d allocations", what, MAX_NTH);
		good = 0;
	}
	len = snprintf(line, sizeof(line), "%s: %d allocation(s), failing each:",
		       what, n - 1);
	for (i = 0; i < 8 && errs[i] && len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s x%d",
				strerrorname_np(errs[i]) ?: "?", nerrs[i]);
	if (tolerated && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len,
			 " success x%d (failure absorbed)", tolerated);
	diag("%s", line);
	return good;
}

/* --- the operations ----------------------------------------------------- */

struct unshare_arg {
	int depth;	/* 1: from the initial namespace; 2: from a child */
	int parent_level;	/* level set on the parent first (depth 2) */
};

static void op_unshare(const void *varg, int fd, int n, struct outcome *o)
{
	const struct unshare_arg *arg = varg;
	char buf[8];

	if (arg->depth == 2) {
		/*
		 * The owner of a namespace must be mapped in its parent: map
		 * our uid and gid 0 to themselves (the one mapping a process
		 * may write for itself), then raise the parent.
		 */
		snprintf(buf, sizeof(buf), "%d", arg->parent_level);
		if (unshare(CLONE_NEWUSER)) {
			o->setup = -errno;
			return;
		}
		o->setup = write_str("/proc/self/uid_map", "0 0 1");
		if (!o->setup)
			o->setup = write_str("/proc/self/setgroups", "deny");
		if (!o->setup)
			o->setup = write_str("/proc/self/gid_map", "0 0 1");
		if (!o->setup)
			o->setup = write_str(USER_PARANOID, buf);
		if (o->setup)
			return;
	}
	if (arm(fd, n)) {
		o->setup = -errno;
		return;
	}
	o->ret = unshare(CLONE_NEWUSER) ? -errno : 0;
	o->left = disarm(fd);
	/*
	 * The level this task sees now, the new namespace's if it exists:
	 * kernel.perf_event_paranoid shows the reader's, and the new
	 * namespace's user.perf_event_paranoid must show the same.
	 */
	o->value = read_int(PARANOID);
	if (read_int(USER_PARANOID) != o->value)
		o->value = LEVELS_DIFFER;
}

static int check_unshare(const void *varg, const struct outcome *o)
{
	const struct unshare_arg *arg = varg;
	int want = arg->depth == 2 ? arg->parent_level : HOST_LEVEL;

	/* Created or not, the task sees the level it inherits. */
	return o->value == want;
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
	int wfd;
	ssize_t w;

	if (arg->in_userns && unshare(CLONE_NEWUSER)) {
		o->setup = -errno;
		return;
	}
	wfd = open(arg->path, O_WRONLY | O_CLOEXEC);
	if (wfd < 0) {
		o->setup = -errno;
		return;
	}
	snprintf(buf, sizeof(buf), "%d\n", arg->after);
	if (arm(fd, n)) {
		o->setup = -errno;
		return;
	}
	w = write(wfd, buf, strlen(buf));
	o->ret = w < 0 ? -errno : 0;
	o->left = disarm(fd);
	if (w >= 0 && (size_t)w != strlen(buf))
		o->ret = -EMSGSIZE;	/* a short write: not the contract */
	close(wfd);
	o->value = read_int(arg->path);
}

static int check_write(const void *varg, const struct outcome *o)
{
	const struct write_arg *arg = varg;

	/* Written whole, or not at all; a refused write never. */
	return o->value == (o->ret || arg->refused ? arg->before : arg->after);
}

static void reset_host(void)
{
	write_str(PARANOID, "2");
}

/* --- set-up and kmemleak -------------------------------------------------- */

static int knob(const char *attr, const char *file, const char *val)
{
	char path[128];
	int r;

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", attr, file);
	r = write_str(path, val);
	if (r)
		diag("%s: %s", path, strerror(-r));
	return r == 0;
}

static int setup_fault_injection(void)
{
	int ok = 1;

	if (access(DEBUGFS "/failslab", F_OK))
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	if (access(FAIL_NTH, W_OK)) {
		diag("%s: %s (CONFIG_FAULT_INJECTION, build/bzImage-debug)",
		     FAIL_NTH, strerror(errno));
		return 0;
	}
	/*
	 * By default failslab and fail_page_alloc leave out allocations that
	 * may sleep, and fail_page_alloc those of order 0: the series' are
	 * GFP_KERNEL, of any order. verbose 1: one log line per failure, no
	 * stack dump.
	 */
	ok &= knob("failslab", "ignore-gfp-wait", "N");
	ok &= knob("failslab", "verbose", "1");
	ok &= knob("fail_page_alloc", "ignore-gfp-wait", "N");
	ok &= knob("fail_page_alloc", "ignore-gfp-highmem", "N");
	ok &= knob("fail_page_alloc", "min-order", "0");
	ok &= knob("fail_page_alloc", "verbose", "1");
	return ok;
}

static int kmemleak_start(void)
{
	if (write_str(KMEMLEAK, "scan") || write_str(KMEMLEAK, "clear")) {
		diag("%s: %s (CONFIG_DEBUG_KMEMLEAK)", KMEMLEAK, strerror(errno));
		return 0;
	}
	return 1;
}

/* The unreferenced objects kmemleak finds now; shows them. */
static int kmemleak_objects(int *ours)
{
	char line[512], rec[8192] = "";
	int total = 0, hit = 0;
	FILE *f;

	*ours = 0;
	/*
	 * kmemleak ignores objects younger than 5 s; namespaces are freed
	 * from a workqueue after their last reference.
	 */
	sleep(7);
	if (write_str(KMEMLEAK, "scan"))
		return -1;
	sleep(1);
	if (write_str(KMEMLEAK, "scan"))
		return -1;
	f = fopen(KMEMLEAK, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "unreferenced object", 19)) {
			if (hit)
				(*ours)++;
			total++;
			hit = 0;
			rec[0] = '\0';
		}
		if (total <= 10)
			printf("#   %s", line);
		if (strlen(rec) + strlen(line) < sizeof(rec))
			strcat(rec, line);
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

int main(void)
{
	static const int enomem[] = { ENOMEM, 0 };
	static const int refused[] = { ENOMEM, EPERM, 0 };
	static const int unshare_errs[] = { ENOMEM, ENOSPC, EAGAIN, 0 };
	struct unshare_arg top = { .depth = 1 };
	struct unshare_arg nested = { .depth = 2, .parent_level = 3 };
	struct write_arg ns_write = {
		.path = USER_PARANOID, .in_userns = 1, .before = HOST_LEVEL,
		.after = 3,
	};
	struct write_arg host_write = {
		.path = PARANOID, .in_userns = 0, .before = HOST_LEVEL,
		.after = 1,
	};
	struct write_arg ns_kernel_write = {
		.path = PARANOID, .in_userns = 1, .before = HOST_LEVEL,
		.after = 3, .refused = 1,
	};
	int leaks, ours, fi, km;
	glob_t g = { 0 };
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getuid() != 0) {
		printf("1..1\nnot ok 1 - runs as root in the guest\n");
		return 1;
	}
	glob(PARANOID "?*", 0, NULL, &g);
	printf("1..%zu\n", 8 + 2 * g.gl_pathc);
	kmsg_open();

	fi = setup_fault_injection();
	result(fi, "fault injection: fail-nth, failslab and fail_page_alloc set up");
	km = kmemleak_start();
	result(km, "kmemleak available and cleared");
	if (!fi)
		return 1;
	if (read_int(PARANOID) != HOST_LEVEL)
		write_str(PARANOID, "2");

	result(sweep("unshare(CLONE_NEWUSER) from the initial namespace",
		     op_unshare, &top, unshare_errs, 0, check_unshare, NULL),
	       "unshare(CLONE_NEWUSER): each allocation failed gives ENOMEM (ENOSPC, EAGAIN), nothing changed");
	result(sweep("unshare(CLONE_NEWUSER) from a namespace at level 3",
		     op_unshare, &nested, unshare_errs, 0, check_unshare,
		     NULL),
	       "nested unshare(CLONE_NEWUSER): each allocation failed gives ENOMEM (ENOSPC, EAGAIN), the new namespace starts at 3");
	result(sweep("write 3 to user.perf_event_paranoid in a user namespace",
		     op_write, &ns_write, enomem, 0, check_write, NULL),
	       "write of the level in a namespace: ENOMEM and level unchanged, or written");
	result(sweep("write 1 in the initial namespace", op_write,
		     &host_write, enomem, 0, check_write, reset_host),
	       "write of the host level: ENOMEM and level unchanged, or written");
	result(sweep("write 3 to kernel.perf_event_paranoid in a user namespace",
		     op_write, &ns_kernel_write, refused, -EPERM, check_write,
		     NULL),
	       "write of kernel.perf_event_paranoid in a namespace: ENOMEM or EPERM, nothing changed");
	for (i = 0; i < g.gl_pathc; i++) {
		struct write_arg other = { .path = g.gl_pathv[i] };
		const char *name = strrchr(g.gl_pathv[i], '/') + 1;

		other.before = other.after = read_int(g.gl_pathv[i]);
		result(other.before != NO_VALUE &&
		       sweep(name, op_write, &other, enomem, 0, check_write,
			     NULL),
		       "write of kernel.%s (its value, %d): ENOMEM or written",
		       name, other.before);
		other.in_userns = 1;
		other.refused = 1;
		other.after = other.before + 1;
		result(other.before != NO_VALUE &&
		       sweep(name, op_write, &other, refused, -EPERM,
			     check_write, NULL),
		       "write of kernel.%s in a namespace: ENOMEM or EPERM, nothing changed",
		       name);
	}
	globfree(&g);

	if (km) {
		leaks = kmemleak_objects(&ours);
		if (leaks > 0)
			diag("kmemleak: %d unreferenced object(s), %d through user namespace, sysctl, cred or perf code",
			     leaks, ours);
		result(leaks == 0, "kmemleak: no object left behind");
	} else {
		result(0, "kmemleak: no object left behind");
	}
	if (kmsg_reports())
		failures++;
	printf("# paranoid_failnth: %d passed, %d failed\n", tests - failures,
	       failures);
	return failures ? 1 : 0;
}
