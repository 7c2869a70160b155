// SPDX-License-Identifier: GPL-2.0
/*
 * Reading or writing the level of other user namespaces through a child that
 * enters them (enter_child.c): starting it, taking its answers, reaping it.
 *
 * A process can only enter a namespace below its own, so one child enters
 * a chain of namespaces, each a child of the one before, and answers once
 * for each. The parent waits on a pidfd with a deadline and fails closed:
 * a child that was stopped or killed reports nothing but that. The
 * caller's own namespace is read and written in place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perfns.h"

/* The monotonic clock in milliseconds, for deadlines. */
long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Wait for our child @pid to end, through EINTR; its wait status. */
static int wait_child(pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* Wait for the child until @deadline, then kill it; its wait status. */
static int reap_by_deadline(int pidfd, pid_t pid, long long deadline,
			    bool *killed)
{
	struct pollfd pf = { .fd = pidfd, .events = POLLIN };
	long long left;

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
	return wait_child(pid);
}

/* Children that answered everything, killed, to be reaped. */
static pid_t *deferred;
static size_t ndeferred, deferred_cap;

static void defer_reap(pid_t pid)
{
	pid_t *p;

	if (ndeferred == deferred_cap) {
		p = realloc(deferred, (deferred_cap ? deferred_cap * 2 : 64) *
				      sizeof(*p));
		if (!p) {	/* reap it now: killed, it ends soon */
			wait_child(pid);
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

/*
 * Fail the results @res[from..n-1] for a write (@write) or a read: @from
 * with @stage and @err, every one after it as not tried (LVL_SKIPPED).
 */
static void mark_failed_from(struct lvl_result *res, int from, int n,
			     enum lvl_stage stage, int err, bool write)
{
	int k;

	for (k = from; k < n; k++) {
		memset(&res[k], 0, sizeof(res[k]));
		res[k].level = -1;
		res[k].floor = -1;
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
	mark_failed_from(res, 0, slots, per_ns ? LVL_UNSURE : LVL_GLOBAL, err,
			 true);
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
	int p[2];

	memset(c, 0, sizeof(*c));
	c->res = res;
	c->n = n;
	c->pidfd = -1;
	c->rfd = -1;
	c->write = op->write_level || op->write_floor;
	if (n < 1 || n > MAX_CHAIN) {
		mark_failed_from(res, 0, n, LVL_INTERNAL,
				 n < 1 ? EINVAL : E2BIG, c->write);
		return -1;
	}
	if (refuse_without_series(op, res, n))
		return -1;
	if (getrandom(&c->nonce, sizeof(c->nonce), 0) != sizeof(c->nonce) ||
	    pipe2(p, O_CLOEXEC)) {
		mark_failed_from(res, 0, n, LVL_INTERNAL, errno, c->write);
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
		chain_child_main(p[1], fds, n, parent, op, c->nonce);
	mark_failed_from(res, 0, n, LVL_INTERNAL, errno, c->write);
	close(p[1]);
	if (c->pid < 0) {
		close(p[0]);
		return -1;
	}
	c->pidfd = pidfd_open(c->pid, 0);
	if (c->pidfd < 0) {
		mark_failed_from(res, 0, n, LVL_INTERNAL, errno, c->write);
		/* Our child, not reaped yet: its pid is not reused. */
		kill(c->pid, SIGKILL);
		wait_child(c->pid);
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
	while (!c->eof && c->answered < c->n && (pf[0].revents || c->exited)) {
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
		if (c->got.nonce != c->nonce || c->got.index != c->answered ||
		    c->got.r.stage < LVL_OK || c->got.r.stage >= LVL_NSTAGES) {
			/* Not from our child: trust nothing. */
			c->deadline = 0;
			return true;
		}
		c->res[c->answered] = c->got.r;
		c->done += c->got.r.stage == LVL_OK;
		c->answered++;
		c->deadline = now_ms() + op_timeout_s * 1000LL;
	}
	return c->answered == c->n || (c->eof && c->exited) ||
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
	if (c->answered == c->n && defer) {
		/* Nothing is left for it to do: its exit is not waited for. */
		pidfd_send_signal(c->pidfd, SIGKILL, NULL, 0);
		close(c->pidfd);
		defer_reap(c->pid);
		return c->done;
	}
	status = reap_by_deadline(c->pidfd, c->pid, c->deadline, &killed);
	close(c->pidfd);
	if (c->answered < c->n) {
		if (killed && !c->exited)
			mark_failed_from(c->res, c->answered, c->n,
					 LVL_TIMEOUT, ETIMEDOUT, c->write);
		else
			mark_failed_from(c->res, c->answered, c->n,
					 LVL_CHILD, WIFSIGNALED(status) ?
					 WTERMSIG(status) : 0, c->write);
	}
	return c->done;
}

/*
 * Run a chain (chain_start()) to its end and reap its child. Returns the
 * number of namespaces that were done (LVL_OK).
 */
static int chain_run_to_end(const int *fds, int n, const struct lvl_op *op,
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
 * Do @op in @ns, into @res: in place when it is perfns's own, else in a
 * child that enters it. Returns 0, or -1 when @res says why not.
 *
 * res->level is the host's level as written in the initial namespace. In
 * any other it is the level in force as the kernel applies it, from
 * NS_PERF_PARANOID_GET on @ns's descriptor once the child answered (the
 * level read there on a kernel without the ioctl): after a write, the
 * level that refused it, if it was refused. The namespace is still
 * entered to read, so that reading another namespace takes what it always
 * took (CAP_SYS_ADMIN over it).
 */
int level_io_in(const struct userns *ns, const struct lvl_op *op,
		struct lvl_result *res)
{
	if (!userns_is_self(ns))
		chain_run_to_end(&ns->fd, 1, op, res);
	else if (!refuse_without_series(op, res, 1))
		level_io_here(op, userns_is_initial(ns), res);
	if (!userns_is_initial(ns))
		userns_level_in_force(ns, res);
	return res->stage == LVL_OK ? 0 : -1;
}
