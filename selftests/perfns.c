// SPDX-License-Identifier: GPL-2.0
/*
 * perfns.c - helpers shared by the kernel.perf_event_paranoid selftests
 *
 * See perfns.h for the agent model. The wire protocol between the test
 * program and an agent is one SOCK_SEQPACKET message per request and per
 * reply, each optionally carrying one descriptor.
 */
#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perfns.h"

#define CALL_TIMEOUT_MS	60000

enum { RQ_CALL = 1, RQ_SPAWN };

struct request {
	int kind;
	struct who who;
	call_fn fn;
	uid_t outside;
	unsigned int count;
	size_t len;
	unsigned char arg[1024];
};

struct reply {
	int ret;
	pid_t pid;
	long val[4];
	char msg[256];
};

static int spawn_agent(uid_t outside, unsigned int count, int *sockp,
		       pid_t *pidp, char *msg);

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

	if (ret <= -EREAD && ret > -EREAD - 1000) {
		name = strerrorname_np(-ret - EREAD);
		snprintf(buf, 64, "READ_ERR(%s)", name ? name : "?");
	} else if (ret <= -EOPEN && ret > -EOPEN - 1000) {
		name = strerrorname_np(-ret - EOPEN);
		snprintf(buf, 64, "OPEN_ERR(%s)", name ? name : "?");
	} else {
		name = ret < 0 && ret > -1000 ? strerrorname_np(-ret) : NULL;
		/* Could be a level too: show both. */
		if (name)
			snprintf(buf, 64, "%ld (-%s)", ret, name);
		else
			snprintf(buf, 64, "%ld", ret);
	}
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

/* --- levels ----------------------------------------------------------- */

int read_level_fd(int fd)
{
	char buf[32], *end;
	ssize_t n;
	long v;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return READ_ERR(errno);
	buf[n] = '\0';
	/* proc_dointvec format: one decimal integer and a newline. */
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || strcmp(end, "\n") || v < INT_MIN ||
	    v > INT_MAX)
		return READ_ERR(EBADMSG);
	return v;
}

int write_level_fd(int fd, const char *s)
{
	ssize_t n = pwrite(fd, s, strlen(s), 0);

	if (n < 0)
		return -errno;
	return (size_t)n == strlen(s) ? 0 : -EIO;
}

int host_level(void)
{
	int fd = open(PARANOID_PATH, O_RDONLY | O_CLOEXEC);
	int level;

	if (fd < 0)
		return OPEN_ERR(errno);
	level = read_level_fd(fd);
	close(fd);
	return level;
}

static int host_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return OPEN_ERR(errno);
	ret = write_level_fd(fd, s);
	close(fd);
	return ret;
}

void _set_host_level(int level, const char *file, int line)
{
	char s[16];

	snprintf(s, sizeof(s), "%d", level);
	_assert_ret(host_write(PARANOID_PATH, s), 0, "writing the host level",
		    file, line);
	_assert_ret(host_level(), level, "host_level()", file, line);
}

/* --- capabilities ----------------------------------------------------- */

uint64_t proc_caps(const char *field)
{
	char line[256];
	size_t len = strlen(field);
	uint64_t caps = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			caps = strtoull(line + len + 1, NULL, 16);
	fclose(f);
	return caps;
}

static int last_cap(void)
{
	static int last = -1;
	FILE *f;

	if (last < 0) {
		f = fopen("/proc/sys/kernel/cap_last_cap", "re");
		if (!f || fscanf(f, "%d", &last) != 1)
			last = 40;
		if (f)
			fclose(f);
	}
	return last;
}

/*
 * Become @w in a call child: libcap-ng sets the capability sets, and the
 * result is checked against /proc/self/status so that a test never runs with
 * other capabilities than it says.
 */
static int become(struct who w, struct out *out)
{
	uint64_t want, eff, prm, bnd;
	int cap, rc;

	if (w.uid < 0 && w.caps == CAPS_ALL)
		return 0;
	want = proc_caps("CapEff");
	if (w.caps != CAPS_ALL)
		want &= w.caps;

	capng_get_caps_process();
	capng_clear(CAPNG_SELECT_BOTH);
	for (cap = 0; cap <= last_cap(); cap++)
		if (want & CAP_BIT(cap))
			capng_update(CAPNG_ADD, CAPNG_EFFECTIVE |
				     CAPNG_PERMITTED | CAPNG_BOUNDING_SET, cap);
	/* The bounding set first, while CAP_SETPCAP is still effective. */
	rc = capng_apply(CAPNG_SELECT_BOUNDS);
	if (!rc && w.uid >= 0)
		rc = capng_change_id(w.uid, w.uid, CAPNG_DROP_SUPP_GRP);
	if (!rc)
		rc = capng_apply(CAPNG_SELECT_CAPS);
	if (rc) {
		snprintf(out->msg, sizeof(out->msg),
			 "libcap-ng could not set uid %d caps %#" PRIx64
			 ": %d", w.uid, want, rc);
		return -ENOTRECOVERABLE;
	}
	eff = proc_caps("CapEff");
	prm = proc_caps("CapPrm");
	bnd = proc_caps("CapBnd");
	if (eff != want || prm != want || bnd != want ||
	    (w.uid >= 0 && (getuid() != (uid_t)w.uid ||
			    geteuid() != (uid_t)w.uid))) {
		snprintf(out->msg, sizeof(out->msg),
			 "wanted uid %d caps %#" PRIx64 ", have uid %d/%d "
			 "CapEff %#" PRIx64 " CapPrm %#" PRIx64
			 " CapBnd %#" PRIx64, w.uid, want, getuid(),
			 geteuid(), eff, prm, bnd);
		return -ENOTRECOVERABLE;
	}
	return 0;
}

/* --- messages --------------------------------------------------------- */

static int send_msg(int sock, const void *buf, size_t len, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;

	if (fd >= 0) {
		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* Returns the length received, 0 at EOF, -1 on error or timeout. */
static ssize_t recv_msg(int sock, void *buf, size_t len, int *fd,
			int timeout_ms)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	struct cmsghdr *cmsg;
	ssize_t n;
	int r;

	if (fd)
		*fd = -1;
	if (timeout_ms >= 0) {
		do {
			r = poll(&pfd, 1, timeout_ms);
		} while (r < 0 && errno == EINTR);
		if (r <= 0) {
			errno = r ? errno : ETIMEDOUT;
			return -1;
		}
	}
	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg))
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_RIGHTS) {
			if (fd)
				memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
			else
				close(*(int *)CMSG_DATA(cmsg));
		}
	return n;
}

/*
 * In a new child: move the descriptors in @fds to 3, 4, ... in order and
 * close every other descriptor above 2, so that the child holds no end of
 * another agent's socket. A negative entry leaves its slot closed.
 */
static void keep_fds(int *fds, int n)
{
	int i, tmp[8];

	for (i = 0; i < n; i++)
		tmp[i] = fds[i] >= 0 ? fcntl(fds[i], F_DUPFD, 100 + i) : -1;
	for (i = 0; i < n; i++)
		if (tmp[i] >= 0)
			dup2(tmp[i], 3 + i);
	for (i = 0; i < n; i++)
		if (tmp[i] < 0)
			close(3 + i);
	syscall(SYS_close_range, 3 + n, ~0U, 0);
	for (i = 0; i < n; i++)
		fds[i] = tmp[i] >= 0 ? 3 + i : -1;
}

static void __attribute__((noreturn))
run_call(int sock, const struct request *rq, int in_fd)
{
	struct out out = { .fd = -1 };
	struct reply rp;
	int ret;

	memset(&rp, 0, sizeof(rp));
	ret = become(rq->who, &out);
	if (!ret)
		ret = rq->fn(rq->arg, in_fd, &out);
	rp.ret = ret;
	rp.pid = getpid();
	memcpy(rp.val, out.val, sizeof(rp.val));
	memcpy(rp.msg, out.msg, sizeof(rp.msg));
	rp.msg[sizeof(rp.msg) - 1] = '\0';
	send_msg(sock, &rp, sizeof(rp), out.fd);
	_exit(0);
}

static void __attribute__((noreturn)) agent_loop(int sock)
{
	struct request rq;
	struct reply rp;
	int in_fd, nsock;
	pid_t pid;
	ssize_t n;

	/* Children, call children and nested agents, are reaped at exit. */
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		n = recv_msg(sock, &rq, sizeof(rq), &in_fd, -1);
		if (n <= 0)
			_exit(0);
		if (rq.kind == RQ_SPAWN) {
			memset(&rp, 0, sizeof(rp));
			nsock = -1;
			rp.ret = spawn_agent(rq.outside, rq.count, &nsock,
					     &rp.pid, rp.msg);
			send_msg(sock, &rp, sizeof(rp), nsock);
			if (nsock >= 0)
				close(nsock);
			continue;
		}
		pid = fork();
		if (pid == 0) {
			signal(SIGCHLD, SIG_DFL);
			run_call(sock, &rq, in_fd);
		}
		if (in_fd >= 0)
			close(in_fd);
		if (pid < 0) {
			memset(&rp, 0, sizeof(rp));
			rp.ret = -errno;
			snprintf(rp.msg, sizeof(rp.msg), "agent: fork: %m");
			send_msg(sock, &rp, sizeof(rp), -1);
			continue;
		}
		/* Ignored SIGCHLD: returns (ECHILD) once the child is gone. */
		while (waitpid(pid, NULL, 0) >= 0 || errno == EINTR)
			;
	}
}

static void __attribute__((noreturn))
agent_main(int sock, uid_t outside, unsigned int count)
{
	int err = 0, go = -1;

	if (geteuid() != outside &&
	    (setgroups(0, NULL) || setresgid(outside, outside, outside) ||
	     setresuid(outside, outside, outside)))
		err = -errno;
	/* So that the parent may write our maps after our uid changed. */
	prctl(PR_SET_DUMPABLE, 1);
	/* count 0: an agent on the host, in no new namespace. */
	if (!err && count && unshare(CLONE_NEWUSER))
		err = -errno;
	if (send_msg(sock, &err, sizeof(err), -1) || err)
		_exit(1);
	if (recv_msg(sock, &go, sizeof(go), NULL, CALL_TIMEOUT_MS) !=
	    sizeof(go) || go)
		_exit(1);
	/* uid and gid 0 inside: the root of the namespace, with all caps. */
	if (setresgid(0, 0, 0) || setgroups(0, NULL) || setresuid(0, 0, 0))
		err = -errno;
	prctl(PR_SET_DUMPABLE, 1);
	if (send_msg(sock, &err, sizeof(err), -1) || err)
		_exit(1);
	agent_loop(sock);
}

int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : n < 0 ? -errno : -EIO;
}

int unshare_mapped(void)
{
	char umap[32], gmap[32];

	snprintf(umap, sizeof(umap), "0 %u 1", geteuid());
	snprintf(gmap, sizeof(gmap), "0 %u 1", getegid());
	if (unshare(CLONE_NEWUSER) ||
	    write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", umap) ||
	    write_file("/proc/self/gid_map", gmap))
		return -1;
	return 0;
}

/*
 * Fork an agent that creates a user namespace, write its maps from here and
 * wait until it is uid 0 inside. Runs in the test program or in an agent.
 */
static int spawn_agent(uid_t outside, unsigned int count, int *sockp,
		       pid_t *pidp, char *msg)
{
	char path[64], map[64];
	int sv[2], err = 0, ret;
	pid_t pid;

	*sockp = -1;
	*pidp = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (pid == 0) {
		int fds[1] = { sv[1] };

		signal(SIGCHLD, SIG_DFL);
		keep_fds(fds, 1);
		agent_main(fds[0], outside, count);
	}
	close(sv[1]);
	if (recv_msg(sv[0], &err, sizeof(err), NULL, CALL_TIMEOUT_MS) !=
	    sizeof(err)) {
		snprintf(msg, 256, "agent %d died before unshare", pid);
		err = -EPIPE;
		goto fail;
	}
	if (err) {
		snprintf(msg, 256, "agent: unshare as uid %u: %s", outside,
			 strerror(-err));
		goto fail;
	}
	snprintf(map, sizeof(map), "0 %u %u\n", outside, count);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	err = count ? write_file(path, map) : 0;
	if (!err && count) {
		snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
		err = write_file(path, map);
	}
	if (err) {
		snprintf(msg, 256, "writing %s \"0 %u %u\": %s", path,
			 outside, count, strerror(-err));
		send_msg(sv[0], &err, sizeof(err), -1);
		goto fail;
	}
	send_msg(sv[0], &err, sizeof(err), -1);
	if (recv_msg(sv[0], &ret, sizeof(ret), NULL, CALL_TIMEOUT_MS) !=
	    sizeof(ret)) {
		snprintf(msg, 256, "agent %d died becoming root", pid);
		err = -EPIPE;
		goto fail;
	}
	if (ret) {
		snprintf(msg, 256, "agent: becoming uid 0: %s",
			 strerror(-ret));
		err = ret;
		goto fail;
	}
	*sockp = sv[0];
	*pidp = pid;
	return 0;
fail:
	close(sv[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return err;
}

/* --- the test program's side ------------------------------------------ */

int call_as(struct agent *a, struct who w, call_fn fn, const void *arg,
	    size_t len, int in_fd, struct out *out)
{
	struct request rq;
	struct reply rp;
	int sv[2] = { -1, -1 }, sock, fds[2];
	pid_t pid = -1;
	ssize_t n;

	memset(&rq, 0, sizeof(rq));
	assert_true(len <= sizeof(rq.arg));
	rq.kind = RQ_CALL;
	rq.who = w;
	rq.fn = fn;
	rq.len = len;
	if (len)
		memcpy(rq.arg, arg, len);

	if (a) {
		sock = a->sock;
		if (send_msg(sock, &rq, sizeof(rq), in_fd)) {
			diag("sending a call to agent %d: %m", a->pid);
			fail();
		}
	} else {
		assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET |
					    SOCK_CLOEXEC, 0, sv), 0);
		fflush(stdout);
		fflush(stderr);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			fds[0] = sv[1];
			fds[1] = in_fd;
			keep_fds(fds, 2);
			run_call(fds[0], &rq, fds[1]);
		}
		close(sv[1]);
		sock = sv[0];
	}

	n = recv_msg(sock, &rp, sizeof(rp), &out->fd, CALL_TIMEOUT_MS);
	if (pid > 0) {
		if (n != sizeof(rp))
			kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(sock);
	}
	if (n != sizeof(rp)) {
		diag("no answer from %s %d: %s", a ? "agent" : "host call",
		     a ? a->pid : pid, n < 0 ? strerror(errno) : "EOF");
		fail();
	}
	memcpy(out->val, rp.val, sizeof(out->val));
	memcpy(out->msg, rp.msg, sizeof(out->msg));
	if (rp.msg[0])
		diag("%s", rp.msg);
	return rp.ret;
}

void call_start(struct agent *a, struct who w, call_fn fn, const void *arg,
		size_t len)
{
	struct request rq;

	memset(&rq, 0, sizeof(rq));
	assert_true(len <= sizeof(rq.arg));
	rq.kind = RQ_CALL;
	rq.who = w;
	rq.fn = fn;
	rq.len = len;
	if (len)
		memcpy(rq.arg, arg, len);
	if (send_msg(a->sock, &rq, sizeof(rq), -1)) {
		diag("sending a call to agent %d: %m", a->pid);
		fail();
	}
}

int call_finish(struct agent *a, struct out *out, int timeout_ms)
{
	struct reply rp;
	ssize_t n;

	n = recv_msg(a->sock, &rp, sizeof(rp), &out->fd, timeout_ms);
	if (n != sizeof(rp)) {
		diag("no answer from agent %d: %s", a->pid,
		     n < 0 ? strerror(errno) : "EOF");
		fail();
	}
	memcpy(out->val, rp.val, sizeof(out->val));
	memcpy(out->msg, rp.msg, sizeof(out->msg));
	if (rp.msg[0])
		diag("%s", rp.msg);
	return rp.ret;
}

struct agent *agent_host(void)
{
	struct agent *a = agent_userns(NULL, 0, 0);

	a->depth = 0;
	return a;
}

int call(struct agent *a, call_fn fn, const void *arg, size_t len,
	 struct out *out)
{
	return call_as(a, AS_ROOT, fn, arg, len, -1, out);
}

struct agent *agent_userns(struct agent *parent, uid_t outside,
			   unsigned int count)
{
	struct agent *a = calloc(1, sizeof(*a));
	struct request rq;
	struct reply rp;
	char msg[256] = "";
	int ret;

	assert_non_null(a);
	if (!parent) {
		ret = spawn_agent(outside, count, &a->sock, &a->pid, msg);
		a->child = true;
	} else {
		memset(&rq, 0, sizeof(rq));
		rq.kind = RQ_SPAWN;
		rq.outside = outside;
		rq.count = count;
		assert_int_equal(send_msg(parent->sock, &rq, sizeof(rq), -1),
				 0);
		if (recv_msg(parent->sock, &rp, sizeof(rp), &a->sock,
			     CALL_TIMEOUT_MS) != sizeof(rp)) {
			diag("agent %d did not answer a spawn", parent->pid);
			fail();
		}
		ret = rp.ret;
		a->pid = rp.pid;
		memcpy(msg, rp.msg, sizeof(msg));
	}
	if (ret) {
		diag("creating a user namespace: %s: %s", ret_str(ret), msg);
		free(a);
		fail();
		return NULL;
	}
	a->depth = parent ? parent->depth + 1 : 1;
	a->pidfd = syscall(SYS_pidfd_open, a->pid, 0);
	assert_true(a->pidfd >= 0);
	return a;
}

struct agent *container_new(void)
{
	return agent_userns(NULL, ROOTLESS_BASE, ROOTLESS_COUNT);
}

struct agent *nested_new(struct agent *parent)
{
	return agent_userns(parent, 0, ROOTLESS_COUNT);
}

void agent_free(struct agent *a)
{
	struct pollfd pfd;

	if (!a)
		return;
	close(a->sock);
	pfd.fd = a->pidfd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) <= 0) {
		diag("agent %d did not exit: killing it", a->pid);
		syscall(SYS_pidfd_send_signal, a->pidfd, SIGKILL, NULL, 0);
		poll(&pfd, 1, 10000);
	}
	if (a->child)
		waitpid(a->pid, NULL, 0);
	close(a->pidfd);
	free(a);
}

int agent_userns_fd(struct agent *a)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", a->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

/* --- calls ------------------------------------------------------------ */

static int fn_read_level(const void *arg, int in_fd, struct out *out)
{
	int fd = open(PARANOID_PATH, O_RDONLY | O_CLOEXEC);
	int ret;

	(void)arg;
	(void)in_fd;
	(void)out;
	if (fd < 0)
		return OPEN_ERR(errno);
	ret = read_level_fd(fd);
	close(fd);
	return ret;
}

static int fn_write_level(const void *arg, int in_fd, struct out *out)
{
	int fd = open(PARANOID_PATH, O_WRONLY | O_CLOEXEC);
	int ret;

	(void)in_fd;
	(void)out;
	if (fd < 0)
		return OPEN_ERR(errno);
	ret = write_level_fd(fd, arg);
	close(fd);
	return ret;
}

static int fn_open_level(const void *arg, int in_fd, struct out *out)
{
	int flags;

	(void)in_fd;
	memcpy(&flags, arg, sizeof(flags));
	out->fd = open(PARANOID_PATH, flags | O_CLOEXEC);
	return out->fd < 0 ? -errno : 0;
}

int read_level_as(struct agent *a, struct who w)
{
	struct out out;

	return call_as(a, w, fn_read_level, NULL, 0, -1, &out);
}

int read_level(struct agent *a)
{
	return read_level_as(a, AS_ROOT);
}

int write_level_as(struct agent *a, struct who w, const char *s)
{
	struct out out;

	return call_as(a, w, fn_write_level, s, strlen(s) + 1, -1, &out);
}

int write_level(struct agent *a, const char *s)
{
	return write_level_as(a, AS_ROOT, s);
}

int open_level_as(struct agent *a, struct who w, int flags, int *fd)
{
	struct out out;
	int ret = call_as(a, w, fn_open_level, &flags, sizeof(flags), -1,
			  &out);

	*fd = out.fd;
	if (!ret && out.fd < 0) {
		diag("the descriptor did not arrive");
		fail();
	}
	return ret;
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

/* --- randomness ------------------------------------------------------- */

static uint64_t rng_state;

void rand_init(void)
{
	const char *s = getenv("PERFNS_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)now_ns();

	rng_state = seed ? seed : 1;
	diag("random seed %" PRIu64 " (set PERFNS_SEED to repeat)", seed);
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

int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	*state = f;
	if (host_level() != HOST_LEVEL) {
		diag("the host level is %s before the test, not %d",
		     ret_str(host_level()), HOST_LEVEL);
		return -1;
	}
	return 0;
}

int fixture_teardown(void **state)
{
	struct fixture *f = *state;
	int ret = 0, level;

	if (!f)
		return 0;
	while (f->n > 0)
		agent_free(f->agents[--f->n]);
	while (f->nfds > 0)
		close(f->fds[--f->nfds]);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	level = host_write(PARANOID_PATH, "2");
	if (!level)
		level = host_level();
	if (level != HOST_LEVEL) {
		diag("restoring the host level to %d: %s", HOST_LEVEL,
		     ret_str(level));
		ret = -1;
	}
	free(f);
	*state = NULL;
	return ret;
}

int group_setup(void **state)
{
	int level = host_level();

	(void)state;
	if (geteuid() != 0 || !(proc_caps("CapEff") & CAP_BIT(CAP_SYS_ADMIN))) {
		diag("these tests run as root with all capabilities, in the "
		     "guest booted by vm/guest/run");
		return -1;
	}
	if (level != HOST_LEVEL) {
		diag("the host level is %s, not %d: a test left it changed",
		     ret_str(level), HOST_LEVEL);
		return -1;
	}
	return 0;
}

int perfns_run(const char *name, const struct CMUnitTest *tests, size_t n)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	cmocka_set_message_output(CM_OUTPUT_TAP);
	/* Agents orphaned by their parent agent come back to us. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	return _cmocka_run_group_tests(name, tests, n, group_setup, NULL);
}
