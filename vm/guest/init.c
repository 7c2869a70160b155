// SPDX-License-Identifier: GPL-2.0
/*
 * vm/guest/init.c - PID 1 of the guest that vm/guest/run boots.
 *
 * The guest's root is the host's / over 9p (read-only); this program mounts
 * the usual pseudo filesystems, mounts the host's build directory writable
 * (9p tag "build") at the same path, and runs the one command that vm/guest/run
 * wrote into the job directory:
 *
 *   <job>/argv    the command, NUL-separated
 *   <job>/cwd     its working directory, one line
 *   <job>/env     its environment, NUL-separated KEY=VALUE
 *   <job>/status  written here: "vmrun: exit status N"
 *
 * The job and build paths come from the kernel command line (vmrun.job=,
 * vmrun.build=).  The command's stdout is /dev/ttyS1 and its stderr is
 * /dev/ttyS2, which vm/guest/run connects to its own stdout and stderr; ttyS0 is
 * the kernel console.  When the command exits, the exit status (or 128 +
 * signal) goes to /dev/kmsg and <job>/status, and the guest reboots.
 *
 * Built statically by vm/guest/run:
 *   gcc -static -O2 -Wall -Wextra -o build/vm/init vm/guest/init.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_PATH \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static int out_fd = -1, err_fd = -1;

/*
 * The kernel has no ACPI, so RB_POWER_OFF could only halt the CPUs and QEMU
 * would keep running.  vm/guest/run starts QEMU with -no-reboot, which turns a
 * reboot into QEMU exiting, so rebooting is how the guest ends.
 */
static void __attribute__((noreturn)) finish(void)
{
	sync();
	if (out_fd >= 0)
		tcdrain(out_fd);
	if (err_fd >= 0)
		tcdrain(err_fd);
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

/* One write() per record: dprintf() fails on /dev/kmsg (it cannot lseek). */
static void kmsg(const char *msg)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	char rec[4200];	/* messages are shorter than 4096 */

	if (fd >= 0) {
		write(fd, rec, snprintf(rec, sizeof(rec), "<5>%s\n", msg));
		close(fd);
	}
}

/* A setup error: tell the console and the caller's stderr, then end. */
static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kmsg(msg);
	dprintf(err_fd >= 0 ? err_fd : 2, "%s\n", msg);
	finish();
}

static void do_mount(const char *src, const char *dir, const char *type,
		     unsigned long flags, const char *data, int optional)
{
	if (mount(src, dir, type, flags, data) && !optional)
		die("vm/init: cannot mount %s on %s: %s", type, dir,
		    strerror(errno));
}

/* Read a whole file; *len gets its size.  The result is NUL-terminated. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	size_t size = 0, cap = 4096;
	char *buf = malloc(cap + 1);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf)
		die("vm/init: cannot read %s: %s", path, strerror(errno));
	while ((n = read(fd, buf + size, cap - size)) > 0) {
		size += n;
		if (size < cap)
			continue;
		cap *= 2;
		buf = realloc(buf, cap + 1);
		if (!buf)
			die("vm/init: out of memory");
	}
	if (n < 0)
		die("vm/init: cannot read %s: %s", path, strerror(errno));
	close(fd);
	buf[size] = '\0';
	if (len)
		*len = size;
	return buf;
}

/* Split a NUL-separated list into a NULL-terminated vector with room to add. */
static char **split(char *buf, size_t len, int extra)
{
	char **v = calloc(len + 1 + extra, sizeof(*v));
	size_t i, n = 0;

	if (!v)
		die("vm/init: out of memory");
	for (i = 0; i < len; i += strlen(buf + i) + 1)
		v[n++] = buf + i;
	return v;
}

/* The value of a "key=value" parameter on the kernel command line, or NULL. */
static char *cmdline_param(const char *cmdline, const char *key)
{
	size_t klen = strlen(key);
	const char *p = cmdline;
	char *val;

	while (*p) {
		p += strspn(p, " \n");
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			p += klen + 1;
			val = strndup(p, strcspn(p, " \n"));
			if (!val)
				die("vm/init: out of memory");
			return val;
		}
		p += strcspn(p, " \n");
	}
	return NULL;
}

static void env_default(char **env, const char *var)
{
	size_t n = strchr(var, '=') - var + 1;

	for (; *env; env++)
		if (!strncmp(*env, var, n))
			return;
	*env = (char *)var;
}

static int open_tty(const char *path)
{
	struct termios t;
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		die("vm/init: cannot open %s: %s", path, strerror(errno));
	/* Raw output: no \n -> \r\n, the caller gets the bytes as written. */
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

int main(void)
{
	char *cmdline, *job, *build, *now, *cwd, *buf, **argv, **env;
	char msg[64], path[4096];
	size_t len;
	pid_t pid, child;
	int status, fd;

	do_mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		 NULL, 0);
	do_mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		 NULL, 0);
	do_mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755", 0);
	/* Keep fds 0-2 taken, so that the ttys opened below land above them. */
	do {
		fd = open("/dev/null", O_RDWR);
	} while (fd >= 0 && fd <= 2);
	close(fd);
	err_fd = open_tty("/dev/ttyS2");
	out_fd = open_tty("/dev/ttyS1");
	do_mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777",
		 0);
	do_mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755",
		 0);
	do_mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL, 1);
	/* Where container runtimes look for the cgroup v2 hierarchy. */
	do_mount("cgroup2", "/sys/fs/cgroup", "cgroup2",
		 MS_NOSUID | MS_NODEV | MS_NOEXEC, "nsdelegate", 1);
	mkdir("/dev/pts", 0755);
	do_mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		 "ptmxmode=0666", 1);
	/* devtmpfs has no /dev/fd or /dev/std*: programs write to them. */
	symlink("/proc/self/fd", "/dev/fd");
	symlink("/proc/self/fd/0", "/dev/stdin");
	symlink("/proc/self/fd/1", "/dev/stdout");
	symlink("/proc/self/fd/2", "/dev/stderr");
	mkdir("/dev/shm", 01777);
	do_mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV,
		 "mode=1777", 1);

	cmdline = slurp("/proc", "cmdline", NULL);
	job = cmdline_param(cmdline, "vmrun.job");
	build = cmdline_param(cmdline, "vmrun.build");
	if (!job || !build)
		die("vm/init: no vmrun.job= or vmrun.build= on the kernel command line");
	/* There is no RTC driver: take the host's clock from vm/guest/run. */
	now = cmdline_param(cmdline, "vmrun.time");
	if (now) {
		struct timespec ts = { .tv_sec = strtoll(now, NULL, 10) };

		clock_settime(CLOCK_REALTIME, &ts);
	}
	do_mount("build", build, "9p", 0,
		 "trans=virtio,version=9p2000.L,msize=512000", 0);

	buf = slurp(job, "argv", &len);
	argv = split(buf, len, 0);
	if (!argv[0])
		die("vm/init: %s/argv is empty", job);
	buf = slurp(job, "env", &len);
	env = split(buf, len, 3);
	env_default(env, "PATH=" DEFAULT_PATH);
	env_default(env, "HOME=/root");
	env_default(env, "TERM=dumb");
	cwd = slurp(job, "cwd", NULL);
	cwd[strcspn(cwd, "\n")] = '\0';
	if (chdir(cwd))
		die("vm/guest/run: cannot chdir to %s in the guest: %s", cwd,
		    strerror(errno));

	child = fork();
	if (child < 0)
		die("vm/init: fork: %s", strerror(errno));
	if (child == 0) {
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(out_fd, 1) < 0 ||
		    dup2(err_fd, 2) < 0)
			_exit(127);
		if (fd > 2)
			close(fd);
		setsid();
		environ = env;
		execvp(argv[0], argv);
		dprintf(2, "vm/guest/run: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}

	/* Reap every orphan that is reparented to us until the command ends. */
	while ((pid = wait(&status)) != child)
		if (pid < 0 && errno != EINTR)
			die("vm/init: wait: %s", strerror(errno));
	if (WIFSIGNALED(status))
		status = 128 + WTERMSIG(status);
	else
		status = WEXITSTATUS(status);

	/* Leftover background processes must not hold up the end. */
	kill(-1, SIGKILL);
	snprintf(msg, sizeof(msg), "vmrun: exit status %d", status);
	kmsg(msg);
	snprintf(path, sizeof(path), "%s/status", job);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || dprintf(fd, "%s\n", msg) < 0 || fsync(fd) || close(fd))
		die("vm/init: cannot write %s: %s", path, strerror(errno));
	finish();
}
