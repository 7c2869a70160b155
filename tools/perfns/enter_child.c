// SPDX-License-Identifier: GPL-2.0
/*
 * The child that enters user namespaces for perfns and reads or writes the
 * level there (started by chain_start()).
 *
 * The namespaces perfns enters are often a tenant's: its root holds
 * CAP_SYS_PTRACE and CAP_KILL over every process whose credentials are in
 * that namespace, which the child is once it has entered. So the child is
 * made non-dumpable before it enters (no ptrace, no /proc/PID/fd, no
 * /proc/PID/mem for the tenant), keeps no descriptor but its answer pipe and
 * the namespaces, dies with its parent, and authenticates its answer with a
 * nonce.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "perfns.h"

/* Close every descriptor from @from up (close_range, or one by one). */
static void close_fds_from(int from)
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
 * The child, run in a process forked from @parent: made safe to enter
 * namespaces that a tenant controls, then enters each of @fds[0..n-1] in
 * turn (each below the one before), does @op in each with level_io_here()
 * and answers on @w, one record each, authenticated by @nonce.
 */
void chain_child_main(int w, const int *fds, int n, pid_t parent,
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
	for (k = 0; k < n; k++) {
		moved[k] = fcntl(fds[k], F_DUPFD, 4 + n);
		if (moved[k] < 0)
			_exit(1);
	}
	nul = open("/dev/null", O_RDWR);
	if (w < 0 || nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 ||
	    dup2(nul, 2) < 0 || dup2(w, 3) < 0)
		_exit(1);
	for (k = 0; k < n; k++)
		if (dup2(moved[k], 4 + k) < 0)
			_exit(1);
	close_fds_from(4 + n);

	for (k = 0; k < n; k++) {
		ret = setns(4 + k, CLONE_NEWUSER);
		memset(&rep, 0, sizeof(rep));
		rep.nonce = nonce;
		rep.index = k;
		if (ret) {
			rep.r.stage = LVL_SETNS;
			rep.r.err = errno;
			rep.r.level = -1;
			rep.r.floor = -1;
		}
		close(4 + k);
		/* New credentials may reset both; the parent may be gone. */
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
