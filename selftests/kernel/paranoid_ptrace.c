// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_ptrace - what level 3 does not cover: hardware breakpoints set
 * through ptrace.
 *
 * Level 3 (perf_event_paranoid > 2, Debian's hardening) is checked in the
 * perf_event_open() system call: perf_paranoid_any() refuses every caller
 * without CAP_PERFMON in the initial namespace with EACCES, before any event
 * is made. A tracer that writes its tracee's debug registers with
 * PTRACE_POKEUSER at offsetof(struct user, u_debugreg) never calls
 * perf_event_open(): arch/x86/kernel/ptrace.c makes the event itself,
 * ptrace_register_breakpoint() -> register_user_hw_breakpoint() ->
 * perf_event_create_kernel_counter(), a user-only (exclude_kernel)
 * breakpoint event on the tracee, and none of perf_event_open()'s checks
 * run. What guards that path is ptrace's own access check, not the level;
 * so it was before the series, in the initial namespace, and so it is with
 * a level per user namespace. The documents say so (docs/design.md,
 * perf-security.rst); this test pins today's behaviour so that a change of
 * it is seen: at level 3, on the host and in a rootless container, the same
 * task that perf_event_open() refuses a breakpoint event can set one on its
 * own child through the debug registers, and it fires; only a kernel
 * address is refused (EINVAL: the events are user only).
 *
 * Each case first shows that at level 2 perf_event_open() gives the same
 * task a working breakpoint event (so that EACCES at 3 is the level's
 * doing, and the guest's CPU has working debug registers).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define DR_OFFSET(n)	offsetof(struct user, u_debugreg[n])
#define DR7_L0		0x1UL	/* local enable of DR0; RW0 = LEN0 = 0: exec */
#define DR6_B0		0x1UL	/* DR0's condition was met */
/* In the kernel's half of the address space (above TASK_SIZE_MAX). */
#define KERNEL_ADDR	0xffffffff81000000UL

/* A user not root on the host, with no capabilities. */
#define HOST_USER	((struct who){ .uid = 1000, .caps = 0 })

/* The breakpoint's address: a function the tracee calls once. */
static void __attribute__((noinline)) bp_target(void)
{
	__asm__ volatile("" ::: "memory");
}

/*
 * perf_event_open() of an execution breakpoint on bp_target, user only, on
 * the caller: 0 with the count after one call in val[0], or -errno.
 */
static int fn_perf_breakpoint(const void *arg, int in_fd, struct out *out)
{
	struct perf_event_attr attr;
	uint64_t count = 0;
	int fd;

	(void)arg;
	(void)in_fd;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = (unsigned long)bp_target;
	attr.bp_len = sizeof(long);
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	bp_target();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = -1;
	close(fd);
	out->val[0] = count;
	return 0;
}

static long poke_dr(pid_t pid, int n, unsigned long v)
{
	return ptrace(PTRACE_POKEUSER, pid, DR_OFFSET(n), v) ? -errno : 0;
}

static long peek_dr(pid_t pid, int n)
{
	long v;

	errno = 0;
	v = ptrace(PTRACE_PEEKUSER, pid, DR_OFFSET(n), 0);
	return errno ? -errno : v;
}

static void kill_wait(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * A tracer and its own child (PTRACE_TRACEME): DR0 = *@arg (0: bp_target)
 * and DR7 = L0 through PTRACE_POKEUSER, then the child runs into
 * bp_target. Returns what writing DR0 returned (0 or -errno; when it
 * failed, nothing more is done); val[0] what writing DR7 returned, val[1]
 * DR7 read back, val[2] the signal the child stopped with after
 * PTRACE_CONT (0 if it ran to its end), val[3] DR6 then.
 */
static int fn_ptrace_breakpoint(const void *arg, int in_fd, struct out *out)
{
	unsigned long addr = *(const unsigned long *)arg;
	long dr0, ret = -1;
	int st;
	pid_t pid;

	(void)in_fd;
	/* Agents ignore SIGCHLD; this call waits for its child. */
	signal(SIGCHLD, SIG_DFL);
	pid = fork();
	if (pid < 0)
		return -ENOTRECOVERABLE;
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(10);
		raise(SIGSTOP);
		bp_target();
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    WSTOPSIG(st) != SIGSTOP) {
		snprintf(out->msg, sizeof(out->msg),
			 "the tracee did not stop (status %#x)", st);
		kill_wait(pid);
		return -ENOTRECOVERABLE;
	}
	dr0 = poke_dr(pid, 0, addr ?: (unsigned long)bp_target);
	if (dr0) {
		kill_wait(pid);
		return dr0;
	}
	out->val[0] = poke_dr(pid, 7, DR7_L0);
	out->val[1] = peek_dr(pid, 7);
	out->val[2] = -1;
	out->val[3] = -1;
	if (!ptrace(PTRACE_CONT, pid, 0, 0) && waitpid(pid, &st, 0) == pid) {
		if (WIFSTOPPED(st)) {
			out->val[2] = WSTOPSIG(st);
			out->val[3] = peek_dr(pid, 6);
			poke_dr(pid, 7, 0);
			if (!ptrace(PTRACE_CONT, pid, 0, 0) &&
			    waitpid(pid, &st, 0) == pid)
				ret = st;
		} else {
			out->val[2] = 0;
			ret = st;
		}
	}
	if (ret < 0 || !WIFEXITED(ret) || WEXITSTATUS(ret)) {
		snprintf(out->msg, sizeof(out->msg),
			 "the tracee did not exit normally (status %#lx)",
			 ret);
		kill_wait(pid);
		return -ENOTRECOVERABLE;
	}
	return dr0;
}

/* At level 2, perf_event_open() gives @w a breakpoint that counts. */
static void assert_perf_breakpoint_works(struct agent *a, struct who w)
{
	struct out out;

	assert_ret(call_as(a, w, fn_perf_breakpoint, NULL, 0, -1, &out), 0);
	assert_ret(out.val[0], 1);
}

/*
 * At level 3: perf_event_open() refuses @w the same event (@perf_want:
 * EACCES, or 0 where the level set does not count as 3), but through its
 * own child's debug registers @w sets the breakpoint, reads it back, and
 * the child stops with SIGTRAP at it, DR6 saying DR0 fired.
 */
static void assert_level_3_leaves_ptrace_breakpoints(struct agent *a,
						     struct who w,
						     int perf_want)
{
	struct out out;
	int perf, dr0;

	unsigned long addr = 0;

	perf = call_as(a, w, fn_perf_breakpoint, NULL, 0, -1, &out);
	dr0 = call_as(a, w, fn_ptrace_breakpoint, &addr, sizeof(addr), -1,
		      &out);
	diag("level 3: perf_event_open(breakpoint) %s; POKEUSER DR0 %s, "
	     "DR7 %s, DR7 reads %#lx, the child stopped with SIG%s, "
	     "DR6 %#lx", ret_str(perf), ret_str(dr0), ret_str(out.val[0]),
	     out.val[1], out.val[2] > 0 ? sigabbrev_np(out.val[2]) : "(none)",
	     out.val[3]);
	assert_ret(perf, perf_want);
	assert_ret(dr0, 0);
	assert_ret(out.val[0], 0);		/* DR7 written */
	assert_ret(out.val[1], DR7_L0);		/* and reads back */
	assert_ret(out.val[2], SIGTRAP);	/* the breakpoint fired */
	assert_true(out.val[3] >= 0 && (out.val[3] & DR6_B0));

	/* The events are user only: a kernel address is refused. */
	addr = KERNEL_ADDR;
	assert_ret(call_as(a, w, fn_ptrace_breakpoint, &addr, sizeof(addr),
			   -1, &out), -EINVAL);
}

/* A rootless container locked at 3, the host at 2. */
static void container_at_3_tracer_sets_hw_breakpoint(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());

	assert_perf_breakpoint_works(c, AS_ROOT);
	set_level(c, 3);
	assert_level_3_leaves_ptrace_breakpoints(c, AS_ROOT, -EACCES);
	assert_level(c, 3);
	assert_ret(host_level(), 2);
}

/*
 * The host itself at 3 (Debian's default), an ordinary user tracing. Where
 * the host's level counts for 2 at most (host_reach_max(), mainline's 3),
 * perf_event_open() gives the breakpoint as at 2, and ptrace still does.
 */
static void host_at_3_tracer_sets_hw_breakpoint(void **state)
{
	int perf_want;

	(void)state;
	assert_perf_breakpoint_works(NULL, HOST_USER);
	set_host_level(3);
	perf_want = host_reach_max() == 3 ? -EACCES : 0;
	assert_level_3_leaves_ptrace_breakpoints(NULL, HOST_USER, perf_want);
	/* The fixture restores 2 and checks it. */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(container_at_3_tracer_sets_hw_breakpoint),
		TEST(host_at_3_tracer_sets_hw_breakpoint),
	};

	return RUN_TESTS("paranoid_ptrace", tests);
}
