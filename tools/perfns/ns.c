// SPDX-License-Identifier: GPL-2.0
/*
 * ns.c - the one way perfns finds, enters, reads and writes user namespaces.
 *
 * /proc/sys/kernel/perf_event_paranoid is one file for the whole system:
 * read from a user namespace other than the initial one it shows the level
 * in force in the reader's namespace, and in the initial one it reads and
 * writes the host's level as on a kernel without the series. A namespace
 * other than the initial one is raised through its own copy of
 * /proc/sys/user/perf_event_paranoid (user.perf_event_paranoid). The floor,
 * kernel.perf_event_paranoid_userns, is the host's only. To reach another
 * namespace a short-lived child setns()es into it and reads or writes
 * there; the caller's own namespace is read and written in place.
 *
 * Levels are read through the global kernel/ file, never through the
 * namespace's user/ copy: every namespace's copy is an entry of its own in
 * the dcache, which a walk over thousands of namespaces would leave behind.
 *
 * The namespaces perfns enters are often a tenant's: its root holds
 * CAP_SYS_PTRACE and CAP_KILL over every process whose credentials are in
 * that namespace, which the child is once it has entered. So the child is
 * made non-dumpable before it enters (no ptrace, no /proc/PID/fd, no
 * /proc/PID/mem for the tenant), keeps no descriptor but its answer pipe and
 * the namespace, dies with its parent, and authenticates its answer with a
 * nonce. The parent waits on a pidfd with a deadline and fails closed: a
 * child that was stopped or killed reports nothing but that.
 *
 * Namespaces are taken from pidfds (PIDFD_GET_USER_NAMESPACE, or /proc
 * checked against the pidfd on kernels before 6.11), never from a pid
 * number alone, and perfns's own namespace is taken once, at start; any
 * doubt about either is an error, not a guess.
 *
 * Whether the kernel has the series at all is told by the presence of
 * /proc/sys/user/perf_event_paranoid; without it nothing is ever written.
 */
#define _GNU_SOURCE
#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perfns.h"

#ifndef PIDFD_GET_USER_NAMESPACE
#define PIDFD_GET_USER_NAMESPACE	_IO(0xFF, 9)	/* Linux 6.11 */
#endif

/* Deeper than the kernel's 32 levels: something is wrong. */
#define MAX_WALK	40

static struct userns self_ns = { .fd = -1 };
static bool self_known;

/* /proc is the procfs of our pid namespace: 0, -EXDEV if not, or -errno. */
int proc_is_ours(void)
{
	char buf[32], want[32];
	ssize_t n;

	n = readlink("/proc/self", buf, sizeof(buf) - 1);
	if (n < 0)	/* no /proc, or one where we have no pid */
		return errno == ENOENT ? -EXDEV : -errno;
	buf[n] = '\0';
	snprintf(want, sizeof(want), "%d", (int)getpid());
	return strcmp(buf, want) ? -EXDEV : 0;
}

/*
 * The pidfd's process is @pid as this /proc numbers processes: its fdinfo
 * says so ("Pid:" is counted in the pid namespace of the /proc it is read
 * from). 0, -EXDEV if not, -ESRCH if it is gone, or -errno.
 */
static int pidfd_pid_in_proc(int pidfd, pid_t pid)
{
	char path[64], line[128];
	int nr = 0, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid: %d", &nr) == 1) {
			found = 1;
			break;
		}
	fclose(f);
	if (!found)
		return -EXDEV;
	if (nr == -1)
		return -ESRCH;
	return nr == pid ? 0 : -EXDEV;
}

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
 * A new descriptor for the user namespace of the process that @pidfd (pid
 * @pid in our pid namespace) refers to, or -errno (-ESRCH: it is gone,
 * -EXDEV: /proc is another pid namespace's).
 */
int pidfd_userns(int pidfd, pid_t pid)
{
	char path[64];
	int fd, err;

	fd = ioctl(pidfd, PIDFD_GET_USER_NAMESPACE, 0);
	if (fd >= 0)
		return fd;
	err = errno;
	if (err != ENOTTY && err != EINVAL && err != EOPNOTSUPP)
		return -err;

	/*
	 * Before 6.11: /proc/PID/ns/user, where /proc must number processes
	 * as we do, and the process must still be alive after the open, so
	 * that PID was still it (a pid is not reused before it is reaped).
	 */
	err = proc_is_ours();
	if (!err)
		err = pidfd_pid_in_proc(pidfd, pid);
	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (pidfd_send_signal(pidfd, 0, NULL, 0) && errno != EPERM) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

/*
 * perfns's own user namespace, taken once (at the start of every command
 * that looks at namespaces) and kept open. NULL, after saying why, when it
 * cannot be told for sure: callers refuse then.
 */
const struct userns *userns_self(void)
{
	pid_t me = getpid();
	int pidfd, fd, err;

	if (self_known)
		return &self_ns;
	pidfd = pidfd_open(me, 0);
	if (pidfd < 0) {
		fd = -errno;
	} else {
		fd = pidfd_userns(pidfd, me);
		close(pidfd);
	}
	if (fd >= 0)
		fd = userns_from_fd(fd, &self_ns);
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

/* Says why the namespace of @pid could not be had; returns EXIT_FAIL. */
static int pid_error(pid_t pid, const char *name, int err, const char *step)
{
	if (err == ESRCH)
		msg("no such process: %d", (int)pid);
	else if (err == EACCES || err == EPERM)
		msg("need CAP_SYS_ADMIN over the %s (%s: %s)", name, step,
		    strerror(err));
	else if (err == EXDEV)
		msg("cannot find the %s: /proc is not the proc file system of perfns's pid namespace, or not mounted",
		    name);
	else
		msg("cannot find the %s: %s: %s", name, step, strerror(err));
	return EXIT_FAIL;
}

/* The user namespace of the process @pidfd refers to (pid @pid). */
int userns_of_pidfd(int pidfd, pid_t pid, struct userns *ns)
{
	int fd;

	if (!ns->name[0])
		snprintf(ns->name, sizeof(ns->name),
			 "user namespace of pid %d", (int)pid);
	fd = pidfd_userns(pidfd, pid);
	if (fd >= 0)
		fd = userns_from_fd(fd, ns);
	if (fd < 0)
		return pid_error(pid, ns->name, -fd,
				 "getting it from a pidfd");
	return 0;
}

/* Opens PID's user namespace; on failure says why and returns EXIT_FAIL. */
int userns_of_pid(pid_t pid, struct userns *ns)
{
	int pidfd, ret;

	ns->fd = -1;
	if (!ns->name[0])
		snprintf(ns->name, sizeof(ns->name),
			 "user namespace of pid %d", (int)pid);
	pidfd = pidfd_open(pid, 0);
	if (pidfd < 0)
		return pid_error(pid, ns->name, errno, "pidfd_open");
	ret = userns_of_pidfd(pidfd, pid, ns);
	close(pidfd);
	return ret;
}

void userns_close(struct userns *ns)
{
	if (ns->fd >= 0 && ns != &self_ns &&
	    !(self_known && ns->fd == self_ns.fd))
		close(ns->fd);
	ns->fd = -1;
}

/*
 * The level in force in @ns, its own level and whether the host granted it
 * (NS_PERF_PARANOID_GET): 0, or -errno (-ENOTTY: a kernel without grants).
 */
int userns_perf_get(const struct userns *ns, struct ns_perf_paranoid *p)
{
	memset(p, 0, sizeof(*p));
	return ioctl(ns->fd, NS_PERF_PARANOID_GET, p) ? -errno : 0;
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

/*
 * The namespace that --pid @pid names for @cmd (set, grant): the container
 * @pid is in, i.e. the user namespace directly below @self on the way up
 * from @pid's own, or with @exact @pid's own. Filled into @target with a
 * name for messages and a description for the line printed (@what).
 */
int userns_container_of(const char *cmd, pid_t pid, bool exact,
			const struct userns *self, struct userns *target,
			char *what, size_t len)
{
	struct userns pns = { .fd = -1 }, below = { .fd = -1 };
	int depth, ret;

	ret = userns_of_pid(pid, &pns);
	if (ret)
		return ret;
	depth = userns_depth_below(&pns, self, exact ? NULL : &below);
	if (depth == 0) {
		msg("pid %d is in your own user namespace (%lu); refusing to change it through --pid%s",
		    (int)pid, (unsigned long)self->ino,
		    strcmp(cmd, "set") ? "" :
		    " (run 'perfns set' without --pid to change your own)");
		goto fail;
	}
	if (depth == -EPERM) {
		msg("the user namespace of pid %d (%lu) is not below yours (%lu); refusing",
		    (int)pid, (unsigned long)pns.ino,
		    (unsigned long)self->ino);
		goto fail;
	}
	if (depth < 0) {
		msg("cannot walk up from the user namespace of pid %d (%lu) to yours: %s",
		    (int)pid, (unsigned long)pns.ino, strerror(-depth));
		goto fail;
	}
	if (depth == 1 || exact) {
		*target = pns;
		userns_close(&below);
		snprintf(what, len,
			 "user namespace %lu, pid %d's own, %s%s",
			 (unsigned long)pns.ino, (int)pid,
			 depth == 1 ? "directly below yours" : "nested below yours",
			 depth == 1 ? "" : " (--exact)");
		return 0;
	}
	*target = below;
	snprintf(target->name, sizeof(target->name),
		 "user namespace %lu (the container of pid %d)",
		 (unsigned long)below.ino, (int)pid);
	snprintf(what, len,
		 "user namespace %lu, the container of pid %d: directly below yours, pid %d's own %lu is nested %d levels below yours",
		 (unsigned long)below.ino, (int)pid, (int)pid,
		 (unsigned long)pns.ino, depth);
	userns_close(&pns);
	return 0;
fail:
	userns_close(&pns);
	userns_close(&below);
	return EXIT_FAIL;
}

bool have_cap_sys_admin(void)
{
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_get_caps_process())
		return false;
	return capng_have_capability(CAPNG_EFFECTIVE, CAP_SYS_ADMIN);
}

static int read_value_fd(int fd, int *value)
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
	if (end == buf || errno || (*end && *end != '\n') ||
	    v < -2147483647L - 1 || v > 2147483647L)
		return -EBADMSG;
	*value = (int)v;
	return 0;
}

/* Opens and writes @value to @path; 0, or the stage with res->err set. */
static enum lvl_stage write_value(const char *path, int value,
				  struct lvl_result *res)
{
	char buf[24];
	ssize_t n;
	int fd, len;

	res->write = true;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		res->err = errno;
		return LVL_OPEN;
	}
	len = snprintf(buf, sizeof(buf), "%d\n", value);
	n = pwrite(fd, buf, len, 0);
	close(fd);
	if (n != len) {
		res->err = n < 0 ? errno : EIO;
		return LVL_WRITE;
	}
	return LVL_OK;
}

/*
 * Do @op in the namespace this process is in now, the initial one if
 * @initial: read the level in force there, write the level, read and write
 * the floor. The level is read through the global kernel/ file, which shows
 * the reader's level; it is written through the namespace's own user/ copy,
 * or in the initial namespace through kernel/. Callers ask for the floor in
 * the initial namespace only, and for a write only after kernel_per_ns()
 * said that the kernel has the series.
 */
int level_io_here(const struct lvl_op *op, bool initial,
		  struct lvl_result *res)
{
	int rfd, ffd = -1, ret;

	memset(res, 0, sizeof(*res));
	res->level = -1;
	res->floor = -1;
	rfd = open(PARANOID_PATH, O_RDONLY | O_CLOEXEC);
	if (rfd < 0) {
		res->stage = LVL_OPEN;
		res->err = errno;
		return -1;
	}
	ret = read_value_fd(rfd, &res->level);
	res->have_level = !ret;
	if (ret) {
		res->stage = LVL_READ;
		res->err = -ret;
		goto out;
	}

	if (op->write_level) {
		res->stage = write_value(initial ? PARANOID_PATH :
					 USERNS_PARANOID_PATH, op->level, res);
		res->wrote_level = res->stage == LVL_OK;
		/* The level in force now: what refused the write, if it was. */
		res->have_level = !read_value_fd(rfd, &res->level);
		if (res->stage != LVL_OK)
			goto out;
		res->write = false;
	}

	if (!op->read_floor && !op->write_floor)
		goto out;
	ffd = open(FLOOR_PATH, O_RDONLY | O_CLOEXEC);
	if (ffd < 0) {
		res->no_floor = errno == ENOENT;
		if (op->write_floor || !res->no_floor) {
			res->stage = res->no_floor ? LVL_NOFLOOR : LVL_OPEN;
			res->err = errno;
			res->on_floor = true;
		}
		goto out;
	}
	ret = read_value_fd(ffd, &res->floor);
	res->have_floor = !ret;
	if (ret) {
		res->stage = LVL_READ;
		res->err = -ret;
		res->on_floor = true;
		goto out;
	}
	if (op->write_floor) {
		res->on_floor = true;
		res->stage = write_value(FLOOR_PATH, op->floor, res);
		res->wrote_floor = res->stage == LVL_OK;
		res->have_floor = !read_value_fd(ffd, &res->floor);
		if (res->stage == LVL_OK)
			res->on_floor = res->write = false;
	}
out:
	if (ffd >= 0)
		close(ffd);
	close(rfd);
	return res->stage == LVL_OK ? 0 : -1;
}

/* Close every descriptor from @from up (close_range, or one by one). */
static void close_from(int from)
{
	long max;
	int fd;

	if (!close_range(from, ~0U, 0))
		return;
	max = sysconf(_SC_OPEN_MAX);
	for (fd = from; fd < (max > 0 ? max : 65536); fd++)
		close(fd);
}

/*
 * The child: made safe to enter namespaces that a tenant controls, then
 * enters each of @n in turn (each below the one before), does @op in each
 * and answers on @w, one record each.
 */
static void __attribute__((noreturn))
child_main(int w, const int *fds, int n, pid_t parent,
	   const struct lvl_op *op, uint64_t nonce)
{
	int nul, ret, k, moved[MAX_CHAIN];
	struct chain_reply rep;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent ||
	    prctl(PR_SET_DUMPABLE, 0))
		_exit(1);
	/*
	 * Only stdio on /dev/null, the answer on 3, the namespaces on 4 and
	 * up: nothing else of the parent's (the initial namespace, other
	 * namespaces, the terminal) stays with a process that a tenant may
	 * signal once it has entered.
	 */
	w = fcntl(w, F_DUPFD, 4 + n);
	for (k = 0; k < n; k++)
		if ((moved[k] = fcntl(fds[k], F_DUPFD, 4 + n)) < 0)
			_exit(1);
	nul = open("/dev/null", O_RDWR);
	if (w < 0 || nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 ||
	    dup2(nul, 2) < 0 || dup2(w, 3) < 0)
		_exit(1);
	for (k = 0; k < n; k++)
		if (dup2(moved[k], 4 + k) < 0)
			_exit(1);
	close_from(4 + n);

	for (k = 0; k < n; k++) {
		ret = setns(4 + k, CLONE_NEWUSER);
		memset(&rep, 0, sizeof(rep));
		rep.nonce = nonce;
		rep.index = k;
		if (ret) {
			rep.r.stage = LVL_SETNS;
			rep.r.err = errno;
			rep.r.level = rep.r.floor = -1;
		}
		close(4 + k);
		/* New credentials may have reset both; the parent may be gone. */
		if (prctl(PR_SET_DUMPABLE, 0) ||
		    prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
		if (!ret)
			level_io_here(op, false, &rep.r);
		if (write(3, &rep, sizeof(rep)) != sizeof(rep))
			_exit(1);
	}
	_exit(0);
}

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Wait for the child until @deadline, then kill it; its wait status. */
static int reap(int pidfd, pid_t pid, long long deadline, bool *killed)
{
	struct pollfd pf = { .fd = pidfd, .events = POLLIN };
	long long left;
	int status = 0;

	*killed = false;
	for (;;) {
		left = deadline - now_ms();
		if (left <= 0 || (poll(&pf, 1, (int)left) == 0))
			break;
		if (pf.revents)
			goto wait;
	}
	pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
	*killed = true;
wait:
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* Children that answered everything, killed, to be reaped. */
static pid_t *deferred;
static size_t ndeferred, deferred_cap;

static void defer_reap(pid_t pid)
{
	int status;
	pid_t *p;

	if (ndeferred == deferred_cap) {
		p = realloc(deferred, (deferred_cap ? deferred_cap * 2 : 64) *
				      sizeof(*p));
		if (!p) {	/* reap it now: killed, it ends soon */
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return;
		}
		deferred = p;
		deferred_cap = deferred_cap ? deferred_cap * 2 : 64;
	}
	deferred[ndeferred++] = pid;
}

/* Reap the children chain_end() left: every one (@wait), or those done. */
void chain_reap_deferred(bool wait)
{
	size_t i, k = 0;
	int status;
	pid_t r;

	for (i = 0; i < ndeferred; i++) {
		do
			r = waitpid(deferred[i], &status, wait ? 0 : WNOHANG);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			deferred[k++] = deferred[i];
	}
	ndeferred = k;
}

static void chain_fail(struct lvl_result *res, int from, int n,
		       enum lvl_stage stage, int err, bool write)
{
	int k;

	for (k = from; k < n; k++) {
		memset(&res[k], 0, sizeof(res[k]));
		res[k].level = res[k].floor = -1;
		res[k].write = write;
		res[k].stage = k == from ? stage : LVL_SKIPPED;
		res[k].err = err;
	}
}

/*
 * A write needs the series: without it (or when that cannot be told) every
 * slot is failed with LVL_GLOBAL (LVL_UNSURE) and true returned, before
 * anything is touched.
 */
static bool refuse_without_series(const struct lvl_op *op,
				  struct lvl_result *res, int slots)
{
	int per_ns, err = 0;

	if (!op->write_level && !op->write_floor)
		return false;
	per_ns = kernel_per_ns(&err);
	if (per_ns > 0)
		return false;
	chain_fail(res, 0, slots, per_ns ? LVL_UNSURE : LVL_GLOBAL, err, true);
	return true;
}

/*
 * Start a child that enters the user namespaces @fds[0], @fds[1], ... in
 * turn (each a child of the one before) and does @op in each with
 * level_io_here(), answering through a pipe: chain_poll() takes the
 * answers into @res (@n slots), chain_end() reaps the child. The caller may
 * close @fds once this returns. Returns 0, or -1 when no child runs (@res
 * then says why, and chain_end() need not be called).
 */
int chain_start(struct chain_run *c, const int *fds, int n,
		const struct lvl_op *op, struct lvl_result *res)
{
	pid_t parent = getpid();
	int p[2], status;

	memset(c, 0, sizeof(*c));
	c->res = res;
	c->n = n;
	c->pidfd = c->rfd = -1;
	c->wr = op->write_level || op->write_floor;
	if (n < 1 || n > MAX_CHAIN) {
		chain_fail(res, 0, n, LVL_INTERNAL, n < 1 ? EINVAL : E2BIG,
			   c->wr);
		return -1;
	}
	if (refuse_without_series(op, res, n))
		return -1;
	if (getrandom(&c->nonce, sizeof(c->nonce), 0) != sizeof(c->nonce) ||
	    pipe2(p, O_CLOEXEC)) {
		chain_fail(res, 0, n, LVL_INTERNAL, errno, c->wr);
		return -1;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0 && errno == EAGAIN && ndeferred) {
		/* Children that are done count against RLIMIT_NPROC too. */
		chain_reap_deferred(true);
		c->pid = fork();
	}
	if (c->pid == 0)
		child_main(p[1], fds, n, parent, op, c->nonce);
	chain_fail(res, 0, n, LVL_INTERNAL, errno, c->wr);
	close(p[1]);
	if (c->pid < 0) {
		close(p[0]);
		return -1;
	}
	c->pidfd = pidfd_open(c->pid, 0);
	if (c->pidfd < 0) {
		chain_fail(res, 0, n, LVL_INTERNAL, errno, c->wr);
		kill(c->pid, SIGKILL);	/* our unreaped child: pid not reused */
		while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
			;
		close(p[0]);
		return -1;
	}
	c->rfd = p[0];
	fcntl(c->rfd, F_SETFL, O_NONBLOCK);
	c->deadline = now_ms() + op_timeout_s * 1000LL;
	return 0;
}

/* The two descriptors chain_poll() waits on, for poll(); the deadline. */
long long chain_pollfds(const struct chain_run *c, struct pollfd *pf)
{
	pf[0] = (struct pollfd){ .fd = c->eof ? -1 : c->rfd, .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = c->exited ? -1 : c->pidfd,
				 .events = POLLIN };
	return c->deadline;
}

/*
 * Take what the child answered after poll() returned @pf (from
 * chain_pollfds()), each answer before the deadline that the one before it
 * set. Returns true when nothing more is to be had from the child: every
 * answer is in, or it died, or it is late (then chain_end() kills it), or
 * it answered what it must not (then nothing more is trusted).
 */
bool chain_poll(struct chain_run *c, const struct pollfd *pf)
{
	char *buf = (char *)&c->got;
	ssize_t r;

	if (pf[1].revents)
		c->exited = true;
	while (!c->eof && c->want < c->n && (pf[0].revents || c->exited)) {
		r = read(c->rfd, buf + c->have, sizeof(c->got) - c->have);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
			c->eof = true;
			break;
		}
		if (r < 0)
			break;
		c->have += r;
		if (c->have < sizeof(c->got))
			continue;
		c->have = 0;
		if (c->got.nonce != c->nonce || c->got.index != c->want ||
		    c->got.r.stage < LVL_OK || c->got.r.stage >= LVL_NSTAGES) {
			c->deadline = 0;  /* not from our child: trust nothing */
			return true;
		}
		c->res[c->want] = c->got.r;
		c->ok += c->got.r.stage == LVL_OK;
		c->want++;
		c->deadline = now_ms() + op_timeout_s * 1000LL;
	}
	return c->want == c->n || (c->eof && c->exited) ||
	       now_ms() >= c->deadline;
}

/*
 * Reap the child and say what became of the answers that did not come: a
 * child that was late is killed (LVL_TIMEOUT), one that died says how
 * (LVL_CHILD), and everything below goes unread (LVL_SKIPPED). A child
 * that answered everything is killed and, with @defer, left to be reaped
 * by chain_reap_deferred(), so that the caller does not wait for its exit.
 * Returns the number of namespaces that were done (LVL_OK).
 */
int chain_end(struct chain_run *c, bool defer)
{
	bool killed;
	int status;

	close(c->rfd);
	if (c->want == c->n && defer) {
		/* Nothing is left for it to do: its exit is not waited for. */
		pidfd_send_signal(c->pidfd, SIGKILL, NULL, 0);
		close(c->pidfd);
		defer_reap(c->pid);
		return c->ok;
	}
	status = reap(c->pidfd, c->pid, c->deadline, &killed);
	close(c->pidfd);
	if (c->want < c->n) {
		if (killed && !c->exited)
			chain_fail(c->res, c->want, c->n, LVL_TIMEOUT,
				   ETIMEDOUT, c->wr);
		else
			chain_fail(c->res, c->want, c->n, LVL_CHILD,
				   WIFSIGNALED(status) ? WTERMSIG(status) : 0,
				   c->wr);
	}
	return c->ok;
}

/*
 * Run a chain (chain_start()) to its end and reap its child. Returns the
 * number of namespaces that were done (LVL_OK).
 */
int ns_chain(const int *fds, int n, const struct lvl_op *op,
	     struct lvl_result *res)
{
	struct chain_run c;
	struct pollfd pf[2];
	long long left;
	int k;

	if (chain_start(&c, fds, n, op, res))
		return 0;
	for (;;) {
		left = chain_pollfds(&c, pf) - now_ms();
		k = left <= 0 ? 0 : poll(pf, 2, (int)left);
		if (k < 0 && errno != EINTR)
			break;
		if (k < 0)
			continue;
		if (chain_poll(&c, pf))
			break;
	}
	return chain_end(&c, false);
}

/*
 * Does this kernel have a perf_event_paranoid per user namespace? It has
 * when /proc/sys/user/perf_event_paranoid exists, and has not when it does
 * not while /proc/sys/kernel/perf_event_paranoid does. Returns 1 or 0, or
 * -1 with *err when it cannot tell (no /proc, or perf events not built).
 */
int kernel_per_ns(int *err)
{
	static int answer = -2, saved_err;

	if (answer == -2) {
		if (!access(USERNS_PARANOID_PATH, F_OK)) {
			answer = 1;
		} else if (errno == ENOENT && !access(PARANOID_PATH, F_OK)) {
			answer = 0;
		} else {
			answer = -1;
			saved_err = errno;
		}
	}
	if (err)
		*err = saved_err;
	return answer;
}

/* Does the kernel have the host's floor? 1, 0, or -1 when it cannot tell. */
int kernel_has_floor(void)
{
	if (!access(FLOOR_PATH, F_OK))
		return 1;
	return errno == ENOENT && !access(PARANOID_PATH, F_OK) ? 0 : -1;
}

/* Do @op in @ns: in place when it is perfns's own, else in a child. */
int ns_do(const struct userns *ns, const struct lvl_op *op,
	  struct lvl_result *res)
{
	if (!userns_is_self(ns))
		return ns_chain(&ns->fd, 1, op, res) ? 0 : -1;
	if (refuse_without_series(op, res, 1))
		return -1;
	return level_io_here(op, userns_is_initial(ns), res);
}

/* "the user namespace of pid 42", "your user namespace" */
static const char *the(const struct userns *ns)
{
	return strncmp(ns->name, "your ", 5) ? "the " : "";
}

/*
 * Says on stderr why @op on @ns did not work, naming the namespace and the
 * cause. Returns EXIT_FAIL (EXIT_OK for LVL_OK).
 */
int report_level_error(const struct userns *ns, const struct lvl_result *res,
		       const struct lvl_op *op)
{
	const char *what = ns->name, *art = the(ns);
	const char *err = strerror(res->err);
	bool initial = userns_is_initial(ns);
	const char *path = res->on_floor ? FLOOR_PATH :
			   res->write && !initial ? USERNS_PARANOID_PATH :
			   PARANOID_PATH;
	int wanted = res->on_floor ? op->floor : op->level;
	bool denied = res->err == EACCES || res->err == EPERM;

	switch (res->stage) {
	case LVL_OK:
	case LVL_NSTAGES:
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
		if (res->write && denied && res->on_floor)
			msg("need uid 0 and CAP_SYS_ADMIN in the initial user namespace to set the host's floor (cannot open %s for writing: %s)",
			    path, err);
		else if (res->write && denied && initial)
			msg("need uid 0 in the initial user namespace to set its level (cannot open %s for writing: %s)",
			    path, err);
		else if (res->write && denied)
			msg("need CAP_SYS_ADMIN over %s%s (cannot open %s for writing: %s)",
			    art, what, path, err);
		else if (res->err == ENOENT)
			msg("%s has no %s: is /proc mounted, are perf events enabled in this kernel?",
			    what, path);
		else
			msg("cannot open %s in %s%s: %s", path, art, what, err);
		break;
	case LVL_READ:
		msg("cannot read the %s of %s%s: %s",
		    res->on_floor ? "floor" : "level", art, what, err);
		break;
	case LVL_WRITE:
		if (denied && res->on_floor)
			msg("need uid 0 and CAP_SYS_ADMIN in the initial user namespace to set the host's floor (write: %s)",
			    err);
		else if (res->err == EPERM && !res->on_floor &&
			 res->have_level && wanted < res->level)
			msg("%s is at %d; a namespace's level can only be raised",
			    what, res->level);
		else if (res->err == EPERM || res->err == EACCES)
			msg("need CAP_SYS_ADMIN over %s%s (write: %s)", art,
			    what, err);
		else
			msg("the kernel refused %s %d for %s%s: %s",
			    res->on_floor ? "floor" : "level", wanted, art,
			    what, err);
		break;
	case LVL_GLOBAL:
		msg("%s", NOT_PER_NS_MSG);
		break;
	case LVL_UNSURE:
		msg("cannot tell whether this kernel has a per-namespace perf_event_paranoid (%s: %s); refusing to change it",
		    USERNS_PARANOID_PATH, err);
		break;
	case LVL_NOFLOOR:
		msg("%s; nothing changed", NO_FLOOR_MSG);
		break;
	case LVL_TIMEOUT:
		msg("no answer within %d s from the child that entered %s%s (stopped or stalled: whoever holds CAP_KILL in that namespace can stop it); killed it. %s",
		    op_timeout_s, art, what, res->write ?
		    "The write may or may not have happened: check with perfns get" :
		    "Nothing was read");
		break;
	case LVL_CHILD:
		msg("the child that entered %s%s ended without a valid answer (%s%s); %s",
		    art, what, res->err ? "killed by signal: " : "it exited",
		    res->err ? strsignal(res->err) : "", res->write ?
		    "the write may or may not have happened: check with perfns get" :
		    "nothing was read");
		break;
	case LVL_SKIPPED:
		msg("did not try %s%s: reading a namespace above it failed",
		    art, what);
		break;
	case LVL_INTERNAL:
		msg("cannot reach %s%s: %s", art, what, err);
		break;
	}
	return EXIT_FAIL;
}
