// SPDX-License-Identifier: GPL-2.0
/*
 * harness.c - the cmocka side of the selftests (see harness.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* --- diagnostics ------------------------------------------------------ */

void diag(const char *fmt, ...)
{
	char buf[1024], *line, *save;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		printf("# %s\n", line);
	fflush(stdout);
}

const char *ret_str(long ret)
{
	static char bufs[4][64];
	static int next;
	char *buf = bufs[next++ % 4];
	const char *name;

	name = ret < 0 && ret > -1000 ? strerrorname_np(-ret) : NULL;
	/* Could be a level too: show both. */
	if (name)
		snprintf(buf, 64, "%ld (-%s)", ret, name);
	else
		snprintf(buf, 64, "%ld", ret);
	return buf;
}

void _assert_ret(long actual, long expected, const char *expr,
		 const char *file, int line)
{
	if (actual == expected)
		return;
	diag("%s is %s, expected %s", expr, ret_str(actual),
	     ret_str(expected));
	_fail(file, line);
}

/* An error of userns_agent.c: say what it was doing, fail the test. */
#define agent_check(call)						\
	do {								\
		int __err = (call);					\
									\
		if (__err) {						\
			diag("%s (%s)", agent_error(), ret_str(__err));	\
			fail();						\
		}							\
	} while (0)

/* --- levels ----------------------------------------------------------- */

/* A read or an open that failed where a test needs it: fail the test. */
#define io_check(call, what)						\
	do {								\
		int __err = (call);					\
									\
		if (__err) {						\
			diag("%s: %s", (what), ret_str(__err));		\
			fail();						\
		}							\
	} while (0)

int fd_read_level(int fd)
{
	int level = 0;

	io_check(fd_read_int(fd, &level), "reading a level descriptor");
	return level;
}

int path_read_level(const char *path)
{
	int level = 0;

	io_check(read_int(path, &level), path);
	return level;
}

int path_write_level(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret;

	io_check(fd < 0 ? -errno : 0, path);
	ret = fd_write_str(fd, s);
	close(fd);
	return ret;
}

int host_level(void)
{
	return path_read_level(PARANOID_PATH);
}

void _set_host_level(int level, const char *file, int line)
{
	char s[16];

	snprintf(s, sizeof(s), "%d", level);
	_assert_ret(path_write_level(PARANOID_PATH, s), 0,
		    "writing the host level", file, line);
	_assert_ret(host_level(), level, "host_level()", file, line);
}

/*
 * perf_event_open() of a user-only task-clock in a fork on the host as
 * uid 65534 with no capabilities: 0 or -errno. For host_reach_max() on a
 * kernel without user.perf_event_paranoid.
 */
static int host_nobody_opens(void)
{
	static const struct perf_req user_only = { .kind = PERF_TASK };

	return perf_open_as(NULL, AS_NOBODY, &user_only);
}

int host_reach_max(void)
{
	static int reach;
	int saved, shown, ret;
	const char *what;

	if (reach)
		return reach;
	saved = host_level();
	set_host_level(3);
	if (access(USER_PATH, F_OK) == 0) {
		shown = path_read_level(USER_PATH);
		what = USER_PATH;
	} else {
		/* No series: what a host user at 3 gets says it. */
		ret = host_nobody_opens();
		shown = ret == -EACCES ? 3 : ret == 0 ? 2 : ret;
		what = "perf_event_open() as uid 65534";
	}
	set_host_level(saved);
	if (shown != 2 && shown != 3) {
		diag("the host at 3: %s gives %s", what, ret_str(shown));
		fail();
	}
	reach = shown;
	diag("%s: %d, the host at 3 %s", __func__, reach,
	     reach == 3 ? "refuses unprivileged perf_event_open()" :
	     "counts as 2");
	return reach;
}

/* --- agents ----------------------------------------------------------- */

int call_as(struct agent *a, struct who w, call_fn fn, const void *arg,
	    size_t len, int in_fd, struct out *out)
{
	agent_check(agent_call(a, w, fn, arg, len, in_fd, out));
	if (out->msg[0])
		diag("%s", out->msg);
	return out->ret;
}

int call(struct agent *a, call_fn fn, const void *arg, size_t len,
	 struct out *out)
{
	return call_as(a, AS_ROOT, fn, arg, len, -1, out);
}

void call_start(struct agent *a, struct who w, call_fn fn, const void *arg,
		size_t len)
{
	agent_check(agent_call_start(a, w, fn, arg, len));
}

int call_finish(struct agent *a, struct out *out, int timeout_ms)
{
	agent_check(agent_call_finish(a, out, timeout_ms));
	if (out->msg[0])
		diag("%s", out->msg);
	return out->ret;
}

struct agent *agent_userns(struct agent *parent, uid_t outside,
			   unsigned int count)
{
	struct agent *a;

	agent_check(agent_new(parent, outside, count, &a));
	return a;
}

struct agent *agent_host(void)
{
	return agent_userns(NULL, 0, 0);
}

struct agent *container_new(void)
{
	return agent_userns(NULL, ROOTLESS_BASE, ROOTLESS_COUNT);
}

struct agent *nested_new(struct agent *parent)
{
	return agent_userns(parent, 0, ROOTLESS_COUNT);
}

/* --- calls ------------------------------------------------------------ */

struct path_arg {
	int flags;
	char path[128];
	char data[256];
};

/*
 * In an agent: what failed goes to out->msg (call_as() shows it) and the
 * caller fails the test; the value read goes to out->val[0].
 */
static int out_err(struct out *out, int err, const char *what)
{
	snprintf(out->msg, sizeof(out->msg), "%s: %s", what, ret_str(err));
	return err;
}

static int out_read_int(struct out *out, const char *path, long *v)
{
	int level, err = read_int(path, &level);

	if (err)
		return out_err(out, err, path);
	*v = level;
	return 0;
}

static int fn_read_path(const void *arg, int in_fd, struct out *out)
{
	const struct path_arg *p = arg;

	(void)in_fd;
	return out_read_int(out, p->path, &out->val[0]);
}

static int fn_write_path(const void *arg, int in_fd, struct out *out)
{
	const struct path_arg *p = arg;
	int fd = open(p->path, O_WRONLY | O_CLOEXEC), ret;

	(void)in_fd;
	if (fd < 0) {
		out->val[0] = -errno;
		return out_err(out, -errno, "opening it for writing");
	}
	ret = fd_write_str(fd, p->data);
	close(fd);
	return ret;
}

static int fn_open_path(const void *arg, int in_fd, struct out *out)
{
	const struct path_arg *p = arg;

	(void)in_fd;
	out->fd = open(p->path, p->flags | O_CLOEXEC);
	return out->fd < 0 ? -errno : 0;
}

static struct path_arg path_arg(const char *path, const char *data,
				int flags)
{
	struct path_arg p = { .flags = flags };

	assert_true(strlen(path) < sizeof(p.path));
	assert_true(!data || strlen(data) < sizeof(p.data));
	snprintf(p.path, sizeof(p.path), "%s", path);
	if (data)
		snprintf(p.data, sizeof(p.data), "%s", data);
	return p;
}

/* A call that must succeed: it returns 0 or the test fails. */
#define call_check(call)						\
	do {								\
		if (call)						\
			fail();						\
	} while (0)

int read_path_as(struct agent *a, struct who w, const char *path)
{
	struct path_arg p = path_arg(path, NULL, 0);
	struct out out;

	call_check(call_as(a, w, fn_read_path, &p, sizeof(p), -1, &out));
	return out.val[0];
}

int write_path_as(struct agent *a, struct who w, const char *path,
		  const char *s)
{
	struct path_arg p = path_arg(path, s, 0);
	struct out out;
	int ret = call_as(a, w, fn_write_path, &p, sizeof(p), -1, &out);

	/* Only a write was asked for: the file must have opened. */
	call_check(out.val[0]);
	return ret;
}

int open_path_as(struct agent *a, struct who w, const char *path, int flags,
		 int *fd)
{
	struct path_arg p = path_arg(path, NULL, flags);
	struct out out;
	int ret = call_as(a, w, fn_open_path, &p, sizeof(p), -1, &out);

	if (fd)
		*fd = out.fd;
	else if (out.fd >= 0)
		close(out.fd);
	if (!ret && out.fd < 0) {
		diag("the descriptor did not arrive");
		fail();
	}
	return ret;
}

static int fn_read_fd(const void *arg, int in_fd, struct out *out)
{
	int level, err = fd_read_int(in_fd, &level);

	(void)arg;
	if (err)
		return out_err(out, err, "reading the level descriptor");
	out->val[0] = level;
	return 0;
}

int read_fd_as(struct agent *a, struct who w, int fd)
{
	struct out out;

	call_check(call_as(a, w, fn_read_fd, NULL, 0, fd, &out));
	return out.val[0];
}

static int fn_write_fd(const void *arg, int in_fd, struct out *out)
{
	int err = fn_read_fd(NULL, in_fd, out);

	if (err) {
		out->val[1] = err;
		return err;
	}
	return fd_write_str(in_fd, arg);
}

int write_fd_as(struct agent *a, struct who w, int fd, const char *s,
		int *before)
{
	struct out out;
	int ret;

	assert_true(strlen(s) < AGENT_ARG_MAX);
	ret = call_as(a, w, fn_write_fd, s, strlen(s) + 1, fd, &out);
	/* The read before the write must have worked. */
	call_check(out.val[1]);
	*before = out.val[0];
	return ret;
}

const char *level_path(struct agent *a)
{
	return a && a->depth > 0 ? USER_PATH : PARANOID_PATH;
}

/* val[0]: PARANOID_PATH; with *@arg, val[1]: USER_PATH */
static int fn_read_level(const void *arg, int in_fd, struct out *out)
{
	const bool *both = arg;
	int err;

	(void)in_fd;
	err = out_read_int(out, PARANOID_PATH, &out->val[0]);
	if (err || !*both)
		return err;
	return out_read_int(out, USER_PATH, &out->val[1]);
}

int read_level_as(struct agent *a, struct who w)
{
	bool both = a && a->depth > 0;
	long level, user;
	struct out out;

	call_check(call_as(a, w, fn_read_level, &both, sizeof(both), -1,
			   &out));
	level = out.val[0];
	user = out.val[1];
	if (!both || user == shown_level(level))
		return level;
	/*
	 * Where the host counts for 2 at most, a level of 3 or more read
	 * in kernel.perf_event_paranoid can be the host's own, which the
	 * level in force takes as 2.
	 */
	if (level >= 3 && user == 2 && host_reach_max() == 2)
		return level;
	diag("kernel.perf_event_paranoid reads %ld, user.perf_event_paranoid "
	     "%ld (expected %d)", level, user, shown_level(level));
	fail();
	return level;
}

int read_level(struct agent *a)
{
	return read_level_as(a, AS_ROOT);
}

int write_level_as(struct agent *a, struct who w, const char *s)
{
	return write_path_as(a, w, level_path(a), s);
}

int write_level(struct agent *a, const char *s)
{
	return write_level_as(a, AS_ROOT, s);
}

int open_level_as(struct agent *a, struct who w, int flags, int *fd)
{
	return open_path_as(a, w, level_path(a), flags, fd);
}

struct setns_arg {
	int flags;		/* open only, with these flags; 0: write */
	char path[128];
	char s[2][32];
};

static int fn_setns_write(const void *arg, int in_fd, struct out *out)
{
	const struct setns_arg *p = arg;
	int fd, i, err;

	if (setns(in_fd, CLONE_NEWUSER))
		return out_err(out, -errno, "setns");
	if (p->flags) {
		fd = open(p->path, p->flags | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		close(fd);
		return 0;
	}
	for (i = 0; i < 2; i++) {
		fd = open(p->path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return out_err(out, -errno, "opening it for writing");
		out->val[i] = fd_write_str(fd, p->s[i]);
		close(fd);
	}
	err = out_read_int(out, PARANOID_PATH, &out->val[2]);
	return err ?: out_read_int(out, USER_PATH, &out->val[3]);
}

static struct setns_arg setns_arg(const char *path, int flags)
{
	struct setns_arg p;

	assert_true(strlen(path) < sizeof(p.path));
	memset(&p, 0, sizeof(p));
	p.flags = flags;
	snprintf(p.path, sizeof(p.path), "%s", path);
	return p;
}

int setns_write_as(struct agent *a, struct who w, int nsfd, const char *path,
		   const char *first, const char *second, struct out *out)
{
	struct setns_arg p = setns_arg(path, 0);

	assert_true(strlen(first) < sizeof(p.s[0]));
	assert_true(strlen(second) < sizeof(p.s[1]));
	snprintf(p.s[0], sizeof(p.s[0]), "%s", first);
	snprintf(p.s[1], sizeof(p.s[1]), "%s", second);
	return call_as(a, w, fn_setns_write, &p, sizeof(p), nsfd, out);
}

int setns_open_as(struct agent *a, struct who w, int nsfd, const char *path,
		  int flags)
{
	struct setns_arg p = setns_arg(path, flags);
	struct out out;

	assert_true(flags);
	return call_as(a, w, fn_setns_write, &p, sizeof(p), nsfd, &out);
}

/* --- the floor -------------------------------------------------------- */

int read_floor_as(struct agent *a, struct who w)
{
	return read_path_as(a, w, FLOOR_PATH);
}

int read_floor(struct agent *a)
{
	return read_floor_as(a, AS_ROOT);
}

int write_floor_as(struct agent *a, struct who w, const char *s)
{
	return write_path_as(a, w, FLOOR_PATH, s);
}

int write_floor(struct agent *a, const char *s)
{
	return write_floor_as(a, AS_ROOT, s);
}

int open_floor_as(struct agent *a, struct who w, int flags, int *fd)
{
	return open_path_as(a, w, FLOOR_PATH, flags, fd);
}

void set_host_floor(int v)
{
	char s[16];

	snprintf(s, sizeof(s), "%d", v);
	assert_ret(path_write_level(FLOOR_PATH, s), 0);
	assert_ret(path_read_level(FLOOR_PATH), v);
}

int clear_host_floor(void)
{
	return write_file(FLOOR_PATH, "-1");
}

static long perf_event_open(struct perf_event_attr *attr, pid_t pid,
			    int cpu, int group, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int fn_perf_open(const void *arg, int in_fd, struct out *out)
{
	const struct perf_req *p = arg;
	struct perf_event_attr attr;
	uint64_t count = 0, end;
	volatile unsigned long spin = 0;
	pid_t pid = 0;
	int cpu = -1, fd, i;

	(void)in_fd;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.exclude_kernel = !p->kernel;
	attr.exclude_hv = 1;
	switch (p->kind) {
	case PERF_TASK:
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_TASK_CLOCK;
		break;
	case PERF_CPU:
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		pid = -1;
		cpu = 0;
		break;
	case PERF_TRACEPOINT:
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = p->tp_id;
		attr.sample_type = PERF_SAMPLE_RAW;
		attr.sample_period = 1;
		break;
	}
	fd = perf_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	/*
	 * Work until the event has counted something: the guest's clock may
	 * be jiffies, so a clock event can read 0 for a whole tick.
	 */
	end = now_ns() + 3000000000ULL;
	do {
		for (i = 0; i < 10000; i++)
			spin++;
		if (p->kind == PERF_TRACEPOINT)
			usleep(100);
		if (read(fd, &count, sizeof(count)) != sizeof(count))
			count = 0;
	} while (!count && now_ns() < end);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(fd);
	out->val[0] = count;
	if (!count) {
		snprintf(out->msg, sizeof(out->msg),
			 "the event opened but counted nothing");
		return -ENODATA;
	}
	return 0;
}

int perf_open_as(struct agent *a, struct who w, const struct perf_req *p)
{
	struct out out;

	return call_as(a, w, fn_perf_open, p, sizeof(*p), -1, &out);
}

static int fn_tracepoint_id(const void *arg, int in_fd, struct out *out)
{
	char path[128];
	int id;

	(void)in_fd;
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return out_err(out, -errno, "a private mount namespace");
	if (access("/sys/kernel/tracing/events", F_OK) &&
	    mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL))
		return out_err(out, -errno, "mounting tracefs");
	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/id",
		 (const char *)arg);
	out->val[0] = read_int(path, &id) ? -1 : id;
	return 0;
}

int tracepoint_id(const char *event)
{
	struct out out;

	call_check(call(NULL, fn_tracepoint_id, event, strlen(event) + 1,
			&out));
	return out.val[0];
}

/* --- shell scripts ---------------------------------------------------- */

char sh_output[16384];

int sh(const char *script)
{
	struct pollfd pfd;
	size_t len = 0;
	int p[2], status;
	time_t end = time(NULL) + 120;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, 1000) < 0 && errno != EINTR)
			break;
		if (time(NULL) > end) {
			kill(pid, SIGKILL);
			break;
		}
		if (!(pfd.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(p[0], sh_output + len, sizeof(sh_output) - 1 - len);
		if (n <= 0)
			break;
		len += n;
	}
	sh_output[len] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	diag("$ %s", script);
	diag("%s", sh_output);
	if (time(NULL) > end)
		return -ETIMEDOUT;
	return WIFEXITED(status) ? WEXITSTATUS(status)
				 : 128 + WTERMSIG(status);
}

void assert_output_has(const char *s)
{
	if (!strstr(sh_output, s)) {
		diag("the output lacks \"%s\"", s);
		fail();
	}
}

/* --- randomness ------------------------------------------------------- */

static uint64_t rng_state;

void rand_init(void)
{
	const char *s = getenv("SELFTESTS_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)now_ns();

	rng_state = seed ? seed : 1;
	diag("random seed %" PRIu64 " (set SELFTESTS_SEED to repeat)", seed);
}

unsigned int rand_below(unsigned int n)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 2685821657736338717ULL) >> 32) % n;
}

/* --- fixtures --------------------------------------------------------- */

struct agent *fixture_add(struct fixture *f, struct agent *a)
{
	assert_true(f->n < (int)ARRAY_SIZE(f->agents));
	f->agents[f->n++] = a;
	return a;
}

int fixture_fd(struct fixture *f, int fd)
{
	assert_true(fd >= 0);
	assert_true(f->nfds < (int)ARRAY_SIZE(f->fds));
	f->fds[f->nfds++] = fd;
	return fd;
}

/* For the fixtures: 0 when the host is at HOST_LEVEL, else a message. */
static int host_at_its_level(const char *when)
{
	int level, err = read_int(PARANOID_PATH, &level);

	if (!err && level == HOST_LEVEL)
		return 0;
	diag("the host level is %s %s, not %d", ret_str(err ?: level), when,
	     HOST_LEVEL);
	return -1;
}

int fixture_level_fd(struct fixture *f, struct agent *a)
{
	int fd;

	assert_ret(open_level_as(a, AS_ROOT, O_RDONLY, &fd), 0);
	return fixture_fd(f, fd);
}

int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	*state = f;
	return host_at_its_level("before the test");
}

int fixture_teardown(void **state)
{
	struct fixture *f = *state;
	int ret = 0, err;

	if (!f)
		return 0;
	while (f->n > 0)
		if (agent_free(f->agents[--f->n]))
			diag("%s", agent_error());
	while (f->nfds > 0)
		close(f->fds[--f->nfds]);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	err = write_file(PARANOID_PATH, "2");
	if (err) {
		diag("restoring the host level to %d: %s", HOST_LEVEL,
		     ret_str(err));
		ret = -1;
	} else if (host_at_its_level("after the test")) {
		ret = -1;
	}
	free(f);
	*state = NULL;
	return ret;
}

int group_setup(void **state)
{
	(void)state;
	if (geteuid() != 0 || !(proc_caps("CapEff") & CAP_BIT(CAP_SYS_ADMIN))) {
		diag("these tests run as root with all capabilities, in the "
		     "guest booted by vm/guest/run");
		return -1;
	}
	if (host_at_its_level("at the start: a test left it changed"))
		return -1;
	/* Told now, before any test makes a namespace. */
	host_reach_max();
	return 0;
}

int selftests_run(const char *name, const struct CMUnitTest *tests,
		  size_t n)
{
	const char *only = getenv("SELFTESTS_ONLY");

	setvbuf(stdout, NULL, _IOLBF, 0);
	cmocka_set_message_output(CM_OUTPUT_TAP);
	if (only && *only)
		cmocka_set_test_filter(only);
	/* Agents orphaned by their parent agent come back to us. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	return _cmocka_run_group_tests(name, tests, n, group_setup, NULL);
}
