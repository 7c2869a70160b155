// SPDX-License-Identifier: GPL-2.0
/*
 * Reading and writing the level and the floor in the user namespace this
 * process is in, and telling which of the files the kernel has.
 *
 * /proc/sys/kernel/perf_event_paranoid is one file for the whole system:
 * read from a user namespace other than the initial one it shows the level
 * in force in the reader's namespace with the host's level in it as
 * written, and in the initial one it reads and writes the host's level as
 * on a kernel without the series. A namespace other than the initial one is
 * raised through its own copy of /proc/sys/user/perf_event_paranoid
 * (user.perf_event_paranoid). The floor, kernel.perf_event_paranoid_userns,
 * is the host's only.
 *
 * Levels are read through the global kernel/ file, never through the
 * namespace's user/ copy: every namespace's copy is an entry of its own in
 * the dcache, which a walk over thousands of namespaces would leave behind.
 * Where the host's level counts for less than it reads (above 2 on the
 * series' mainline form), the file is not the level in force: callers take
 * that from NS_PERF_PARANOID_GET (userns_level_in_force()), and the value
 * read here only on a kernel without the ioctl.
 *
 * Whether the kernel has the series at all is told by the presence of
 * /proc/sys/user/perf_event_paranoid; without it nothing is ever written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfns.h"

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
 * @initial: read the level there, write the level, read and write the
 * floor. The level is read through the global kernel/ file, which shows
 * the reader's level (the host's as written in the initial namespace, and
 * counted in as written elsewhere: see the top of this file); it is
 * written through the namespace's own user/ copy, or in the initial
 * namespace through kernel/. Callers ask for the floor in the initial
 * namespace only, and for a write only after kernel_per_ns() said that the
 * kernel has the series.
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
		if (res->stage == LVL_OK) {
			res->on_floor = false;
			res->write = false;
		}
	}
out:
	if (ffd >= 0)
		close(ffd);
	close(rfd);
	return res->stage == LVL_OK ? 0 : -1;
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
