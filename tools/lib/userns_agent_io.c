// SPDX-License-Identifier: GPL-2.0
/*
 * userns_agent_io.c - what the agents of userns_agent.c are built on and
 * what programs without agents use of the library: descriptors over unix
 * sockets, files written and read in one go, a user namespace with the
 * caller mapped to root, and the last error's message (see userns_agent.h).
 *
 * Apart from userns_agent.c so that a static program that uses only these
 * (vm/bench's paranoid-bench) does not pull in libcap-ng.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "userns_agent.h"

static char last_error[256];

const char *agent_error(void)
{
	return last_error;
}

int agent_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return err;
}

/* --- files ------------------------------------------------------------ */

int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n == (ssize_t)strlen(s) ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	return err;
}

ssize_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < size - 1 &&
	       (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd);
	return got;
}

int fd_read_int(int fd, int *v)
{
	char buf[32], *end;
	ssize_t n;
	long l;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	errno = 0;
	l = strtol(buf, &end, 10);
	if (errno || end == buf || strcmp(end, "\n") || l < INT_MIN ||
	    l > INT_MAX)
		return -EBADMSG;
	*v = l;
	return 0;
}

int read_int(const char *path, int *v)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	err = fd_read_int(fd, v);
	close(fd);
	return err;
}

int write_int(const char *path, int v)
{
	char s[16];

	snprintf(s, sizeof(s), "%d", v);
	return write_file(path, s);
}

int fd_write_str(int fd, const char *s)
{
	ssize_t n = pwrite(fd, s, strlen(s), 0);

	if (n < 0)
		return -errno;
	return (size_t)n == strlen(s) ? 0 : -EIO;
}

int unshare_mapped(void)
{
	char umap[32], gmap[32];
	int err;

	snprintf(umap, sizeof(umap), "0 %u 1", geteuid());
	snprintf(gmap, sizeof(gmap), "0 %u 1", getegid());
	if (unshare(CLONE_NEWUSER))
		return agent_fail(-errno, "unshare(CLONE_NEWUSER): %m");
	err = write_file("/proc/self/setgroups", "deny");
	if (!err)
		err = write_file("/proc/self/uid_map", umap);
	if (!err)
		err = write_file("/proc/self/gid_map", gmap);
	if (err)
		return agent_fail(err, "mapping root to uid %s: %s",
				  umap + 2, strerror(-err));
	return 0;
}

/* --- messages --------------------------------------------------------- */

int send_msg(int sock, const void *buf, size_t len, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;
	ssize_t n;

	if (fd >= 0) {
		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	do {
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EMSGSIZE;
}

ssize_t recv_msg(int sock, void *buf, size_t len, int *fd, int timeout_ms)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	struct cmsghdr *cmsg;
	ssize_t n;
	int r;

	if (fd)
		*fd = -1;
	if (timeout_ms >= 0) {
		do {
			r = poll(&pfd, 1, timeout_ms);
		} while (r < 0 && errno == EINTR);
		if (r < 0)
			return -errno;
		if (!r)
			return -ETIMEDOUT;
	}
	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg))
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_RIGHTS) {
			if (fd)
				memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
			else
				close(*(int *)CMSG_DATA(cmsg));
		}
	return n;
}

int send_fd(int sock, int fd)
{
	return send_msg(sock, "x", 1, fd);
}

int recv_fd(int sock, int timeout_ms)
{
	ssize_t n;
	char c;
	int fd;

	n = recv_msg(sock, &c, 1, &fd, timeout_ms);
	if (n < 0)
		return n;
	if (fd < 0)
		return n ? -EBADMSG : -EPIPE;
	return fd;
}
