// SPDX-License-Identifier: GPL-2.0
/*
 * ns.c - the one way perfns reads and writes the level of a user namespace.
 *
 * /proc/sys/kernel/perf_event_paranoid shows, and takes, the level of the
 * user namespace that the file is opened in. To reach another namespace a
 * short-lived child setns()es into it and opens the file there; the caller's
 * own namespace is read and written in place. Every subcommand goes through
 * level_read() and level_write(), which report where an attempt stopped in a
 * struct lvl_result, and report_level_error() turns that into one message.
 *
 * The same machinery tells whether the kernel has the series at all, by
 * behaviour: with it, the file opened in another user namespace is another
 * object (another inode) than the caller's; without it, every namespace gets
 * the caller's file, pinned by a descriptor the caller holds meanwhile.
 */
#define _GNU_SOURCE
#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfns.h"

/* level_in_child(): make a new user namespace instead of entering one. */
#define NEW_USERNS	(-2)

int self_userns_ino(ino_t *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/user", &st))
		return -errno;
	*ino = st.st_ino;
	return 0;
}

int userns_self(struct userns *ns)
{
	int ret;

	ns->fd = -1;
	snprintf(ns->name, sizeof(ns->name), "your user namespace");
	ret = self_userns_ino(&ns->ino);
	if (ret) {
		msg("cannot find your user namespace: /proc/self/ns/user: %s",
		    strerror(-ret));
		return EXIT_FAIL;
	}
	return 0;
}

/* Opens PID's user namespace; on failure says why and returns EXIT_FAIL. */
int userns_of_pid(pid_t pid, struct userns *ns)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	snprintf(ns->name, sizeof(ns->name), "user namespace of pid %d",
		 (int)pid);
	ns->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ns->fd < 0) {
		int err = errno;

		if (err == ENOENT || err == ESRCH)
			msg("no such process: %d", (int)pid);
		else if (err == EACCES || err == EPERM)
			msg("need CAP_SYS_ADMIN over the %s (cannot open %s: %s)",
			    ns->name, path, strerror(err));
		else
			msg("cannot open %s: %s", path, strerror(err));
		return EXIT_FAIL;
	}
	if (fstat(ns->fd, &st)) {
		msg("cannot stat %s: %s", path, strerror(errno));
		userns_close(ns);
		return EXIT_FAIL;
	}
	ns->ino = st.st_ino;
	return 0;
}

bool userns_is_self(const struct userns *ns)
{
	ino_t self;

	if (ns->fd < 0)
		return true;
	return !self_userns_ino(&self) && self == ns->ino;
}

void userns_close(struct userns *ns)
{
	if (ns->fd >= 0)
		close(ns->fd);
	ns->fd = -1;
}

bool have_cap_sys_admin(void)
{
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_get_caps_process())
		return false;
	return capng_have_capability(CAPNG_EFFECTIVE, CAP_SYS_ADMIN);
}

static int read_level_fd(int fd, int *level)
{
	char buf[32], *end;
	ssize_t n;
	long v;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return -EBADMSG;
	*level = (int)v;
	return 0;
}

/*
 * Read or write the level of the namespace this process is in now.
 *
 * Before a write, make sure the kernel has a level per namespace: with
 * @other, the identity of the file as opened in another namespace, a file
 * that is the same object means it has not (flagged global, never
 * written); without it, kernel_per_ns() decides. That comes before the
 * permission check so that a kernel without the series is named as the
 * reason whoever asks, except that a namespace where no nested one can be
 * made (uid unmapped) hears about the capability it lacks first.
 */
int level_io_here(bool wr, int level, const struct stat *other,
		  struct lvl_result *res)
{
	int rfd, wfd = -1, per_ns = 1, err = 0, len, ret;
	struct stat st;
	char buf[24];
	ssize_t n;

	memset(res, 0, sizeof(*res));
	res->level = -1;
	res->write = wr;
	rfd = open(PARANOID_PATH, O_RDONLY | O_CLOEXEC);
	if (rfd < 0) {
		res->stage = LVL_OPEN;
		res->err = errno;
		return -1;
	}
	if (other) {
		if (fstat(rfd, &st)) {
			res->stage = LVL_INTERNAL;
			res->err = errno;
			goto out;
		}
		res->global = st.st_dev == other->st_dev &&
			      st.st_ino == other->st_ino;
		per_ns = !res->global;
	} else if (wr) {
		per_ns = kernel_per_ns(&err);
	}

	if (!wr) {
		ret = read_level_fd(rfd, &res->level);
		res->have_level = !ret;
		if (ret) {
			res->stage = LVL_READ;
			res->err = -ret;
		}
		goto out;
	}

	if (!per_ns) {
		res->stage = LVL_GLOBAL;
		goto out;
	}
	wfd = open(PARANOID_PATH, O_WRONLY | O_CLOEXEC);
	if (wfd < 0) {
		res->stage = LVL_OPEN;
		res->err = errno;
		goto out;
	}
	if (per_ns < 0) {
		res->stage = LVL_UNSURE;
		res->err = err;
		goto out;
	}
	len = snprintf(buf, sizeof(buf), "%d\n", level);
	n = pwrite(wfd, buf, len, 0);
	if (n != len) {
		res->stage = LVL_WRITE;
		res->err = n < 0 ? errno : EIO;
	}
	/* The level in force now: what refused the write, if it was. */
	res->have_level = !read_level_fd(rfd, &res->level);
out:
	if (wfd >= 0)
		close(wfd);
	close(rfd);
	return res->stage == LVL_OK ? 0 : -1;
}

/*
 * Run level_io_here() in a child that first enters the user namespace @nsfd
 * (or a new one, NEW_USERNS), comparing the file found there with the
 * caller's own. The result comes back through a pipe.
 */
static int level_in_child(int nsfd, bool wr, int level,
			  struct lvl_result *res)
{
	struct lvl_result r;
	struct stat mine;
	int hostfd, p[2], status;
	ssize_t n;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	res->level = -1;
	res->write = wr;
	res->stage = LVL_INTERNAL;

	hostfd = open(PARANOID_PATH, O_RDONLY | O_CLOEXEC);
	if (hostfd < 0) {
		res->stage = LVL_OPEN;
		res->err = errno;
		return -1;
	}
	if (fstat(hostfd, &mine) || pipe2(p, O_CLOEXEC)) {
		res->err = errno;
		close(hostfd);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		res->err = errno;
		close(p[0]);
		close(p[1]);
		close(hostfd);
		return -1;
	}
	if (pid == 0) {
		int ret = nsfd == NEW_USERNS ? unshare(CLONE_NEWUSER) :
					       setns(nsfd, CLONE_NEWUSER);

		if (ret) {
			memset(&r, 0, sizeof(r));
			r.stage = LVL_SETNS;
			r.err = errno;
			r.level = -1;
			r.write = wr;
		} else {
			level_io_here(wr, level, &mine, &r);
		}
		n = write(p[1], &r, sizeof(r));
		_exit(n == sizeof(r) ? 0 : 1);
	}

	close(p[1]);
	do {
		n = read(p[0], &r, sizeof(r));
	} while (n < 0 && errno == EINTR);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	close(hostfd);
	if (n != sizeof(r)) {
		res->err = n < 0 ? errno : ECHILD;
		return -1;
	}
	*res = r;
	return res->stage == LVL_OK ? 0 : -1;
}

/*
 * Does this kernel have a perf_event_paranoid per user namespace? Asked once,
 * of a fresh user namespace. Returns 1 or 0, or -1 with *err when it cannot
 * tell (no user namespace could be made).
 */
int kernel_per_ns(int *err)
{
	static int answer = -2, saved_err;
	struct lvl_result r;

	if (answer == -2) {
		level_in_child(NEW_USERNS, false, 0, &r);
		if (r.stage == LVL_OK) {
			answer = !r.global;
		} else {
			answer = -1;
			saved_err = r.err;
		}
	}
	if (err)
		*err = saved_err;
	return answer;
}

int level_read(const struct userns *ns, struct lvl_result *res)
{
	if (userns_is_self(ns))
		return level_io_here(false, 0, NULL, res);
	return level_in_child(ns->fd, false, 0, res);
}

int level_write(const struct userns *ns, int level, struct lvl_result *res)
{
	if (userns_is_self(ns))
		return level_io_here(true, level, NULL, res);
	return level_in_child(ns->fd, true, level, res);
}

/* "the user namespace of pid 42", "your user namespace" */
static const char *the(const struct userns *ns)
{
	return strncmp(ns->name, "your ", 5) ? "the " : "";
}

/*
 * Says on stderr why reading the level of @ns, or writing level @wanted to
 * it, did not work, naming the namespace and the cause. Returns EXIT_FAIL.
 */
int report_level_error(const struct userns *ns, const struct lvl_result *res,
		       int wanted)
{
	const char *what = ns->name, *art = the(ns);
	const char *err = strerror(res->err);

	switch (res->stage) {
	case LVL_OK:
		return EXIT_OK;
	case LVL_SETNS:
		if (res->err == EPERM)
			msg("need CAP_SYS_ADMIN over %s%s (setns: %s; %s)",
			    art, what, err, have_cap_sys_admin() ?
			    "it is not below your own user namespace" :
			    "you have no CAP_SYS_ADMIN and do not own it");
		else
			msg("cannot enter %s%s: setns: %s", art, what, err);
		break;
	case LVL_OPEN:
		if (res->write && (res->err == EACCES || res->err == EPERM))
			msg("need CAP_SYS_ADMIN over %s%s (cannot open %s for writing: %s)",
			    art, what, PARANOID_PATH, err);
		else if (res->err == ENOENT)
			msg("%s has no %s: is /proc mounted, are perf events enabled in this kernel?",
			    what, PARANOID_PATH);
		else
			msg("cannot open %s in %s%s: %s", PARANOID_PATH, art,
			    what, err);
		break;
	case LVL_READ:
		msg("cannot read the level of %s%s: %s", art, what, err);
		break;
	case LVL_WRITE:
		if (res->err == EPERM && res->have_level &&
		    wanted < res->level)
			msg("%s is at %d; a namespace's level can only be raised", what, res->level);
		else if (res->err == EPERM || res->err == EACCES)
			msg("need CAP_SYS_ADMIN over %s%s (write: %s)", art,
			    what, err);
		else
			msg("the kernel refused level %d for %s%s: %s", wanted,
			    art, what, err);
		break;
	case LVL_GLOBAL:
		msg("%s", NOT_PER_NS_MSG);
		break;
	case LVL_UNSURE:
		msg("cannot tell whether this kernel has a per-namespace perf_event_paranoid (making a user namespace to check failed: %s); refusing to change it",
		    err);
		break;
	case LVL_INTERNAL:
		msg("cannot reach %s%s: %s", art, what, err);
		break;
	}
	return EXIT_FAIL;
}
