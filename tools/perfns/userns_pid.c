// SPDX-License-Identifier: GPL-2.0
/*
 * The user namespace of a process, taken from its pidfd
 * (PIDFD_GET_USER_NAMESPACE, or /proc checked against the pidfd on kernels
 * before 6.11), never from a pid number alone; and the container a --pid
 * names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "perfns.h"

#ifndef PIDFD_GET_USER_NAMESPACE
#define PIDFD_GET_USER_NAMESPACE	_IO(0xFF, 9)	/* Linux 6.11 */
#endif

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

/*
 * The namespace that --pid @pid names for @cmd (set, grant): the container
 * @pid is in, i.e. the user namespace directly below @self on the way up
 * from @pid's own, or with @exact @pid's own. Filled into @target with a
 * name for messages and a description for the line printed (@what).
 */
int userns_container_of(const char *cmd, pid_t pid, bool exact,
			const struct userns *self, struct userns *target,
			char *what, size_t len)
{
	struct userns proc_ns = { .fd = -1 }, below = { .fd = -1 };
	int depth, ret;

	ret = userns_of_pid(pid, &proc_ns);
	if (ret)
		return ret;
	depth = userns_depth_below(&proc_ns, self, exact ? NULL : &below);
	if (depth == 0) {
		msg("pid %d is in your own user namespace (%lu); refusing to change it through --pid%s",
		    (int)pid, (unsigned long)self->ino,
		    strcmp(cmd, "set") ? "" :
		    " (run 'perfns set' without --pid to change your own)");
		goto fail;
	}
	if (depth == -EPERM) {
		msg("the user namespace of pid %d (%lu) is not below yours (%lu); refusing",
		    (int)pid, (unsigned long)proc_ns.ino,
		    (unsigned long)self->ino);
		goto fail;
	}
	if (depth < 0) {
		msg("cannot walk up from the user namespace of pid %d (%lu) to yours: %s",
		    (int)pid, (unsigned long)proc_ns.ino, strerror(-depth));
		goto fail;
	}
	if (depth == 1 || exact) {
		*target = proc_ns;
		userns_close(&below);
		snprintf(what, len,
			 "user namespace %lu, pid %d's own, %s%s",
			 (unsigned long)proc_ns.ino, (int)pid,
			 depth == 1 ? "directly below yours" :
			 "nested below yours",
			 depth == 1 ? "" : " (--exact)");
		return 0;
	}
	*target = below;
	snprintf(target->name, sizeof(target->name),
		 "user namespace %lu (the container of pid %d)",
		 (unsigned long)below.ino, (int)pid);
	snprintf(what, len,
		 "user namespace %lu, the container of pid %d: directly below yours, pid %d's own %lu is nested %d levels below yours",
		 (unsigned long)below.ino, (int)pid, (int)pid,
		 (unsigned long)proc_ns.ino, depth);
	userns_close(&proc_ns);
	return 0;
fail:
	userns_close(&proc_ns);
	userns_close(&below);
	return EXIT_FAIL;
}
