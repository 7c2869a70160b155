// SPDX-License-Identifier: GPL-2.0
/*
 * perfprobe - what a container's process sees of perf_event_paranoid.
 *
 * Built statically (it runs in a busybox root file system with no libc)
 * and copied into each container's rootfs by tools/lib/containers.sh.
 *
 *   perfprobe            one line per fact, "key=value":
 *     uid=N              the caller's uid (inside the container)
 *     userns=INODE       the inode of /proc/self/ns/user
 *     level=N            /proc/sys/kernel/perf_event_paranoid as read: the
 *                        level in force in the reader's user namespace
 *     ulevel=N           /proc/sys/user/perf_event_paranoid as read: the
 *                        level in force in the namespace it is opened in
 *     open=RESULT        perf_event_open() of a user-space-only task-clock
 *                        counter on the caller: "opened" or the errno's
 *                        name (EACCES, ...)
 *     lower=RESULT       writing LEVEL-1 into user.perf_event_paranoid,
 *                        the namespace's own level: "written",
 *                        "open:ERRNO" (refused at open) or the write's
 *                        errno's name
 *     klower=RESULT      the same, into kernel.perf_event_paranoid (the
 *                        host's level: refused from any other namespace)
 *     flower=RESULT      the same, into kernel.perf_event_paranoid_userns
 *                        (the host's floor: refused from any other
 *                        namespace)
 *     after=N            kernel.perf_event_paranoid read after those writes
 *     uafter=N           user.perf_event_paranoid read after those writes
 *   perfprobe open       only the perf_event_open() line; exit 0 if opened
 *   perfprobe level      only the level line
 *
 * In the initial user namespace the writes are not tried (lower=skipped:host
 * and so on): run there by mistake as root, they would lower the host's
 * level or floor.
 *
 * Exit status: 0, or 1 when a fact could not be found out at all (the line
 * then says "error:..."), or 2 for a usage error. "open" exits 1 when the
 * event was refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LEVEL_FILE "/proc/sys/kernel/perf_event_paranoid"
#define USER_LEVEL_FILE "/proc/sys/user/perf_event_paranoid"
#define FLOOR_FILE "/proc/sys/kernel/perf_event_paranoid_userns"

/* PROC_USER_INIT_INO: the initial user namespace's inode, fixed. */
#define INIT_USERNS_INO	0xEFFFFFFDUL

static const char *errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "E?";
}

/* The level @path reads, or -1000 - errno when it cannot be read. */
static int read_level(const char *path)
{
	char buf[32];
	ssize_t n;
	char *end;
	long val;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1000 - errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		n = -1000 - errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	val = strtol(buf, &end, 10);
	if (end == buf || (*end && *end != '\n'))
		return -1000 - EINVAL;
	return (int)val;
}

static int print_level(const char *key, const char *path)
{
	int level = read_level(path);

	if (level <= -1000) {
		printf("%s=error:%s\n", key, errname(-1000 - level));
		return 1;
	}
	printf("%s=%d\n", key, level);
	return 0;
}

/* 0 if the event opened, else the errno. */
static int try_open(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int print_open(void)
{
	int err = try_open();

	if (!err) {
		printf("open=opened\n");
		return 0;
	}
	printf("open=%s\n", errname(err));
	return 1;
}

/* Try to write @level into @path, as the container's root would. */
static void print_lower(const char *key, const char *path, int level)
{
	char buf[16];
	int fd, len;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("%s=open:%s\n", key, errname(errno));
		return;
	}
	len = snprintf(buf, sizeof(buf), "%d\n", level);
	if (write(fd, buf, len) == len)
		printf("%s=written\n", key);
	else
		printf("%s=%s\n", key, errname(errno));
	close(fd);
}

int main(int argc, char **argv)
{
	struct stat st;
	int ret = 0, level;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "open"))
		return print_open();
	if (argc == 2 && !strcmp(argv[1], "level"))
		return print_level("level", LEVEL_FILE);
	if (argc != 1) {
		fprintf(stderr, "usage: perfprobe [open | level]\n");
		return 2;
	}

	printf("uid=%d\n", (int)getuid());
	if (stat("/proc/self/ns/user", &st)) {
		printf("userns=error:%s\n", errname(errno));
		st.st_ino = INIT_USERNS_INO;
		ret = 1;
	} else {
		printf("userns=%lu\n", (unsigned long)st.st_ino);
	}
	level = read_level(LEVEL_FILE);
	ret |= print_level("level", LEVEL_FILE);
	ret |= print_level("ulevel", USER_LEVEL_FILE);
	print_open();
	if (st.st_ino == INIT_USERNS_INO) {
		printf("lower=skipped:host\nklower=skipped:host\n"
		       "flower=skipped:host\n");
	} else if (level > -1000) {
		print_lower("lower", USER_LEVEL_FILE, level - 1);
		print_lower("klower", LEVEL_FILE, level - 1);
		print_lower("flower", FLOOR_FILE, level - 1);
		ret |= print_level("after", LEVEL_FILE);
		ret |= print_level("uafter", USER_LEVEL_FILE);
	} else {
		printf("lower=error:no level\n");
		ret = 1;
	}
	return ret;
}
