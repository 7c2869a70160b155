// SPDX-License-Identifier: GPL-2.0
/*
 * perfns tree [--json] - every user namespace with its level, and the host's
 * floor.
 *
 * Namespaces come from the pidfd of every process the caller may inspect,
 * and from their parents (NS_GET_PARENT) up to the top of what the caller
 * may see, so that namespaces without processes of their own show up too.
 * Each is known by its inode number in a hash table, with the way to reach
 * it again (a process and how many levels above that process's namespace
 * it is), so that no descriptor is kept per namespace: however many there
 * are, perfns holds a few dozen at any time.
 *
 * Levels are then read top-down by children that enter the namespaces and
 * read the global /proc/sys/kernel/perf_event_paranoid there, which shows
 * the reader's level; never the namespace's own copy under /proc/sys/user,
 * which is an entry of its own in the dcache for every namespace and would
 * stay there. A process can only enter a namespace below its own, so one
 * child reads a whole chain (a namespace, its first child, that one's
 * first child, ...) and each other branch takes a child of its own: one
 * per leaf of the tree. Chains that do not depend on each other are read
 * by a few children at once. When a child that entered a namespace is
 * stopped until the timeout, its descendants (all under the control of
 * whoever stopped it) are not entered. Resource errors end the command
 * with a message and exit status 1; they never drop a namespace silently.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <linux/nsfs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "perfns.h"

#define PF_KTHREAD	0x00200000	/* in /proc/PID/stat's flags */

#define TEXT_PROCS	3	/* processes shown per namespace */
#define JSON_PROCS	10
#define MAX_HOPS	40	/* deeper than the kernel's 32 levels */
#define TRY_PROCS	8	/* processes tried to reach a namespace again */
#define MAX_PAR		4	/* children reading chains at once, at most */

/* Why a node has no level beyond what level_io_in() said. */
enum node_state {
	NODE_READ,		/* lvl holds what level_io_in() said */
	NODE_SKIPPED,		/* an ancestor's child timed out */
	NODE_GONE,		/* every process that led to it exited */
	NODE_ERROR,		/* reaching it again failed: errno in err */
};

struct proc_ent {
	pid_t pid;
	char comm[72];		/* escaped */
};

struct node {
	ino_t ino;
	ino_t parent_ino;
	bool have_parent;
	long parent;		/* index in the nodes array, or -1 */
	bool have_owner;
	uid_t owner;
	int depth;
	pid_t rep_pid;		/* reached again from this process ... */
	int rep_hops;		/* ... this many parents up */
	enum node_state state;
	int err;
	struct lvl_result lvl;
	int granted;		/* anchored by a grant: 1, 0, or -1 unknown */
	struct proc_ent *procs;
	size_t nprocs, procs_cap;
	long *kids;
	size_t nkids, kids_cap;
};

/* A chain to read: the namespace it starts at, and whether to skip it. */
struct job {
	long start;
	bool skip;
};

/* A chain being read by a child. */
struct reading {
	struct chain_run run;
	long chain[MAX_CHAIN];
	struct lvl_result res[MAX_CHAIN];
	int n, m, err;		/* planned, opened, why not all were */
	bool skip;
};

struct forest {
	struct node *nodes;
	size_t n, cap;
	long *hash;		/* open addressing: node index, or -1 */
	size_t hash_size;	/* a power of two */
	dev_t dev;		/* nsfs */
	const struct userns *self;
	unsigned int hidden;	/* processes whose namespace we may not see */
	unsigned int timeouts, unreadable, gone;
	int chain_max;		/* namespaces one child may enter in turn */
	int par;		/* children at work at once */
	struct job *jobs;	/* chains waiting to be read (a stack) */
	size_t njobs, jobs_cap;
};

static const char tree_usage[] =
	"Usage: perfns tree [--json] [--timeout SECONDS]\n"
	"\n"
	"Show every user namespace on the system as a tree: its id (the\n"
	"inode of /proc/PID/ns/user), the uid owning it, its depth, the\n"
	"perf_event_paranoid level in force in it and a few of its processes;\n"
	"the initial namespace's row also shows the host's floor (what\n"
	"kernel.perf_event_paranoid_userns reads: the level a namespace created\n"
	"in it starts at; where the kernel has it, and when run from the\n"
	"initial namespace). Namespaces that have no process are found through the\n"
	"parents of those that have. Reading a level takes CAP_SYS_ADMIN over\n"
	"the namespace; where that is missing the row says so. Names that\n"
	"processes give themselves are printed with every byte that is not\n"
	"printable ASCII (and the backslash) as \\xHH.\n"
	"\n"
	"Options:\n"
	"  -j, --json           print JSON instead (see perfns(1) for its fields)\n"
	"  -t, --timeout SECS   give up on a namespace after SECS (default 10)\n"
	"  -h, --help           show this help\n"
	"\n"
	"Exit status: 0 ok, 1 failed (a level could not be read for a reason\n"
	"other than permissions, or resources ran out), 2 usage error.\n";

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		msg("out of memory");
		exit(EXIT_FAIL);
	}
	return p;
}

static size_t hash_slot(const struct forest *f, ino_t ino)
{
	unsigned long long h = (unsigned long long)ino * 0x9E3779B97F4A7C15ULL;

	return (size_t)(h >> 20) & (f->hash_size - 1);
}

static long find_node(const struct forest *f, ino_t ino)
{
	size_t s;

	if (!f->hash_size)
		return -1;
	for (s = hash_slot(f, ino); f->hash[s] >= 0;
	     s = (s + 1) & (f->hash_size - 1))
		if (f->nodes[f->hash[s]].ino == ino)
			return f->hash[s];
	return -1;
}

/* Whether the namespace on @fd is anchored by a grant: 1, 0, -1 unknown */
static int ns_granted(int fd)
{
	struct userns ns = { .fd = fd };
	struct ns_perf_paranoid p;

	if (userns_perf_get(&ns, &p))
		return -1;
	return !!(p.flags & NS_PERF_PARANOID_ANCHORED);
}

static void hash_insert(struct forest *f, long i)
{
	size_t s;

	for (s = hash_slot(f, f->nodes[i].ino); f->hash[s] >= 0;
	     s = (s + 1) & (f->hash_size - 1))
		;
	f->hash[s] = i;
}

static void hash_grow(struct forest *f)
{
	size_t i;

	if (f->n * 2 < f->hash_size)
		return;
	f->hash_size = f->hash_size ? f->hash_size * 2 : 1024;
	f->hash = xrealloc(f->hash, f->hash_size * sizeof(long));
	for (i = 0; i < f->hash_size; i++)
		f->hash[i] = -1;
	for (i = 0; i < f->n; i++)
		hash_insert(f, i);
}

/* A new node for namespace @ino, reached from @pid @hops levels up. */
static long new_node(struct forest *f, ino_t ino, int fd, pid_t pid, int hops)
{
	struct node *nd;
	uid_t uid;

	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 256;
		f->nodes = xrealloc(f->nodes, f->cap * sizeof(*f->nodes));
	}
	nd = &f->nodes[f->n];
	memset(nd, 0, sizeof(*nd));
	nd->ino = ino;
	nd->parent = -1;
	nd->rep_pid = pid;
	nd->rep_hops = hops;
	nd->granted = ns_granted(fd);
	if (!ioctl(fd, NS_GET_OWNER_UID, &uid)) {
		nd->owner = uid;
		nd->have_owner = true;
	}
	f->n++;
	hash_grow(f);
	if (f->hash_size && find_node(f, ino) < 0)
		hash_insert(f, f->n - 1);
	return f->n - 1;
}

static void add_proc(struct node *nd, pid_t pid, const char *comm)
{
	if (nd->nprocs == nd->procs_cap) {
		nd->procs_cap = nd->procs_cap ? nd->procs_cap * 2 : 4;
		nd->procs = xrealloc(nd->procs,
				     nd->procs_cap * sizeof(*nd->procs));
	}
	nd->procs[nd->nprocs].pid = pid;
	snprintf(nd->procs[nd->nprocs].comm, sizeof(nd->procs[0].comm), "%s",
		 comm);
	nd->nprocs++;
}

/*
 * From /proc/PID/stat, the one file read per process: whether it is a
 * kernel thread (they all sit in the initial namespace and only add
 * noise), and its name, escaped ("?" when it cannot be read). The name is
 * what lies between the first '(' and the last ')': every field after it
 * is a number or a state letter, whatever the process named itself.
 */
static bool read_stat(pid_t pid, char *comm, size_t len)
{
	char path[64], buf[512], *open_p, *p;
	unsigned long flags;
	ssize_t n;
	int fd, i;

	snprintf(comm, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* pid (comm) state ppid pgrp session tty_nr tpgid flags ... */
	open_p = memchr(buf, '(', n);
	p = memrchr(buf, ')', n);
	if (!open_p || !p || p < open_p)
		return false;
	escape_bytes(comm, len, open_p + 1, p - open_p - 1);
	for (i = 0; p && i < 7; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, "%lu", &flags) != 1)
		return false;
	return flags & PF_KTHREAD;
}

static int fatal(const char *what, pid_t pid, int err)
{
	msg("cannot list the user namespaces: %s (pid %d): %s; refusing to print an incomplete tree",
	    what, (int)pid, strerror(err));
	return -1;
}

/*
 * Add process @pid and its namespace, with every ancestor not seen yet.
 * Returns 0 (also when the process is gone or hidden), -1 after a message.
 */
static int add_process(struct forest *f, pid_t pid)
{
	int pidfd, fd, parent, hops = 0;
	char comm[sizeof(((struct proc_ent *)0)->comm)];
	struct stat st;
	long i, j;

	pidfd = pidfd_open(pid, 0);
	if (pidfd < 0)
		return errno == ESRCH || errno == EINVAL ? 0 :
		       fatal("pidfd_open", pid, errno);
	/* By number, but checked with the pidfd below: this process's. */
	if (read_stat(pid, comm, sizeof(comm))) {
		close(pidfd);
		return 0;
	}
	fd = pidfd_userns(pidfd, pid);
	if (fd < 0) {
		close(pidfd);
		if (fd == -EACCES || fd == -EPERM)
			f->hidden++;
		if (fd == -EACCES || fd == -EPERM || fd == -ESRCH)
			return 0;
		return fatal("its user namespace", pid, -fd);
	}
	/* Still alive: the flags and name read by number were its own. */
	if (pidfd_send_signal(pidfd, 0, NULL, 0) && errno == ESRCH) {
		close(pidfd);
		close(fd);
		return 0;
	}
	close(pidfd);
	if (fstat(fd, &st)) {
		close(fd);
		return fatal("fstat of its user namespace", pid, errno);
	}
	if (!f->n)
		f->dev = st.st_dev;
	i = find_node(f, st.st_ino);
	if (i >= 0) {
		add_proc(&f->nodes[i], pid, comm);
		close(fd);
		return 0;
	}
	i = new_node(f, st.st_ino, fd, pid, 0);
	add_proc(&f->nodes[i], pid, comm);

	/* Up until a namespace already known, or the top. */
	for (;;) {
		parent = ioctl(fd, NS_GET_PARENT);
		if (parent < 0) {
			if (errno == EPERM)
				break;
			close(fd);
			return fatal("NS_GET_PARENT", pid, errno);
		}
		close(fd);
		fd = parent;
		hops++;
		if (fstat(fd, &st)) {
			close(fd);
			return fatal("fstat of a parent namespace", pid,
				     errno);
		}
		f->nodes[i].parent_ino = st.st_ino;
		f->nodes[i].have_parent = true;
		j = find_node(f, st.st_ino);
		if (j >= 0 || hops > MAX_HOPS)
			break;
		i = new_node(f, st.st_ino, fd, pid, hops);
	}
	close(fd);
	return 0;
}

static int collect_processes(struct forest *f)
{
	struct dirent *de;
	pid_t pid;
	DIR *d;
	int ret;

	ret = proc_is_ours();
	if (ret) {
		msg("cannot list processes: %s",
		    ret == -EXDEV ?
		    "/proc is not the proc file system of perfns's pid namespace" :
		    strerror(-ret));
		return -1;
	}
	d = opendir("/proc");
	if (!d) {
		msg("cannot read /proc: %s", strerror(errno));
		return -1;
	}
	errno = 0;
	while ((de = readdir(d))) {
		if (parse_pid(de->d_name, &pid))
			continue;
		if (add_process(f, pid)) {
			closedir(d);
			return -1;
		}
		errno = 0;
	}
	ret = errno;
	closedir(d);
	if (ret) {
		msg("cannot read /proc: %s", strerror(ret));
		return -1;
	}
	return 0;
}

static void add_kid(struct node *pa, long i)
{
	if (pa->nkids == pa->kids_cap) {
		pa->kids_cap = pa->kids_cap ? pa->kids_cap * 2 : 4;
		pa->kids = xrealloc(pa->kids, pa->kids_cap * sizeof(long));
	}
	pa->kids[pa->nkids++] = i;
}

/* Parent indices and children from the parents' inode numbers. */
static void link_parents(struct forest *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		struct node *nd = &f->nodes[i];

		if (!nd->have_parent)
			continue;
		nd->parent = find_node(f, nd->parent_ino);
		if (nd->parent >= 0)
			add_kid(&f->nodes[nd->parent], i);
	}
}

static struct forest *sort_forest;

static int cmp_ino(const void *a, const void *b)
{
	ino_t x = sort_forest->nodes[*(const long *)a].ino;
	ino_t y = sort_forest->nodes[*(const long *)b].ino;

	return x < y ? -1 : x > y;
}

static int cmp_pid(const void *a, const void *b)
{
	return ((const struct proc_ent *)a)->pid -
	       ((const struct proc_ent *)b)->pid;
}

static void sort_all(struct forest *f, long *roots, size_t nroots)
{
	size_t i;

	sort_forest = f;
	qsort(roots, nroots, sizeof(long), cmp_ino);
	for (i = 0; i < f->n; i++) {
		qsort(f->nodes[i].kids, f->nodes[i].nkids, sizeof(long),
		      cmp_ino);
		qsort(f->nodes[i].procs, f->nodes[i].nprocs,
		      sizeof(struct proc_ent), cmp_pid);
	}
}

/* The namespace @hops above @pid's, if it is still @ino; or -errno. */
static int reach(const struct forest *f, pid_t pid, int hops, ino_t ino)
{
	int pidfd, fd, parent;
	struct stat st;

	pidfd = pidfd_open(pid, 0);
	if (pidfd < 0)
		return -errno;
	fd = pidfd_userns(pidfd, pid);
	close(pidfd);
	if (fd < 0)
		return fd;
	while (hops-- > 0) {
		parent = ioctl(fd, NS_GET_PARENT);
		close(fd);
		if (parent < 0)
			return errno == EPERM ? -ESRCH : -errno;
		fd = parent;
	}
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	if (st.st_ino != ino || st.st_dev != f->dev) {
		close(fd);
		return -ESRCH;	/* not the namespace any more */
	}
	return fd;
}

/*
 * A descriptor for node @i again: from its representative, from its own
 * processes, else from a child's. -ESRCH when every way is gone.
 */
static int open_node(const struct forest *f, long i)
{
	const struct node *nd = &f->nodes[i];
	int fd, parent;
	struct stat st;
	size_t k;

	fd = reach(f, nd->rep_pid, nd->rep_hops, nd->ino);
	if (fd != -ESRCH)
		return fd;
	for (k = 0; k < nd->nprocs && k < TRY_PROCS; k++) {
		fd = reach(f, nd->procs[k].pid, 0, nd->ino);
		if (fd != -ESRCH)
			return fd;
	}
	for (k = 0; k < nd->nkids; k++) {
		fd = open_node(f, nd->kids[k]);
		if (fd == -ESRCH)
			continue;
		if (fd < 0)
			return fd;
		parent = ioctl(fd, NS_GET_PARENT);
		close(fd);
		if (parent < 0)
			return -errno;
		if (fstat(parent, &st) || st.st_ino != nd->ino) {
			close(parent);
			continue;
		}
		return parent;
	}
	return -ESRCH;
}

/*
 * How many namespaces one child may enter in turn, and how many children
 * read at once. A chain's descriptors are open in the parent while its
 * child starts, and twice over in the child while it moves them; each
 * child at work holds two more in the parent (its pidfd and answer pipe),
 * and in every child started meanwhile until it closes them. So the limit
 * on open files decides: several children only when each may still enter
 * the deepest chain there can be, else one (and at least 1 namespace).
 */
static void chain_limits(struct forest *f)
{
	struct rlimit rl;
	long avail, par, n;

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		f->chain_max = f->par = 1;
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

static bool is_self(const struct forest *f, long i)
{
	return f->nodes[i].ino == f->self->ino && f->dev == f->self->dev;
}

/*
 * Descriptors for the chain @chain[0..n-1] (each the parent of the next):
 * the deepest reached again, the others by NS_GET_PARENT from it, checked
 * against the inode numbers. Returns how many were opened from the top
 * (fewer than @n when one could not be reached: *err says why).
 */
static int open_chain(const struct forest *f, const long *chain, int n,
		      int *fds, int *err)
{
	struct stat st;
	int k, m, fd;

	fd = open_node(f, chain[n - 1]);
	for (k = n - 1; fd >= 0; k--) {
		if (fstat(fd, &st) || st.st_ino != f->nodes[chain[k]].ino) {
			close(fd);
			break;
		}
		fds[k] = fd;
		if (!k)
			return n;
		fd = ioctl(fd, NS_GET_PARENT);
	}
	for (m = n - 1; m > k; m--)
		close(fds[m]);
	/* One by one from the top, as far as they can be reached. */
	for (k = 0; k < n; k++) {
		fds[k] = open_node(f, chain[k]);
		if (fds[k] < 0) {
			*err = -fds[k];
			return k;
		}
	}
	return n;
}

/* Read the subtree at @start later (skipping it, with @skip). */
static void push_job(struct forest *f, long start, bool skip)
{
	if (f->njobs == f->jobs_cap) {
		f->jobs_cap = f->jobs_cap ? f->jobs_cap * 2 : 64;
		f->jobs = xrealloc(f->jobs, f->jobs_cap * sizeof(*f->jobs));
	}
	f->jobs[f->njobs++] = (struct job){ .start = start, .skip = skip };
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
static bool start_chain(struct forest *f, const struct job *job,
			struct reading *rd)
{
	int fds[MAX_CHAIN], k;
	long x = job->start;
	bool started = false;

	rd->n = rd->m = rd->err = 0;
	rd->skip = job->skip;
	rd->chain[rd->n++] = x;
	while (rd->n < f->chain_max && f->nodes[x].nkids &&
	       !is_self(f, f->nodes[x].kids[0])) {
		x = f->nodes[x].kids[0];
		rd->chain[rd->n++] = x;
	}
	if (rd->skip)
		return false;
	rd->m = open_chain(f, rd->chain, rd->n, fds, &rd->err);
	if (rd->m)
		started = !chain_start(&rd->run, fds, rd->m,
				       &(struct lvl_op){ 0 }, rd->res);
	for (k = 0; k < rd->m; k++)
		close(fds[k]);
	return started;
}

/*
 * A chain is done: its levels into the nodes, and every other subtree that
 * hangs from it pushed to be read. A namespace whose child timed out or
 * was killed takes its subtree with it: whoever did that controls
 * everything below.
 */
static void end_chain(struct forest *f, struct reading *rd)
{
	bool skip = rd->skip;
	struct node *nd;
	int k;

	for (k = 0; k < rd->m; k++)
		f->nodes[rd->chain[k]].lvl = rd->res[k];
	if (rd->m < rd->n) {
		/* chain[m] could not be reached; what is below is retried */
		nd = &f->nodes[rd->chain[rd->m]];
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

	for (k = 0; k < rd->n; k++) {
		nd = &f->nodes[rd->chain[k]];
		if (k > rd->m || (k == rd->m && rd->m < rd->n && skip)) {
			nd->state = NODE_SKIPPED;
		} else if (k < rd->m && nd->lvl.stage == LVL_TIMEOUT) {
			f->timeouts++;
		} else if (k < rd->m && nd->lvl.stage != LVL_OK &&
			   nd->lvl.stage != LVL_SKIPPED &&
			   !(nd->lvl.stage == LVL_SETNS && nd->lvl.err == EPERM)) {
			f->unreadable++;
		}
		if (k < rd->m && (nd->lvl.stage == LVL_TIMEOUT ||
				  nd->lvl.stage == LVL_SKIPPED ||
				  nd->lvl.stage == LVL_CHILD))
			skip = true;
		if (k == rd->m && rd->m < rd->n) {
			/* Start again below the one that could not be had. */
			push_kids(f, nd, 0, skip);
			break;
		}
		push_kids(f, nd, k + 1 < rd->n ? 1 : 0, skip);
	}
}

/*
 * Read every level below @roots, top-down, with up to f->par children at
 * work at once on chains that do not depend on each other: a chain is
 * started only once the chain above it is done, so that a subtree whose
 * top timed out is never entered. Children that answered everything are
 * not waited for; they are reaped at the end.
 */
static void read_levels(struct forest *f, const long *roots, size_t nroots)
{
	struct lvl_op self_op = { .read_floor = userns_is_initial(f->self) };
	struct reading *rd = xrealloc(NULL, f->par * sizeof(*rd));
	struct pollfd *pf = xrealloc(NULL, 2 * f->par * sizeof(*pf));
	long long deadline, left;
	int nrun = 0, i, k;
	struct job job;
	size_t r;

	for (r = nroots; r-- > 0;)
		push_job(f, roots[r], false);
	while (f->njobs || nrun) {
		while (f->njobs && nrun < f->par) {
			job = f->jobs[--f->njobs];
			if (is_self(f, job.start)) {
				/* Your own, in place; the floor is read here. */
				level_io_in(f->self, &self_op,
				      &f->nodes[job.start].lvl);
				push_kids(f, &f->nodes[job.start], 0, job.skip);
				continue;
			}
			if (start_chain(f, &job, &rd[nrun]))
				nrun++;
			else
				end_chain(f, &rd[nrun]);
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
			end_chain(f, &rd[i]);
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

static void set_depths(struct forest *f, long i, int depth)
{
	size_t k;

	f->nodes[i].depth = depth;
	for (k = 0; k < f->nodes[i].nkids; k++)
		set_depths(f, f->nodes[i].kids[k], depth + 1);
}

/* Why a level could not be read, as a row says it; NULL if it was. */
static const char *level_problem(const struct node *nd, char *buf, size_t len)
{
	const struct lvl_result *r = &nd->lvl;

	switch (nd->state) {
	case NODE_SKIPPED:
		return "not read (the child reading a namespace above it timed out or was killed)";
	case NODE_GONE:
		return "unknown (its processes exited while listing)";
	case NODE_ERROR:
		snprintf(buf, len, "unknown (cannot reach it again: %s)",
			 strerror(nd->err));
		return buf;
	case NODE_READ:
		break;
	}
	if (r->stage == LVL_OK || (r->on_floor && r->have_level))
		return NULL;	/* the level is known (the floor may not be) */
	if (r->stage == LVL_SKIPPED)
		return "not read (the child reading a namespace above it timed out or was killed)";
	if (r->stage == LVL_SETNS && r->err == EPERM)
		snprintf(buf, len, "not visible (need CAP_SYS_ADMIN over it)");
	else if (r->stage == LVL_SETNS)
		snprintf(buf, len, "not visible (setns: %s)",
			 strerror(r->err));
	else if (r->stage == LVL_TIMEOUT)
		snprintf(buf, len,
			 "unknown (no answer within %d s: the child that entered it was stopped or stalled)",
			 op_timeout_s);
	else if (r->stage == LVL_CHILD)
		snprintf(buf, len,
			 "unknown (the child that entered it ended without an answer%s%s)",
			 r->err ? ": " : "", r->err ? strsignal(r->err) : "");
	else
		snprintf(buf, len, "unknown (%s)", strerror(r->err));
	return buf;
}

static void print_node(const struct forest *f, long i, const char *prefix,
		       bool last, bool top, int has_floor)
{
	const struct node *nd = &f->nodes[i];
	bool init = nd->ino == INIT_USERNS_INO;
	bool self = nd->ino == f->self->ino;
	char sub[512], why[160];
	const char *problem;
	size_t k;

	printf("%s%s%lu", prefix, top ? "" : last ? "`- " : "|- ",
	       (unsigned long)nd->ino);
	if (init || self)
		printf(" (%s%s%s)", init ? "initial" : "",
		       init && self ? ", " : "", self ? "yours" : "");
	if (nd->have_owner)
		printf("  owner: %u", (unsigned int)nd->owner);
	else
		printf("  owner: ?");
	printf("  depth: %d", nd->depth);
	problem = level_problem(nd, why, sizeof(why));
	if (!problem) {
		printf("  level: %d%s", nd->lvl.level,
		       nd->granted > 0 ? " (granted)" : "");
		if (init && self && has_floor > 0 && nd->lvl.have_floor)
			printf("  floor: %d", nd->lvl.floor);
		else if (init && self && has_floor > 0)
			printf("  floor: ?");
	} else {
		printf("  level: %s", problem);
	}
	if (!nd->nprocs)
		printf("  processes: none");
	for (k = 0; k < nd->nprocs && k < TEXT_PROCS; k++)
		printf("%s%d (%s)", k ? ", " : "  processes: ",
		       (int)nd->procs[k].pid, nd->procs[k].comm);
	if (nd->nprocs > TEXT_PROCS)
		printf(" and %zu more", nd->nprocs - TEXT_PROCS);
	putchar('\n');

	snprintf(sub, sizeof(sub), "%s%s", prefix,
		 top ? "" : last ? "   " : "|  ");
	for (k = 0; k < nd->nkids; k++)
		print_node(f, nd->kids[k], sub, k + 1 == nd->nkids, false,
			   has_floor);
}

static json_t *json_node(const struct forest *f, long i)
{
	const struct node *nd = &f->nodes[i];
	json_t *o, *procs, *kids, *p, *kid;
	const char *problem;
	char why[160];
	size_t k;

	procs = json_array();
	kids = json_array();
	o = json_object();
	if (!procs || !kids || !o)
		goto bad;
	for (k = 0; k < nd->nprocs && k < JSON_PROCS; k++) {
		p = json_pack("{s:i, s:s}", "pid", (int)nd->procs[k].pid,
			      "comm", nd->procs[k].comm);
		if (!p || json_array_append_new(procs, p))
			goto bad;
	}
	for (k = 0; k < nd->nkids; k++) {
		kid = json_node(f, nd->kids[k]);
		if (!kid || json_array_append_new(kids, kid))
			goto bad;
	}
	problem = level_problem(nd, why, sizeof(why));
	if (json_object_set_new(o, "id", json_integer(nd->ino)) ||
	    json_object_set_new(o, "parent", nd->parent < 0 ? json_null() :
				json_integer(f->nodes[nd->parent].ino)) ||
	    json_object_set_new(o, "owner_uid", nd->have_owner ?
				json_integer(nd->owner) : json_null()) ||
	    json_object_set_new(o, "depth", json_integer(nd->depth)) ||
	    json_object_set_new(o, "initial",
				json_boolean(nd->ino == INIT_USERNS_INO)) ||
	    json_object_set_new(o, "self",
				json_boolean(nd->ino == f->self->ino)) ||
	    json_object_set_new(o, "level", problem ? json_null() :
				json_integer(nd->lvl.level)) ||
	    json_object_set_new(o, "granted", nd->granted < 0 ? json_null() :
				json_boolean(nd->granted > 0)) ||
	    json_object_set_new(o, "level_error", problem ?
				json_string(problem) : json_null()) ||
	    json_object_set_new(o, "floor", !problem && nd->lvl.have_floor ?
				json_integer(nd->lvl.floor) : json_null()) ||
	    json_object_set_new(o, "process_count",
				json_integer(nd->nprocs)) ||
	    json_object_set_new(o, "processes", procs) ||
	    json_object_set_new(o, "children", kids))
		goto bad_o;
	return o;
bad:
	json_decref(procs);
	json_decref(kids);
bad_o:
	json_decref(o);
	return NULL;
}

static int print_json(const struct forest *f, const long *roots,
		      size_t nroots, int per_ns, int has_floor)
{
	json_t *doc = NULL, *arr, *r;
	size_t i;
	int ret;

	arr = json_array();
	for (i = 0; arr && i < nroots; i++) {
		r = json_node(f, roots[i]);
		if (!r || json_array_append_new(arr, r)) {
			json_decref(arr);
			arr = NULL;
		}
	}
	if (arr)
		doc = json_pack("{s:o, s:o, s:i, s:o}",
				"per_namespace", per_ns < 0 ? json_null() :
					json_boolean(per_ns),
				"has_floor", has_floor < 0 ? json_null() :
					json_boolean(has_floor),
				"hidden_processes", (int)f->hidden,
				"namespaces", arr);
	if (!doc) {
		msg("cannot build the JSON document (out of memory?)");
		return EXIT_FAIL;
	}
	ret = json_dumpf(doc, stdout, JSON_INDENT(2));
	json_decref(doc);
	if (ret || putchar('\n') == EOF || fflush(stdout)) {
		msg("cannot write the JSON document");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_tree(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct forest f = { 0 };
	int c, per_ns, ret, has_floor;
	size_t i, nroots = 0;
	bool json = false;
	long *roots;

	optind = 1;
	while ((c = subcmd_getopt("tree", tree_usage, ":jt:h", opts,
				  argc, argv, &ret)) > 0) {
		ret = 0;
		switch (c) {
		case 'j':
			json = true;
			break;
		case 't':
			ret = parse_timeout_arg("tree", optarg);
			break;
		default:
			ret = usage_error("tree", "unknown option");
		}
		if (ret)
			return ret;
	}
	if (!c)
		return ret;
	if (optind < argc)
		return usage_error("tree", "unexpected argument '%s'",
				   argv[optind]);

	f.self = userns_self();
	if (!f.self)
		return EXIT_FAIL;
	chain_limits(&f);
	if (collect_processes(&f))
		return EXIT_FAIL;
	link_parents(&f);

	roots = xrealloc(NULL, (f.n + 1) * sizeof(long));
	for (i = 0; i < f.n; i++)
		if (f.nodes[i].parent < 0)
			roots[nroots++] = i;
	sort_all(&f, roots, nroots);
	for (i = 0; i < nroots; i++)
		set_depths(&f, roots[i], 0);
	read_levels(&f, roots, nroots);
	per_ns = kernel_per_ns(NULL);
	has_floor = kernel_has_floor();

	if (json) {
		ret = print_json(&f, roots, nroots, per_ns, has_floor);
	} else {
		if (!per_ns)
			printf("note: this kernel has no per-namespace perf_event_paranoid: every level is the global one\n");
		if (!has_floor)
			printf("note: this kernel has no kernel.perf_event_paranoid_userns: no floor column\n");
		for (i = 0; i < nroots; i++)
			print_node(&f, roots[i], "", true, true, has_floor);
		if (f.hidden)
			printf("(%u process%s not shown: no access to %s user namespace)\n",
			       f.hidden, f.hidden == 1 ? "" : "es",
			       f.hidden == 1 ? "its" : "their");
		ret = fflush(stdout) ? EXIT_FAIL : EXIT_OK;
	}
	if (f.timeouts)
		msg("%u user namespace%s did not answer within %d s (a process in it may have stopped perfns's child); neither %s level nor its descendants' were read",
		    f.timeouts, f.timeouts == 1 ? "" : "s", op_timeout_s,
		    f.timeouts == 1 ? "its" : "their");
	if (f.unreadable)
		msg("the level of %u user namespace%s could not be read (see the rows marked unknown)",
		    f.unreadable, f.unreadable == 1 ? "" : "s");
	if (f.timeouts || f.unreadable)
		ret = EXIT_FAIL;

	for (i = 0; i < f.n; i++) {
		free(f.nodes[i].procs);
		free(f.nodes[i].kids);
	}
	free(f.nodes);
	free(f.hash);
	free(f.jobs);
	free(roots);
	return ret;
}
