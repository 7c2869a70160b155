// SPDX-License-Identifier: GPL-2.0
/*
 * tenant - what a hostile tenant does to perfns, for
 * selftests/perfns/perfns-suite. Runs in the QEMU guest only (the tests'
 * guard), as root.
 *
 *   tenant racer SECONDS [MODE]
 *	Make a user namespace owned by root with uid and gid 0 mapped to
 *	100000 (as rootful runtimes do), become its root (CAP_SYS_PTRACE and
 *	CAP_KILL there, host uid 100000) in the host's pid and mount
 *	namespaces, print "ready INO PID", and for SECONDS (or until
 *	SIGUSR1) race over the pids
 *	about to be used: PTRACE_SEIZE each one, and SIGSTOP (MODE stop,
 *	default) or SIGKILL (MODE kill) each one it may signal; on each it
 *	got, try /proc/PID/mem, /proc/PID/fd/3 and /proc/PID/environ. Prints
 *	"tries N seize_ok N signalled N leaks N" and waits to be killed.
 *   tenant name HEX
 *	Set its own name to the bytes HEX (PR_SET_NAME), print "ready", wait.
 *   tenant farm NPROC DEPTH
 *	Start NPROC processes, each at the bottom of a chain of DEPTH user
 *	namespaces of its own; print every namespace's inode number, then
 *	"ready", and wait (all of them die with it). On SIGUSR1 each process
 *	reads its namespace's own /proc/sys/user/perf_event_paranoid, and
 *	prints "read LEVEL" (or "read -" when it cannot).
 *   tenant spawn-at PID CMD [ARG...]
 *	Run CMD as process PID (clone3 set_tid): a pid reused on purpose.
 *   tenant no-pidfd-ns CMD [ARG...]
 *	Run CMD under a seccomp filter that fails ioctl
 *	PIDFD_GET_USER_NAMESPACE with ENOTTY, as kernels before 6.11 do.
 *   tenant ioctl-errno REQUEST ERRNO CMD [ARG...]
 *	Run CMD under a seccomp filter that fails ioctl REQUEST (a number)
 *	with the errno number ERRNO, as a kernel that answers so would.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PIDFD_GET_USER_NAMESPACE	_IO(0xFF, 9)
#define TENANT_ID	100000
#define WINDOW		8	/* pids tried ahead of the newest seen */

static void die(const char *what)
{
	fprintf(stderr, "tenant: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int write_file(const char *path, const char *text)
{
	ssize_t len = strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write(fd, text, len) != len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static unsigned long self_ino(void)
{
	struct stat st;

	if (stat("/proc/self/ns/user", &st))
		die("stat /proc/self/ns/user");
	return st.st_ino;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Could the tenant read what it must not? */
static int try_leaks(pid_t pid)
{
	static const char *const files[] = { "mem", "fd/3", "environ" };
	char path[64];
	size_t i;
	int fd, leaks = 0;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, files[i]);
		fd = open(path, i == 1 ? O_WRONLY : O_RDONLY);
		if (fd >= 0) {
			printf("leak %s\n", path);
			leaks++;
			close(fd);
		}
	}
	return leaks;
}

static volatile sig_atomic_t stop;

static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

static void race(int seconds, int sig)
{
	long long end = now_ms() + seconds * 1000LL;
	unsigned long tries = 0, seize_ok = 0, signalled = 0, leaks = 0;
	pid_t me = getpid(), newest = me, p;

	while (!stop && now_ms() < end) {
		for (p = newest - 2; p < newest + WINDOW; p++) {
			if (p <= 1 || p == me)
				continue;
			tries++;
			if (!ptrace(PTRACE_SEIZE, p, 0, 0)) {
				seize_ok++;
				printf("seized %d\n", (int)p);
				ptrace(PTRACE_DETACH, p, 0, 0);
			}
			if (!kill(p, sig)) {
				signalled++;
				leaks += try_leaks(p);
			}
			if (p > newest && (!kill(p, 0) || errno == EPERM))
				newest = p;
		}
	}
	printf("tries %lu seize_ok %lu signalled %lu leaks %lu\n", tries,
	       seize_ok, signalled, leaks);
	fflush(stdout);
}

static int cmd_racer(int argc, char **argv)
{
	int seconds, sig = SIGSTOP, go[2], ready[2];
	char path[64], map[64], c;
	pid_t pid;

	if (argc < 3)
		return 2;
	seconds = atoi(argv[2]);
	if (argc > 3 && !strcmp(argv[3], "kill"))
		sig = SIGKILL;
	if (pipe(go) || pipe(ready))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (unshare(CLONE_NEWUSER))
			die("unshare");
		if (write(ready[1], "x", 1) != 1 || read(go[0], &c, 1) != 1)
			die("sync");
		if (setresgid(0, 0, 0) || setresuid(0, 0, 0))
			die("setresuid");
		signal(SIGUSR1, on_usr1);
		printf("ready %lu %d\n", self_ino(), (int)getpid());
		fflush(stdout);
		race(seconds, sig);
		/* Stay, unmolesting, so that the namespace can be read. */
		for (;;)
			pause();
	}
	if (read(ready[0], &c, 1) != 1)
		die("sync");
	snprintf(map, sizeof(map), "0 %d 65536", TENANT_ID);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	if (write_file(path, map))
		die("uid_map");
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	if (write_file(path, map))
		die("gid_map");
	if (write(go[1], "x", 1) != 1)
		die("sync");
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int cmd_name(int argc, char **argv)
{
	char name[17] = { 0 };
	size_t i, n;

	if (argc < 3 || strlen(argv[2]) % 2 || strlen(argv[2]) > 30)
		return 2;
	n = strlen(argv[2]) / 2;
	for (i = 0; i < n; i++) {
		int hi = hexval(argv[2][2 * i]), lo = hexval(argv[2][2 * i + 1]);

		if (hi < 0 || lo < 0)
			return 2;
		name[i] = (char)(hi << 4 | lo);
	}
	if (prctl(PR_SET_NAME, name))
		die("PR_SET_NAME");
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

/* A user namespace below this process's, with its own ids mapped to 0. */
static void unshare_mapped(void)
{
	if (unshare(CLONE_NEWUSER) ||
	    write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", "0 0 1") ||
	    write_file("/proc/self/gid_map", "0 0 1"))
		die("unshare a mapped user namespace");
}

static volatile sig_atomic_t read_user_copy;

static void on_usr1_read(int sig)
{
	(void)sig;
	read_user_copy = 1;
}

/* A farm process's own namespace's user.perf_event_paranoid, as asked. */
static void farm_wait(void)
{
	char buf[32], line[48];
	sigset_t usr1, old;
	ssize_t n;
	int fd;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	for (;;) {
		while (!read_user_copy)
			sigsuspend(&old);
		read_user_copy = 0;
		fd = open("/proc/sys/user/perf_event_paranoid",
			  O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n > 0 && buf[n - 1] == '\n')
			n--;
		buf[n > 0 ? n : 0] = '\0';
		snprintf(line, sizeof(line), "read %s\n", n > 0 ? buf : "-");
		if (write(1, line, strlen(line)) < 0)
			_exit(1);
	}
}

static int cmd_farm(int argc, char **argv)
{
	int nproc, depth, i, d, p[2];
	char line[32];
	pid_t parent = getpid();
	FILE *in;

	if (argc < 4)
		return 2;
	nproc = atoi(argv[2]);
	depth = atoi(argv[3]);
	if (nproc < 1 || depth < 1 || depth > 32)
		return 2;
	if (pipe(p))
		die("pipe");
	for (i = 0; i < nproc; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid)
			continue;
		close(p[0]);
		signal(SIGUSR1, on_usr1_read);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
		for (d = 0; d < depth; d++) {
			unshare_mapped();
			snprintf(line, sizeof(line), "%lu\n", self_ino());
			if (write(p[1], line, strlen(line)) < 0)
				_exit(1);
		}
		close(p[1]);
		farm_wait();
	}
	close(p[1]);
	in = fdopen(p[0], "r");
	while (fgets(line, sizeof(line), in))
		fputs(line, stdout);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

static int cmd_spawn_at(int argc, char **argv)
{
	struct clone_args args = { 0 };
	pid_t tid, pid;
	int status;

	if (argc < 4)
		return 2;
	tid = atoi(argv[2]);
	args.set_tid = (uintptr_t)&tid;
	args.set_tid_size = 1;
	args.exit_signal = SIGCHLD;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid < 0)
		die("clone3 with set_tid");
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		die("exec");
	}
	printf("%d\n", (int)pid);
	fflush(stdout);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Exec @argv under a seccomp filter that fails ioctl @request with @err. */
static int exec_failing_ioctl(unsigned int request, unsigned int err,
			      char **argv)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, request, 0, 1),
		BPF_STMT(BPF_RET | BPF_K,
			 SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(insns) / sizeof(insns[0]),
		.filter = insns,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		die("seccomp");
	execvp(argv[0], argv);
	die("exec");
	return 1;
}

static int cmd_no_pidfd_ns(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	return exec_failing_ioctl(PIDFD_GET_USER_NAMESPACE, ENOTTY, argv + 2);
}

static int cmd_ioctl_errno(int argc, char **argv)
{
	unsigned long request, err;
	char *end, *end2;

	if (argc < 5)
		return 2;
	errno = 0;
	request = strtoul(argv[2], &end, 0);
	err = strtoul(argv[3], &end2, 0);
	if (errno || *end || *end2 || end == argv[2] || end2 == argv[3] ||
	    request > 0xffffffffUL || !err || err > 4095)
		return 2;
	return exec_failing_ioctl(request, err, argv + 4);
}

int main(int argc, char **argv)
{
	int ret = 2;

	if (argc >= 2 && !strcmp(argv[1], "racer"))
		ret = cmd_racer(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "name"))
		ret = cmd_name(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "farm"))
		ret = cmd_farm(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "spawn-at"))
		ret = cmd_spawn_at(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "no-pidfd-ns"))
		ret = cmd_no_pidfd_ns(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "ioctl-errno"))
		ret = cmd_ioctl_errno(argc, argv);
	if (ret == 2)
		fprintf(stderr, "usage: see the comment at the top of tenant.c\n");
	return ret;
}
