// SPDX-License-Identifier: GPL-2.0
/*
 * ns.c - the one way perfns finds, enters, reads and writes user namespaces.
 *
 * /proc/sys/kernel/perf_event_paranoid shows, and takes, the level of the
 * user namespace that the file is opened in; perf_event_paranoid_userns
 * next to it (where the kernel has it) the floor. To reach another
 * namespace a short-lived child setns()es into it and opens the files
 * there; the caller's own namespace is read and written in place.
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

/* ns_in_child(): make a new user namespace instead of entering one. */
#define NEW_USERNS	(-2)

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
static enum lvl_stage write_value(const char *path, int value, int per_ns,
				  int unsure_err, struct lvl_result *res)
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
	if (per_ns < 0) {
		close(fd);
		res->err = unsure_err;
		return LVL_UNSURE;
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
 * Do @op in the namespace this process is in now: read the level, write it,
 * read and write the floor.
 *
 * Before a write, make sure the kernel has a level per namespace: with
 * @other, the identity of the level's file as opened in another namespace,
 * a file that is the same object means it has not (flagged global, never
 * written); without it, kernel_per_ns() decides. That comes before the
 * permission check so that a kernel without the series is named as the
 * reason whoever asks, except that a namespace where no nested one can be
 * made (uid unmapped) hears about the capability it lacks first.
 */
int level_io_here(const struct lvl_op *op, const struct stat *other,
		  struct lvl_result *res)
{
	bool wr = op->write_level || op->write_floor;
	int rfd, ffd = -1, per_ns = 1, err = 0, ret;
	struct stat st;

	memset(res, 0, sizeof(*res));
	res->level = -1;
	res->floor = -1;
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

	ret = read_value_fd(rfd, &res->level);
	res->have_level = !ret;
	if (ret) {
		res->stage = LVL_READ;
		res->err = -ret;
		goto out;
	}
	if (wr && !per_ns) {
		res->stage = LVL_GLOBAL;
		goto out;
	}

	if (op->write_level) {
		res->stage = write_value(PARANOID_PATH, op->level, per_ns, err,
					 res);
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
		res->stage = write_value(FLOOR_PATH, op->floor, per_ns, err,
					 res);
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

struct reply {
	uint64_t nonce;
	int index;		/* which namespace of the chain */
	struct lvl_result r;
};

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
 * enters each of @n in turn (each below the one before), or makes a new
 * one (@n == 0), does @op in each and answers on @w, one record each.
 */
static void __attribute__((noreturn))
child_main(int w, const int *fds, int n, pid_t parent,
	   const struct lvl_op *op, const struct stat *mine, uint64_t nonce)
{
	int nul, ret, k, moved[MAX_CHAIN];
	struct reply rep;

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

	for (k = 0; k < (n ? n : 1); k++) {
		ret = n ? setns(4 + k, CLONE_NEWUSER) : unshare(CLONE_NEWUSER);
		memset(&rep, 0, sizeof(rep));
		rep.nonce = nonce;
		rep.index = k;
		if (ret) {
			rep.r.stage = LVL_SETNS;
			rep.r.err = errno;
			rep.r.level = rep.r.floor = -1;
		}
		if (n)
			close(4 + k);
		/* New credentials may have reset both; the parent may be gone. */
		if (prctl(PR_SET_DUMPABLE, 0) ||
		    prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
		if (!ret)
			level_io_here(op, mine, &rep.r);
		if (write(3, &rep, sizeof(rep)) != sizeof(rep))
			_exit(1);
	}
	_exit(0);
}

static long long now_ms(void)
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
 * Run level_io_here() in a child that enters the user namespaces @fds[0],
 * @fds[1], ... in turn (each a child of the one before; none, @n == 0,
 * for a new namespace), comparing the level's file found there with the
 * caller's own. The answers come back through a pipe, each within the
 * timeout of the one before: when one does not, the child is killed, that
 * namespace is LVL_TIMEOUT and the rest, below it, LVL_SKIPPED. Returns
 * the number of namespaces that were done (LVL_OK).
 */
int ns_chain(const int *fds, int n, const struct lvl_op *op,
	     struct lvl_result *res)
{
	bool eof = false, exited = false, killed, wr;
	int hostfd, p[2], pidfd, status, k, want, ok = 0;
	int slots = n ? n : 1;
	pid_t pid, parent = getpid();
	long long deadline, left;
	struct pollfd pf[2];
	struct reply got;
	uint64_t nonce;
	struct stat mine;
	size_t have = 0;
	ssize_t r;

	wr = op->write_level || op->write_floor;
	if (n > MAX_CHAIN) {
		chain_fail(res, 0, n, LVL_INTERNAL, E2BIG, wr);
		return 0;
	}
	chain_fail(res, 0, slots, LVL_INTERNAL, 0, wr);
	if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce)) {
		chain_fail(res, 0, slots, LVL_INTERNAL, errno, wr);
		return 0;
	}
	hostfd = open(PARANOID_PATH, O_RDONLY | O_CLOEXEC);
	if (hostfd < 0) {
		chain_fail(res, 0, slots, LVL_OPEN, errno, wr);
		return 0;
	}
	if (fstat(hostfd, &mine) || pipe2(p, O_CLOEXEC)) {
		chain_fail(res, 0, slots, LVL_INTERNAL, errno, wr);
		close(hostfd);
		return 0;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		child_main(p[1], fds, n, parent, op, &mine, nonce);
	chain_fail(res, 0, slots, LVL_INTERNAL, errno, wr);
	close(p[1]);
	if (pid < 0)
		goto out_pipe;
	pidfd = pidfd_open(pid, 0);
	if (pidfd < 0) {
		chain_fail(res, 0, slots, LVL_INTERNAL, errno, wr);
		kill(pid, SIGKILL);	/* our unreaped child: pid not reused */
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		goto out_pipe;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);

	/* Record after record, each before its deadline. */
	want = 0;
	deadline = now_ms() + op_timeout_s * 1000LL;
	while (want < slots && !(eof && exited)) {
		pf[0] = (struct pollfd){ .fd = eof ? -1 : p[0], .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = exited ? -1 : pidfd,
					 .events = POLLIN };
		left = deadline - now_ms();
		if (left <= 0)
			break;
		k = poll(pf, 2, (int)left);
		if (k < 0 && errno != EINTR)
			break;
		if (k <= 0)
			continue;
		if (pf[1].revents)
			exited = true;
		if (!pf[0].revents)
			continue;
		r = read(p[0], (char *)&got + have, sizeof(got) - have);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
			eof = true;
			continue;
		}
		if (r < 0)
			continue;
		have += r;
		if (have < sizeof(got))
			continue;
		have = 0;
		if (got.nonce != nonce || got.index != want ||
		    got.r.stage < LVL_OK || got.r.stage >= LVL_NSTAGES) {
			deadline = 0;	/* not from our child: trust nothing */
			break;
		}
		res[want] = got.r;
		ok += got.r.stage == LVL_OK;
		want++;
		deadline = now_ms() + op_timeout_s * 1000LL;
	}
	status = reap(pidfd, pid, deadline, &killed);
	close(pidfd);
	if (want < slots) {
		if (killed && !exited)
			chain_fail(res, want, slots, LVL_TIMEOUT, ETIMEDOUT, wr);
		else
			chain_fail(res, want, slots, LVL_CHILD,
				   WIFSIGNALED(status) ? WTERMSIG(status) : 0,
				   wr);
	}
out_pipe:
	close(p[0]);
	close(hostfd);
	return ok;
}

static int ns_in_child(int nsfd, const struct lvl_op *op,
		       struct lvl_result *res)
{
	return ns_chain(&nsfd, nsfd == NEW_USERNS ? 0 : 1, op, res) ? 0 : -1;
}

/*
 * Does this kernel have a perf_event_paranoid per user namespace? Asked once,
 * of a fresh user namespace. Returns 1 or 0, or -1 with *err when it cannot
 * tell (no user namespace could be made).
 */
int kernel_per_ns(int *err)
{
	static int answer = -2, saved_err;
	struct lvl_op op = { 0 };
	struct lvl_result r;

	if (answer == -2) {
		ns_in_child(NEW_USERNS, &op, &r);
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

/* Do @op in @ns: in place when it is perfns's own, else in a child. */
int ns_do(const struct userns *ns, const struct lvl_op *op,
	  struct lvl_result *res)
{
	if (userns_is_self(ns))
		return level_io_here(op, NULL, res);
	return ns_in_child(ns->fd, op, res);
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
	const char *path = res->on_floor ? FLOOR_PATH : PARANOID_PATH;
	int wanted = res->on_floor ? op->floor : op->level;

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
		if (res->write && (res->err == EACCES || res->err == EPERM))
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
		if (res->err == EPERM && res->on_floor && res->have_floor &&
		    wanted < res->floor)
			msg("the floor of %s%s reads %d; outside the initial user namespace a floor can only be raised",
			    art, what, res->floor);
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
		msg("cannot tell whether this kernel has a per-namespace perf_event_paranoid (making a user namespace to check failed: %s); refusing to change it",
		    err);
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
