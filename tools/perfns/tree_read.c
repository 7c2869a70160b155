// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the level of every namespace of perfns tree, top-down, by
 * children that enter the namespaces and read the global
 * /proc/sys/kernel/perf_event_paranoid there, which shows the reader's
 * level; never the namespace's own copy under /proc/sys/user, which is an
 * entry of its own in the dcache for every namespace and would stay there.
 * The level a row shows is the level in force as the kernel applies it,
 * from NS_PERF_PARANOID_GET on the namespace's descriptor when its child
 * starts (with its own level and grant, one answer for the row): the file
 * shows the host's level as written, which the kernel may count for less.
 * The file's value stands in for it only on a kernel without the ioctl.
 *
 * A process can only enter a namespace below its own, so one child reads a
 * whole chain (a namespace, its first child, that one's first child, ...)
 * and each other branch takes a child of its own: one per leaf of the tree.
 * Chains that do not depend on each other are read by a few children at
 * once. When a child that entered a namespace is stopped until the
 * timeout, its descendants (all under the control of whoever stopped it)
 * are not entered.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tree.h"

/* Children reading chains at once, at most */
#define MAX_PAR		4

/* A chain being read by a child. */
struct chain_read {
	struct chain_run run;
	long chain[MAX_CHAIN];
	struct lvl_result res[MAX_CHAIN];
	int planned;		/* namespaces in chain[] */
	int opened;		/* of them, reached again from the top */
	int err;		/* why not all were */
	bool skip;
};

/*
 * How many namespaces one child may enter in turn, and how many children
 * read at once. A chain's descriptors are open in the parent while its
 * child starts, and twice over in the child while it moves them; each
 * child at work holds two more in the parent (its pidfd and answer pipe),
 * and in every child started meanwhile until it closes them. So the limit
 * on open files decides: several children only when each may still enter
 * the deepest chain there can be, else one (and at least 1 namespace).
 */
void set_chain_limits(struct forest *f)
{
	struct rlimit rl;
	long avail, par, n;

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		f->chain_max = 1;
		f->par = 1;
		return;
	}
	avail = rl.rlim_cur == RLIM_INFINITY ? 1 << 20 :
		(long)rl.rlim_cur - 12;
	par = 1 + (avail - 2L * MAX_CHAIN) / 2;
	par = par < 1 ? 1 : par > MAX_PAR ? MAX_PAR : par;
	n = (avail - 2 * (par - 1)) / 2;
	f->chain_max = n < 1 ? 1 : n > MAX_CHAIN ? MAX_CHAIN : (int)n;
	f->par = (int)par;
}

/* Node @i is perfns's own namespace. */
static bool node_is_self(const struct forest *f, long i)
{
	return f->nodes[i].ino == f->self->ino && f->dev == f->self->dev;
}

/* Read the subtree at @start later (skipping it, with @skip). */
static void push_job(struct forest *f, long start, bool skip)
{
	if (f->njobs == f->jobs_cap) {
		f->jobs_cap = f->jobs_cap ? f->jobs_cap * 2 : 64;
		f->jobs = xrealloc(f->jobs, f->jobs_cap * sizeof(*f->jobs));
	}
	f->jobs[f->njobs++] = (struct chain_job){ .start = start,
						  .skip = skip };
}

/* Every child of @nd but the first @from, to be read after it. */
static void push_kids(struct forest *f, const struct node *nd, size_t from,
		      bool skip)
{
	size_t j = nd->nkids;

	/* Last first: the stack gives them back in order. */
	while (j-- > from)
		push_job(f, nd->kids[j], skip);
}

/*
 * Start on the chain that begins at @job's namespace: it, its first child,
 * that one's first child, ... up to what one child may enter, reached
 * again and handed to a child that enters them in turn. Returns true when
 * that child is at work; false when the chain is done already (skipped,
 * not reachable, or no child could start: @rd says which).
 */
static bool start_chain_read(struct forest *f, const struct chain_job *job,
			     struct chain_read *rd)
{
	int fds[MAX_CHAIN], k;
	long x = job->start;
	bool started = false;

	rd->planned = 0;
	rd->opened = 0;
	rd->err = 0;
	rd->skip = job->skip;
	rd->chain[rd->planned++] = x;
	while (rd->planned < f->chain_max && f->nodes[x].nkids &&
	       !node_is_self(f, f->nodes[x].kids[0])) {
		x = f->nodes[x].kids[0];
		rd->chain[rd->planned++] = x;
	}
	if (rd->skip)
		return false;
	rd->opened = open_chain(f, rd->chain, rd->planned, fds, &rd->err);
	/* What the kernel says of each, as its child starts on it. */
	for (k = 0; k < rd->opened; k++)
		node_perf_get(&f->nodes[rd->chain[k]], fds[k]);
	if (rd->opened)
		started = !chain_start(&rd->run, fds, rd->opened,
				       &(struct lvl_op){ 0 }, rd->res);
	for (k = 0; k < rd->opened; k++)
		close(fds[k]);
	return started;
}

/*
 * A chain is done: its levels into the nodes, and every other subtree that
 * hangs from it pushed to be read. A namespace whose child timed out or
 * was killed takes its subtree with it: whoever did that controls
 * everything below.
 */
static void finish_chain_read(struct forest *f, struct chain_read *rd)
{
	int planned = rd->planned, opened = rd->opened, k;
	bool skip = rd->skip;
	enum lvl_stage stage;
	struct node *nd;

	for (k = 0; k < opened; k++) {
		nd = &f->nodes[rd->chain[k]];
		nd->lvl = rd->res[k];
		lvl_take_in_force(&nd->lvl, &nd->perf, nd->perf_err);
	}
	if (opened < planned) {
		/* chain[opened] is out of reach; what is below is retried */
		nd = &f->nodes[rd->chain[opened]];
		if (skip) {
			nd->state = NODE_SKIPPED;
		} else if (rd->err == ESRCH) {
			nd->state = NODE_GONE;
			f->gone++;
		} else {
			nd->state = NODE_ERROR;
			nd->err = rd->err;
			f->unreadable++;
		}
	}

	for (k = 0; k < planned; k++) {
		nd = &f->nodes[rd->chain[k]];
		stage = nd->lvl.stage;
		if (k > opened || (k == opened && opened < planned && skip)) {
			nd->state = NODE_SKIPPED;
		} else if (k < opened && stage == LVL_TIMEOUT) {
			f->timeouts++;
		} else if (k < opened && stage != LVL_OK &&
			   stage != LVL_SKIPPED &&
			   !(stage == LVL_SETNS && nd->lvl.err == EPERM)) {
			f->unreadable++;
		}
		if (k < opened && (stage == LVL_TIMEOUT ||
				   stage == LVL_SKIPPED || stage == LVL_CHILD))
			skip = true;
		if (k == opened && opened < planned) {
			/* Start again below the one that could not be had. */
			push_kids(f, nd, 0, skip);
			break;
		}
		push_kids(f, nd, k + 1 < planned ? 1 : 0, skip);
	}
}

/*
 * Your own namespace, @nd, in place, with the floor when it is the initial
 * one. There the row shows the level in force too, and the host's level as
 * written is kept for the row to show where the kernel counts it for less.
 */
static void read_self(struct forest *f, struct node *nd,
		      const struct lvl_op *op)
{
	level_io_in(f->self, op, &nd->lvl);
	node_perf_get(nd, f->self->fd);
	if (userns_is_initial(f->self)) {
		f->host_level = nd->lvl.level;
		f->have_host = nd->lvl.have_level;
	}
	lvl_take_in_force(&nd->lvl, &nd->perf, nd->perf_err);
}

/*
 * Read every level below @roots, top-down, with up to f->par children at
 * work at once on chains that do not depend on each other: a chain is
 * started only once the chain above it is done, so that a subtree whose
 * top timed out is never entered. Children that answered everything are
 * not waited for; they are reaped at the end.
 */
void read_levels(struct forest *f, const long *roots, size_t nroots)
{
	struct lvl_op self_op = { .read_floor = userns_is_initial(f->self) };
	struct chain_read *rd = xrealloc(NULL, f->par * sizeof(*rd));
	struct pollfd *pf = xrealloc(NULL, 2 * f->par * sizeof(*pf));
	long long deadline, left;
	int nrun = 0, i, k;
	struct chain_job job;
	size_t r;

	for (r = nroots; r-- > 0;)
		push_job(f, roots[r], false);
	while (f->njobs || nrun) {
		while (f->njobs && nrun < f->par) {
			job = f->jobs[--f->njobs];
			if (node_is_self(f, job.start)) {
				read_self(f, &f->nodes[job.start], &self_op);
				push_kids(f, &f->nodes[job.start], 0, job.skip);
				continue;
			}
			if (start_chain_read(f, &job, &rd[nrun]))
				nrun++;
			else
				finish_chain_read(f, &rd[nrun]);
		}
		if (!nrun)
			continue;

		deadline = chain_pollfds(&rd[0].run, &pf[0]);
		for (i = 1; i < nrun; i++)
			if (chain_pollfds(&rd[i].run, &pf[2 * i]) < deadline)
				deadline = rd[i].run.deadline;
		left = deadline - now_ms();
		k = left <= 0 ? 0 : poll(pf, 2 * nrun, (int)left);
		if (k < 0 && errno != EINTR)
			k = 0;	/* every chain checks its own deadline */
		if (k < 0)
			continue;
		for (i = nrun - 1; i >= 0; i--) {
			if (!chain_poll(&rd[i].run, &pf[2 * i]))
				continue;
			chain_end(&rd[i].run, true);
			finish_chain_read(f, &rd[i]);
			if (i != --nrun) {
				rd[i] = rd[nrun];
				rd[i].run.res = rd[i].res;
			}
		}
		chain_reap_deferred(false);
	}
	chain_reap_deferred(true);
	free(rd);
	free(pf);
}
