// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_stress - user namespaces created and destroyed thousands of
 * times by several processes while the host flips its level between 1 and 3
 * and containers write theirs, inside -1 to 3 and outside. No operation may
 * fail other than as the contract says, and no level read may leave the
 * bounds the contract gives, whatever the interleaving: a namespace that
 * set nothing follows the host anywhere between 1 and 3, one that wrote v
 * never reads below v.
 *
 * SELFTESTS_STRESS_SECONDS sets the length (default 20; on a slow kernel the
 * churn goes on until it made 1000 namespaces, at most 6 times as long),
 * SELFTESTS_SEED the seed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define HOST_MIN	1
#define HOST_MAX	3

static unsigned int seconds(void)
{
	const char *s = getenv("SELFTESTS_STRESS_SECONDS");
	int v = s ? atoi(s) : 20;

	return v > 0 ? v : 20;
}

/* Shared by the forked workers of one call: counters and the first error. */
struct shared {
	long namespaces, writes, refused, reads;
	int errors;
	char msg[200];
};

static struct shared *shared_new(void)
{
	struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return sh == MAP_FAILED ? NULL : sh;
}

static void __attribute__((format(printf, 2, 3)))
report(struct shared *sh, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&sh->errors, 1, __ATOMIC_SEQ_CST) == 0) {
		va_start(ap, fmt);
		vsnprintf(sh->msg, sizeof(sh->msg), fmt, ap);
		va_end(ap);
	}
}

static void count(long *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/*
 * Every read and write of the workers is made in a namespace other than the
 * initial one: the level is user.perf_event_paranoid's; reads alternate
 * between it and kernel.perf_event_paranoid, which shows the same level.
 */
static int read_now(struct shared *sh)
{
	static unsigned int n;
	const char *path = n++ % 2 ? PARANOID_PATH : USER_PATH;
	int level, err = read_int(path, &level);

	if (!err)
		return level;
	report(sh, "reading %s: %s", path, strerrorname_np(-err));
	return INT_MIN;
}

/* A write(2) of @level: 0 or -errno (a failed open is reported). */
static int write_now(struct shared *sh, int level)
{
	int fd = open(USER_PATH, O_WRONLY | O_CLOEXEC), ret;
	char s[16];

	if (fd < 0) {
		report(sh, "opening %s: %m", USER_PATH);
		return -ENOTRECOVERABLE;
	}
	snprintf(s, sizeof(s), "%d", level);
	ret = fd_write_str(fd, s);
	close(fd);
	return ret;
}

static unsigned int seed_for(unsigned int salt)
{
	return (unsigned int)time(NULL) * 2654435761U ^ getpid() ^ salt;
}

/* What a run hands back to the test: @first, the counters, the first error. */
static int finish(struct shared *sh, struct out *out, long first)
{
	out->val[0] = first;
	out->val[1] = sh->writes;
	out->val[2] = sh->refused;
	out->val[3] = sh->reads;
	if (sh->errors)
		snprintf(out->msg, sizeof(out->msg), "%d errors, first: %s",
			 sh->errors, sh->msg);
	return sh->errors ? -ENOTRECOVERABLE : 0;
}

/*
 * Bounds the contract gives for a namespace whose history is only partly
 * known: the level in force there is at least *@lo and at most *@hi. Check
 * a write of @v (outside -1 to 3: EINVAL; below *@lo: EPERM; at or above
 * *@hi: taken; between them either) and a read afterwards, and update the
 * bounds: once @v is taken the level is at least @v.
 */
static void checked_write(struct shared *sh, const char *where, int v,
			  int *lo, int *hi)
{
	int ret = write_now(sh, v), level;

	count(&sh->writes);
	if (v < LEVEL_MIN || v > LEVEL_MAX) {
		if (ret != -EINVAL)
			report(sh, "%s: writing %d: %s, not EINVAL", where, v,
			       ret_str(ret));
	} else if (v < *lo && ret != -EPERM) {
		report(sh, "%s: writing %d below %d: %s", where, v, *lo,
		       ret_str(ret));
	} else if (v >= *hi && ret) {
		report(sh, "%s: writing %d at or above %d: %s", where, v, *hi,
		       ret_str(ret));
	} else if (ret && ret != -EPERM) {
		report(sh, "%s: writing %d: %s", where, v, ret_str(ret));
	}
	if (!ret) {
		*lo = v;
		if (v > *hi)
			*hi = v;
	} else {
		count(&sh->refused);
	}
	level = read_now(sh);
	count(&sh->reads);
	if (level < *lo || level > *hi)
		report(sh, "%s: reads %s, outside [%d, %d]", where,
		       ret_str(level), *lo, *hi);
}

/* A value to write: -1 to 3 mostly, sometimes just outside. */
static int random_value(void)
{
	return LEVEL_MIN - 1 + rand() % (LEVEL_MAX - LEVEL_MIN + 3);
}

struct churn_arg {
	unsigned int secs;
	int lo, hi;		/* the bounds of the namespace it runs in */
	int procs;		/* concurrent churning processes */
	long min_ns;		/* go on after secs until this many... */
	unsigned int max_secs;	/* ...but no longer than this */
};

/*
 * One iteration, in a new process: unshare 1 to 3 nested namespaces, read
 * and write each one; exit, which destroys them.
 */
static void __attribute__((noreturn))
churn_once(struct shared *sh, const struct churn_arg *a, unsigned int seed)
{
	int lo = a->lo, hi = a->hi, depth, n, level;

	/* After setuid (the host user), /proc/self is root's otherwise. */
	prctl(PR_SET_DUMPABLE, 1);
	srand(seed);
	n = 1 + rand() % 3;
	for (depth = 1; depth <= n; depth++) {
		if (unshare_mapped()) {
			report(sh, "depth %d: %s", depth, agent_error());
			_exit(1);
		}
		count(&sh->namespaces);
		/* A new namespace has the level in force in its parent. */
		level = read_now(sh);
		count(&sh->reads);
		if (level < lo || level > hi) {
			report(sh, "new namespace reads %s, outside [%d, %d]",
			       ret_str(level), lo, hi);
			_exit(1);
		}
		switch (rand() % 3) {
		case 0:
			break;
		case 1:		/* anything, lower ones included */
			checked_write(sh, "churn", random_value(), &lo, &hi);
			break;
		case 2:		/* the top: must succeed, and lock it there */
			checked_write(sh, "churn", LEVEL_MAX, &lo, &hi);
			if (read_now(sh) != LEVEL_MAX)
				report(sh, "raised to %d, reads %s", LEVEL_MAX,
				       ret_str(read_now(sh)));
			if (write_now(sh, LEVEL_MAX - 1) != -EPERM)
				report(sh, "lowered %d to %d", LEVEL_MAX,
				       LEVEL_MAX - 1);
			break;
		}
	}
	_exit(0);
}

static int fn_churn(const void *arg, int in_fd, struct out *out)
{
	const struct churn_arg *a = arg;
	struct shared *sh = shared_new();
	time_t start = time(NULL), end = start + a->secs;
	time_t last = start + a->max_secs;
	unsigned int i = 0;
	int running = 0, status;
	pid_t pid;

	(void)in_fd;
	if (!sh)
		return -ENOMEM;
	while ((time(NULL) < end ||
		(sh->namespaces < a->min_ns && time(NULL) < last)) &&
	       !sh->errors) {
		while (running < a->procs) {
			pid = fork();
			if (pid == 0)
				churn_once(sh, a, seed_for(i));
			if (pid < 0) {
				report(sh, "fork: %m");
				break;
			}
			running++;
			i++;
		}
		pid = wait(&status);
		if (pid < 0)
			break;
		running--;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			if (!sh->errors)
				report(sh, "churn child status %#x", status);
	}
	while (running-- > 0)
		wait(NULL);
	return finish(sh, out, sh->namespaces);
}

struct writer_arg {
	unsigned int secs;
	int lo, hi;		/* the bounds of the namespace it writes */
	int procs;		/* concurrent writers */
};

/*
 * Several processes of one long-lived container write random levels into it
 * at once. Each one knows a lower bound of the level (only what it wrote
 * itself, since others raise it too) and the upper bound (the highest
 * level anyone may write or the host may be at); at the end the level must
 * be the highest value any of them wrote, or the host's if higher. Returns
 * that value (LEVEL_MIN - 1 if none was written).
 */
static int fn_writer(const void *arg, int in_fd, struct out *out)
{
	const struct writer_arg *a = arg;
	struct shared *sh = shared_new();
	time_t end = time(NULL) + a->secs;
	int p, top = LEVEL_MIN - 1, lo, hi, v, *tops;
	pid_t pid;

	(void)in_fd;
	tops = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!sh || tops == MAP_FAILED)
		return -ENOMEM;
	for (p = 0; p < a->procs; p++) {
		pid = fork();
		if (pid < 0)
			return -errno;
		if (pid)
			continue;
		srand(seed_for(p));
		lo = a->lo;
		hi = a->hi;
		tops[p] = LEVEL_MIN - 1;
		while (time(NULL) < end && !sh->errors) {
			v = random_value();
			checked_write(sh, "writer", v, &lo, &hi);
			if (lo == v && v > tops[p])
				tops[p] = v;
			/* Leave the single vCPU to the churn too. */
			usleep(500);
		}
		_exit(0);
	}
	while (wait(NULL) > 0)
		;
	for (p = 0; p < a->procs; p++)
		if (tops[p] > top)
			top = tops[p];
	return finish(sh, out, top);
}

/* Has the agent answered its call? */
static bool replied(struct agent *a)
{
	struct pollfd pfd = { .fd = a->sock, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

static void namespace_churn_keeps_levels_consistent(void **state)
{
	struct fixture *f = *state;
	unsigned int secs = seconds();
	struct agent *c1, *n1, *c2, *host;
	struct churn_arg in_c2 = { secs, HOST_MIN, HOST_MAX, 2, 500,
				   6 * secs };
	struct churn_arg on_host = { secs, HOST_MIN, HOST_MAX, 2, 500,
				     6 * secs };
	struct writer_arg w_c1 = { secs, HOST_MIN, HOST_MAX, 2 };
	struct writer_arg w_n1 = { secs, HOST_MIN, HOST_MAX, 2 };
	struct out o_c2, o_host, o_c1, o_n1;
	int r_c2, r_host, r_c1, r_n1, flips = 0, level, top_c1, top_n1;
	time_t end;

	rand_init();
	c1 = fixture_add(f, container_new());
	n1 = fixture_add(f, nested_new(c1));
	c2 = fixture_add(f, container_new());
	host = fixture_add(f, agent_host());

	/* The unprivileged host user churns namespaces of its own. */
	call_start(host, AS_NOBODY, fn_churn, &on_host, sizeof(on_host));
	call_start(c2, AS_ROOT, fn_churn, &in_c2, sizeof(in_c2));
	call_start(c1, AS_ROOT, fn_writer, &w_c1, sizeof(w_c1));
	call_start(n1, AS_ROOT, fn_writer, &w_n1, sizeof(w_n1));

	/* The host flips its level until they are all done. */
	end = time(NULL) + secs;
	while (time(NULL) < end || !replied(host) || !replied(c2)) {
		level = HOST_MIN + rand_below(HOST_MAX - HOST_MIN + 1);
		set_host_level(level);
		flips++;
		usleep(2000);
	}
	set_host_level(2);

	r_host = call_finish(host, &o_host, 120000);
	r_c2 = call_finish(c2, &o_c2, 120000);
	r_c1 = call_finish(c1, &o_c1, 120000);
	r_n1 = call_finish(n1, &o_n1, 120000);
	diag("%d host flips", flips);
	diag("host churn: %ld namespaces, %ld writes (%ld refused), %ld reads",
	     o_host.val[0], o_host.val[1], o_host.val[2], o_host.val[3]);
	diag("container churn: %ld namespaces, %ld writes (%ld refused), "
	     "%ld reads", o_c2.val[0], o_c2.val[1], o_c2.val[2],
	     o_c2.val[3]);
	diag("container writers: top %ld, %ld writes (%ld refused), %ld reads",
	     o_c1.val[0], o_c1.val[1], o_c1.val[2], o_c1.val[3]);
	diag("nested writers: top %ld, %ld writes (%ld refused), %ld reads",
	     o_n1.val[0], o_n1.val[1], o_n1.val[2], o_n1.val[3]);
	assert_ret(r_host, 0);
	assert_ret(r_c2, 0);
	assert_ret(r_c1, 0);
	assert_ret(r_n1, 0);

	/* It did work: thousands of namespaces, writes both ways. */
	assert_true(o_host.val[0] + o_c2.val[0] >= 1000);
	assert_true(o_c1.val[1] > 100 && o_c1.val[2] > 10);
	assert_true(o_n1.val[1] > 100 && o_n1.val[2] > 10);
	assert_true(flips > 100);

	/*
	 * Concurrent raises end at the highest one, the host at 2 again; c2,
	 * where nothing was written, follows the host down to 1 and -1.
	 */
	top_c1 = o_c1.val[0];
	top_n1 = o_n1.val[0] > top_c1 ? o_n1.val[0] : top_c1;
	assert_true(top_c1 >= LEVEL_MIN && top_n1 >= LEVEL_MIN);
	assert_level(c1, top_c1 > 2 ? top_c1 : 2);
	assert_level(n1, top_n1 > 2 ? top_n1 : 2);
	assert_level(c2, 2);
	assert_ret(host_level(), 2);
	set_host_level(-1);
	assert_level(c1, top_c1);
	assert_level(n1, top_n1);
	assert_level(c2, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(namespace_churn_keeps_levels_consistent),
	};

	return RUN_TESTS("paranoid_stress", tests);
}
