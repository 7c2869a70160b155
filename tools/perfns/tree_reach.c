// SPDX-License-Identifier: GPL-2.0
/*
 * Reaching a namespace of perfns tree again, by the way it was found (a
 * process and how many levels up), else through its other processes or its
 * children, each checked against the inode number; and opening a chain of
 * namespaces for a child to enter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "tree.h"

/* Processes tried to reach a namespace again */
#define TRY_PROCS	8

/* The namespace @hops above @pid's, if it is still @ino; or -errno. */
static int reopen_from_pid(const struct forest *f, pid_t pid, int hops,
			   ino_t ino)
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
static int reopen_node(const struct forest *f, long i)
{
	const struct node *nd = &f->nodes[i];
	int fd, parent;
	struct stat st;
	size_t k;

	fd = reopen_from_pid(f, nd->rep_pid, nd->rep_hops, nd->ino);
	if (fd != -ESRCH)
		return fd;
	for (k = 0; k < nd->nprocs && k < TRY_PROCS; k++) {
		fd = reopen_from_pid(f, nd->procs[k].pid, 0, nd->ino);
		if (fd != -ESRCH)
			return fd;
	}
	for (k = 0; k < nd->nkids; k++) {
		fd = reopen_node(f, nd->kids[k]);
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
 * Descriptors for the chain @chain[0..n-1] (each the parent of the next):
 * the deepest reached again, the others by NS_GET_PARENT from it, checked
 * against the inode numbers. Returns how many were opened from the top
 * (fewer than @n when one could not be reached: *err says why).
 */
int open_chain(const struct forest *f, const long *chain, int n, int *fds,
	       int *err)
{
	struct stat st;
	int k, m, fd;

	fd = reopen_node(f, chain[n - 1]);
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
		fds[k] = reopen_node(f, chain[k]);
		if (fds[k] < 0) {
			*err = -fds[k];
			return k;
		}
	}
	return n;
}
