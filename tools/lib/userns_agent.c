// SPDX-License-Identifier: GPL-2.0
/*
 * userns_agent.c - agents in user namespaces (see userns_agent.h)
 *
 * The wire protocol between a program and an agent is one SOCK_SEQPACKET
 * message per request and per reply, each optionally carrying one
 * descriptor.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "userns_agent.h"

enum { RQ_CALL = 1, RQ_SPAWN };

struct request {
	int kind;
	struct who who;
	call_fn fn;
	uid_t outside;
	unsigned int count;
	size_t len;
	unsigned char arg[AGENT_ARG_MAX];
};

struct reply {
	int ret;
	pid_t pid;
	long val[4];
	char msg[256];
};

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

	if (last < 0 && read_int("/proc/sys/kernel/cap_last_cap", &last))
		last = 40;
	return last;
}

/*
 * Become @w in a call child: libcap-ng sets the capability sets, and the
 * result is checked against /proc/self/status so that a call never runs with
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

/* --- the agent's side ------------------------------------------------- */

static int spawn_agent(uid_t outside, unsigned int count, int *sockp,
		       pid_t *pidp, char *msg);

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

	/* Children, call children and nested agents, are reaped at exit. */
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		if (recv_msg(sock, &rq, sizeof(rq), &in_fd, -1) <= 0)
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
	/* count 0: an agent in the parent's namespace, no new one. */
	if (!err && count && unshare(CLONE_NEWUSER))
		err = -errno;
	if (send_msg(sock, &err, sizeof(err), -1) || err)
		_exit(1);
	if (recv_msg(sock, &go, sizeof(go), NULL, AGENT_TIMEOUT_MS) !=
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

/*
 * Fork an agent that creates a user namespace, write its maps from here and
 * wait until it is uid 0 inside. Runs in the program or in an agent; @msg
 * (256 bytes) says what failed.
 */
static int spawn_agent(uid_t outside, unsigned int count, int *sockp,
		       pid_t *pidp, char *msg)
{
	char path[64], map[64];
	int sv[2], err = 0, ret;
	pid_t pid;

	*sockp = -1;
	*pidp = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		err = -errno;
		snprintf(msg, 256, "socketpair: %m");
		return err;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		snprintf(msg, 256, "fork: %m");
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
	if (recv_msg(sv[0], &err, sizeof(err), NULL, AGENT_TIMEOUT_MS) !=
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
	if (recv_msg(sv[0], &ret, sizeof(ret), NULL, AGENT_TIMEOUT_MS) !=
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

/* --- the caller's side ------------------------------------------------ */

int agent_new(struct agent *parent, uid_t outside, unsigned int count,
	      struct agent **ap)
{
	struct agent *a = calloc(1, sizeof(*a));
	struct request rq;
	struct reply rp;
	char msg[256] = "";
	ssize_t n;
	int ret;

	*ap = NULL;
	if (!a)
		return agent_fail(-ENOMEM, "creating an agent: no memory");
	if (!parent) {
		ret = spawn_agent(outside, count, &a->sock, &a->pid, msg);
		a->child = true;
	} else {
		memset(&rq, 0, sizeof(rq));
		rq.kind = RQ_SPAWN;
		rq.outside = outside;
		rq.count = count;
		ret = send_msg(parent->sock, &rq, sizeof(rq), -1);
		n = ret ? ret : recv_msg(parent->sock, &rp, sizeof(rp),
					 &a->sock, AGENT_TIMEOUT_MS);
		if (n != sizeof(rp)) {
			free(a);
			return agent_fail(n < 0 ? n : -EPIPE,
					  "agent %d did not answer a spawn: %s",
					  parent->pid,
					  n < 0 ? strerror(-n) : "EOF");
		}
		ret = rp.ret;
		a->pid = rp.pid;
		memcpy(msg, rp.msg, sizeof(msg));
		msg[sizeof(msg) - 1] = '\0';
	}
	if (ret) {
		free(a);
		return agent_fail(ret, "creating a user namespace: %s",
				  msg);
	}
	a->depth = (parent ? parent->depth : 0) + (count ? 1 : 0);
	a->pidfd = syscall(SYS_pidfd_open, a->pid, 0);
	if (a->pidfd < 0) {
		ret = agent_fail(-errno, "pidfd_open(%d): %m", a->pid);
		close(a->sock);
		kill(a->pid, SIGKILL);
		if (a->child)
			waitpid(a->pid, NULL, 0);
		free(a);
		return ret;
	}
	*ap = a;
	return 0;
}

int agent_free(struct agent *a)
{
	struct pollfd pfd;
	int ret = 0;

	if (!a)
		return 0;
	close(a->sock);
	pfd.fd = a->pidfd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) <= 0) {
		ret = agent_fail(-ETIMEDOUT,
				 "agent %d did not exit: killed it", a->pid);
		syscall(SYS_pidfd_send_signal, a->pidfd, SIGKILL, NULL, 0);
		poll(&pfd, 1, 10000);
	}
	if (a->child)
		waitpid(a->pid, NULL, 0);
	close(a->pidfd);
	free(a);
	return ret;
}

int agent_userns_fd(struct agent *a)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", a->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? agent_fail(-errno, "open %s: %m", path) : fd;
}

static int make_request(struct request *rq, struct who w, call_fn fn,
			const void *arg, size_t len)
{
	memset(rq, 0, sizeof(*rq));
	if (len > sizeof(rq->arg))
		return agent_fail(-EMSGSIZE,
				  "a call's argument of %zu bytes (at most %zu)",
				  len, sizeof(rq->arg));
	rq->kind = RQ_CALL;
	rq->who = w;
	rq->fn = fn;
	rq->len = len;
	if (len)
		memcpy(rq->arg, arg, len);
	return 0;
}

/* The reply to a call, into @out; @what and @pid name who did not answer. */
static int take_reply(int sock, struct out *out, int timeout_ms,
		      const char *what, pid_t pid)
{
	struct reply rp;
	ssize_t n;

	n = recv_msg(sock, &rp, sizeof(rp), &out->fd, timeout_ms);
	if (n != sizeof(rp))
		return agent_fail(n < 0 ? n : -EPIPE,
				  "no answer from %s %d: %s", what, pid,
				  n < 0 ? strerror(-n) : "EOF");
	out->ret = rp.ret;
	memcpy(out->val, rp.val, sizeof(out->val));
	memcpy(out->msg, rp.msg, sizeof(out->msg));
	return 0;
}

int agent_call(struct agent *a, struct who w, call_fn fn, const void *arg,
	       size_t len, int in_fd, struct out *out)
{
	struct request rq;
	int sv[2], fds[2], err;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	err = make_request(&rq, w, fn, arg, len);
	if (err)
		return err;
	if (a) {
		err = send_msg(a->sock, &rq, sizeof(rq), in_fd);
		if (err)
			return agent_fail(err,
					  "sending a call to agent %d: %s",
					  a->pid, strerror(-err));
		return take_reply(a->sock, out, AGENT_TIMEOUT_MS, "agent",
				  a->pid);
	}

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return agent_fail(-errno, "socketpair: %m");
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = agent_fail(-errno, "fork: %m");
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (pid == 0) {
		fds[0] = sv[1];
		fds[1] = in_fd;
		keep_fds(fds, 2);
		run_call(fds[0], &rq, fds[1]);
	}
	close(sv[1]);
	err = take_reply(sv[0], out, AGENT_TIMEOUT_MS, "host call", pid);
	if (err)
		kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(sv[0]);
	return err;
}

int agent_call_start(struct agent *a, struct who w, call_fn fn,
		     const void *arg, size_t len)
{
	struct request rq;
	int err = make_request(&rq, w, fn, arg, len);

	if (err)
		return err;
	err = send_msg(a->sock, &rq, sizeof(rq), -1);
	if (err)
		return agent_fail(err, "sending a call to agent %d: %s",
				  a->pid, strerror(-err));
	return 0;
}

int agent_call_finish(struct agent *a, struct out *out, int timeout_ms)
{
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	return take_reply(a->sock, out, timeout_ms, "agent", a->pid);
}
