// SPDX-License-Identifier: GPL-2.0
/*
 * Finding every user namespace for perfns tree: from the pidfd of every
 * process the caller may inspect, and from their parents (NS_GET_PARENT) up
 * to the top of what the caller may see, so that namespaces without
 * processes of their own show up too. Each is known by its inode number in
 * a hash table, with the way to reach it again (a process and how many
 * levels above that process's namespace it is), so that no descriptor is
 * kept per namespace.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "tree.h"

#define PF_KTHREAD	0x00200000	/* in /proc/PID/stat's flags */
#define MAX_HOPS	40	/* deeper than the kernel's 32 levels */

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

/* What the kernel says of the levels of @nd, on its descriptor @fd. */
void node_perf_get(struct node *nd, int fd)
{
	struct userns ns = { .fd = fd };

	nd->perf_err = -userns_perf_get(&ns, &nd->perf);
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
	node_perf_get(nd, fd);
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
static bool proc_stat_is_kthread(pid_t pid, char *comm, size_t len)
{
	char path[64], buf[512], *open_p, *p, *end;
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
	if (!p)
		return false;
	flags = strtoul(p, &end, 10);
	if (end == p)
		return false;
	return flags & PF_KTHREAD;
}

/* Says why the listing stopped at process @pid; returns -1. */
static int listing_failed(const char *what, pid_t pid, int err)
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
		       listing_failed("pidfd_open", pid, errno);
	/* By number, but checked with the pidfd below: this process's. */
	if (proc_stat_is_kthread(pid, comm, sizeof(comm))) {
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
		return listing_failed("its user namespace", pid, -fd);
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
		return listing_failed("fstat of its user namespace", pid,
				      errno);
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
			return listing_failed("NS_GET_PARENT", pid, errno);
		}
		close(fd);
		fd = parent;
		hops++;
		if (fstat(fd, &st)) {
			close(fd);
			return listing_failed("fstat of a parent namespace",
					      pid, errno);
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

/*
 * Every process in /proc, with its namespace and their ancestors: 0, or -1
 * after a message (the tree would be incomplete).
 */
int collect_processes(struct forest *f)
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
void link_parents(struct forest *f)
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

/* Node @i is at @depth, its children one further, and so on down. */
void set_depths(struct forest *f, long i, int depth)
{
	size_t k;

	f->nodes[i].depth = depth;
	for (k = 0; k < f->nodes[i].nkids; k++)
		set_depths(f, f->nodes[i].kids[k], depth + 1);
}
