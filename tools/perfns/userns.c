// SPDX-License-Identifier: GPL-2.0
/*
 * User namespace handles: taking a descriptor as a user namespace, perfns's
 * own namespace (taken once, at start), telling namespaces apart, walking up
 * from one to another, and what the kernel says of a namespace's level in
 * force, own level and grant.
 *
 * perfns's own namespace is taken from its own pidfd and kept open; any
 * doubt about it is an error, not a guess.
 */
#define _GNU_SOURCE
#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "perfns.h"

/* Deeper than the kernel's 32 levels: something is wrong. */
#define MAX_WALK	40

static struct userns self_ns = { .fd = -1 };
static bool self_known;

/* Takes @fd (closed on failure) after checking that it is a user namespace. */
int userns_from_fd(int fd, struct userns *ns)
{
	struct stat st;
	int type, err;

	if (fstat(fd, &st)) {
		err = errno;
		goto bad;
	}
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type != CLONE_NEWUSER) {
		err = type < 0 ? errno : EINVAL;
		goto bad;
	}
	ns->fd = fd;
	ns->dev = st.st_dev;
	ns->ino = st.st_ino;
	return 0;
bad:
	close(fd);
	ns->fd = -1;
	return -err;
}

/*
 * The user namespace this process is in now, into @ns, from its own pidfd
 * (as userns_self() takes it, but not kept): 0, or -errno.
 */
int userns_current(struct userns *ns)
{
	pid_t me = getpid();
	int pidfd, fd;

	ns->fd = -1;
	pidfd = pidfd_open(me, 0);
	if (pidfd < 0)
		return -errno;
	fd = pidfd_userns(pidfd, me);
	close(pidfd);
	return fd < 0 ? fd : userns_from_fd(fd, ns);
}

/*
 * perfns's own user namespace, taken once (at the start of every command
 * that looks at namespaces) and kept open. NULL, after saying why, when it
 * cannot be told for sure: callers refuse then.
 */
const struct userns *userns_self(void)
{
	int fd, err;

	if (self_known)
		return &self_ns;
	fd = userns_current(&self_ns);
	if (fd < 0) {
		err = -fd;
		msg("cannot tell which user namespace perfns runs in (%s); refusing to go on",
		    err == EXDEV ?
		    "/proc is not the proc file system of perfns's pid namespace, or not mounted" :
		    strerror(err));
		return NULL;
	}
	snprintf(self_ns.name, sizeof(self_ns.name), "your user namespace");
	self_known = true;
	return &self_ns;
}

bool userns_same(const struct userns *a, const struct userns *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

/* Only after userns_self() succeeded; false otherwise (not in place). */
bool userns_is_self(const struct userns *ns)
{
	return self_known && (ns == &self_ns || userns_same(ns, &self_ns));
}

bool userns_is_initial(const struct userns *ns)
{
	return ns->ino == INIT_USERNS_INO;
}

void userns_close(struct userns *ns)
{
	if (ns->fd >= 0 && ns != &self_ns &&
	    !(self_known && ns->fd == self_ns.fd))
		close(ns->fd);
	ns->fd = -1;
}

/*
 * The level in force in @ns, its own level and the level the host granted
 * it (NS_PERF_PARANOID_GET): 0, or -errno (-ENOTTY: a kernel without
 * grants; -E2BIG: one that does not know this struct ns_perf_paranoid).
 */
int userns_perf_get(const struct userns *ns, struct ns_perf_paranoid *p)
{
	memset(p, 0, sizeof(*p));
	return ioctl(ns->fd, NS_PERF_PARANOID_GET, p) ? -errno : 0;
}

/*
 * Make @res->level, read through kernel.perf_event_paranoid in a namespace,
 * the level in force there as the kernel applies it: @p->level, what
 * NS_PERF_PARANOID_GET said, or @err, why it failed. The file counts the
 * host's level as written where the kernel counts it for less (on the
 * series' mainline form a host at 3 reads 3, in the initial namespace and
 * in those that follow it, and counts for 2), so the file's value is kept
 * only on a kernel without the ioctl (ENOTTY), where it is the level. Any
 * other failure leaves no level: a read becomes LVL_ASK, a write keeps its
 * stage, with @err in res->ask_err. Nothing to do when no level was read.
 */
void lvl_take_in_force(struct lvl_result *res,
		       const struct ns_perf_paranoid *p, int err)
{
	if (!res->have_level || err == ENOTTY)
		return;
	if (!err) {
		res->level = p->level;
		return;
	}
	res->have_level = false;
	res->level = -1;
	res->ask_err = err;
	if (res->stage == LVL_OK && !res->wrote_level) {
		res->stage = LVL_ASK;
		res->err = err;
	}
}

/*
 * lvl_take_in_force() with what NS_PERF_PARANOID_GET says of @ns now,
 * kept in @res for the caller that shows the rest of it.
 */
void userns_level_in_force(const struct userns *ns, struct lvl_result *res)
{
	if (!res->have_level)
		return;
	res->perf_err = -userns_perf_get(ns, &res->perf);
	res->perf_asked = true;
	lvl_take_in_force(res, &res->perf, res->perf_err);
}

/* Why an NS_PERF_PARANOID_* ioctl failed with @err, in words. */
const char *perf_ioctl_error(int err)
{
	switch (err) {
	case ENOTTY:
		return "this kernel has no perf_event_paranoid ioctls (no grants: " GRANT_MIN_PATH " does not exist)";
	case E2BIG:
		return "the kernel refused this perfns's struct ns_perf_paranoid (E2BIG: larger than the kernel's, with fields it does not know set); use a perfns built for this kernel";
	}
	return strerror(err);
}

/* @level as a number, or "none" when the namespace has none (!@have). */
static const char *level_or_none(bool have, int level, char *buf, size_t len)
{
	if (!have)
		return "none";
	snprintf(buf, len, "%d", level);
	return buf;
}

/* "NAME: VALUE" on stdout, with "(was OLD)" when @b is given and differs. */
static void print_level_line(const char *name, bool have, int level,
			     const struct ns_perf_paranoid *b, bool b_have,
			     int b_level)
{
	char now[16], was[16];

	printf("%s: %s", name, level_or_none(have, level, now, sizeof(now)));
	if (b && (have != b_have || (have && level != b_level)))
		printf(" (was %s)",
		       level_or_none(b_have, b_level, was, sizeof(was)));
	putchar('\n');
}

/*
 * What NS_PERF_PARANOID_GET said of a namespace, @p, one "name: value"
 * line each on stdout: the level in force, its own level (none: it follows
 * its parent) and the level the host granted it (none: no grant). With
 * @b, what it said before: a value that changed is followed by "(was ...)".
 */
void print_perf_state(const struct ns_perf_paranoid *p,
		      const struct ns_perf_paranoid *b)
{
	static const struct ns_perf_paranoid none;
	const struct ns_perf_paranoid *w = b ?: &none;

	print_level_line("level in force", true, p->level, b, true, w->level);
	print_level_line("own level", p->flags & NS_PERF_PARANOID_OWN, p->own,
			 b, w->flags & NS_PERF_PARANOID_OWN, w->own);
	print_level_line("granted level", p->flags & NS_PERF_PARANOID_ANCHORED,
			 p->granted, b, w->flags & NS_PERF_PARANOID_ANCHORED,
			 w->granted);
}

/*
 * How many levels @ns is below @top (NS_GET_PARENT, step by step): 0 when it
 * is @top, -EPERM when it is not below it (the walk reached the top of what
 * the caller may see), or another -errno. With @below, the namespace on the
 * way that is directly below @top is opened there (when the depth is >= 1).
 */
int userns_depth_below(const struct userns *ns, const struct userns *top,
		       struct userns *below)
{
	int cur, prev = -1, parent, depth = 0, err;
	struct stat st;

	if (userns_same(ns, top))
		return 0;
	cur = fcntl(ns->fd, F_DUPFD_CLOEXEC, 0);
	if (cur < 0)
		return -errno;
	for (;;) {
		parent = ioctl(cur, NS_GET_PARENT);
		if (parent < 0) {
			err = -errno;
			goto out;
		}
		depth++;
		if (fstat(parent, &st)) {
			err = -errno;
			close(parent);
			goto out;
		}
		if (prev >= 0)
			close(prev);
		prev = cur;
		cur = parent;
		if (st.st_dev == top->dev && st.st_ino == top->ino)
			break;
		if (depth > MAX_WALK) {
			err = -ELOOP;
			goto out;
		}
	}
	close(cur);
	if (below) {
		err = userns_from_fd(prev, below);
		if (err)
			return err;
	} else {
		close(prev);
	}
	return depth;
out:
	close(cur);
	if (prev >= 0)
		close(prev);
	return err;
}

bool have_cap_sys_admin(void)
{
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_get_caps_process())
		return false;
	return capng_have_capability(CAPNG_EFFECTIVE, CAP_SYS_ADMIN);
}
