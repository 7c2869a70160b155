// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_perf - perf_event_open() applies the level of the caller's user
 * namespace, and only capabilities in the initial namespace exempt from it
 * (contract points 8 and 9).
 *
 * The guest has no hardware PMU: the events are software ones (task-clock,
 * cpu-clock) and the sched:sched_switch tracepoint. Every event that opens
 * must also count (see fn_perf_open() in harness.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>
#include <linux/capability.h>

#include "harness.h"

static const struct perf_req user_only = { .kind = PERF_TASK };
static const struct perf_req with_kernel = { .kind = PERF_TASK,
					     .kernel = true };
static const struct perf_req cpu_wide = { .kind = PERF_CPU };

#define ONLY(cap)	((struct who){ .uid = NOBODY, .caps = CAP_BIT(cap) })

/*
 * What a user-only event gets where nothing but the host's level 3 applies:
 * EACCES where the host counts as it is, else it opens as at 2.
 */
static int at_host_3(void)
{
	return host_reach_max() == 3 ? -EACCES : 0;
}

/* Full capabilities as the kernel reports them in the namespace. */
static int fn_caps(const void *arg, int in_fd, struct out *out)
{
	(void)arg;
	(void)in_fd;
	out->val[0] = proc_caps("CapEff");
	out->val[1] = proc_caps("CapBnd");
	return getuid();
}

static void assert_all_caps(struct agent *a)
{
	struct out out;

	assert_ret(call(a, fn_caps, NULL, 0, &out), 0);
	assert_true(out.val[0] != 0);
	assert_true(out.val[0] & CAP_BIT(CAP_SYS_ADMIN));
	assert_true(out.val[0] & CAP_BIT(CAP_PERFMON));
	assert_true(out.val[0] == out.val[1]);
}

/*
 * The picture of the series: the host at 2, a container raised to 3. An
 * unprivileged host user opens a user-only event; the container's root,
 * with every capability in its namespace, gets EACCES.
 */
static void container_root_refused_while_host_user_counts(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());

	assert_ret(write_level(c, "3"), 0);
	assert_level(c, 3);
	assert_ret(host_level(), 2);
	assert_all_caps(c);
	assert_ret(perf_open_as(NULL, AS_NOBODY, &user_only), 0);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(c, AS_NOBODY, &user_only), -EACCES);
}

/* Control: at 2 the container's root and users open user-only events. */
static void container_at_2_opens_user_only_events(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());

	assert_level(c, 2);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(c, AS_NOBODY, &user_only), 0);
}

/* Rule 9: a nested namespace's fresh capabilities do not escape. */
static void nested_ns_root_cannot_escape_container_level(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct agent *n;

	set_level(c, 3);
	n = fixture_add(f, nested_new(c));
	assert_all_caps(n);
	assert_level(n, 3);
	assert_ret(perf_open_as(n, AS_ROOT, &user_only), -EACCES);
	/* Even a namespace nested in one locked after it was made. */
	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	assert_ret(perf_open_as(n, AS_ROOT, &user_only), 0);
	set_level(c, 3);
	assert_level(n, 3);
	assert_ret(perf_open_as(n, AS_ROOT, &user_only), -EACCES);
}

/* Rules 3, 8: a container locked at 3 stays locked with the host at -1. */
static void container_at_3_stays_refused_when_host_at_minus_1(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());

	set_level(c, 3);
	set_host_level(-1);
	assert_ret(perf_open_as(NULL, AS_NOBODY, &with_kernel), 0);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), -EACCES);
}

/*
 * Rule 8: a container following the host up to 3 is refused too, where the
 * host's level counts as it is; where it counts for 2 at most the
 * container is at 2 (user.perf_event_paranoid shows 2, while
 * kernel.perf_event_paranoid shows the host's 3) and opens user-space
 * events, not kernel ones.
 */
static void container_refused_when_host_raised_to_3(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());

	assert_ret(perf_open_as(c, AS_ROOT, &user_only), 0);
	set_host_level(3);
	assert_ret(read_path_as(c, AS_ROOT, USER_PATH), host_reach_max());
	assert_ret(read_path_as(c, AS_ROOT, PARANOID_PATH), 3);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), at_host_3());
	assert_ret(perf_open_as(c, AS_ROOT, &with_kernel), -EACCES);
	set_host_level(2);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), 0);
}

/*
 * Rules 2, 8: a container made while the host was at 3, which never wrote
 * its level, refused there (where the host's 3 counts as it is), follows
 * the host down to 2 and opens a user-space event; one made beside it that
 * wrote 3 stays refused, and so does one nested in it.
 */
static void container_made_at_3_follows_host_down_and_opens(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *locked, *n;

	set_host_level(3);
	c = fixture_add(f, container_new());
	locked = fixture_add(f, container_new());
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), at_host_3());
	assert_ret(perf_open_as(c, AS_NOBODY, &user_only), at_host_3());
	assert_ret(perf_open_as(c, AS_ROOT, &with_kernel), -EACCES);
	assert_ret(write_level(locked, "3"), 0);
	assert_ret(perf_open_as(locked, AS_ROOT, &user_only), -EACCES);
	n = fixture_add(f, nested_new(locked));

	set_host_level(2);
	assert_level(c, 2);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(c, AS_NOBODY, &user_only), 0);
	assert_ret(perf_open_as(c, AS_ROOT, &with_kernel), -EACCES);
	assert_ret(perf_open_as(locked, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(n, AS_ROOT, &user_only), -EACCES);
	/* Further down, to 1: kernel profiling too. */
	set_host_level(1);
	assert_ret(perf_open_as(c, AS_ROOT, &with_kernel), 0);
	assert_ret(perf_open_as(locked, AS_ROOT, &user_only), -EACCES);
}

/*
 * Rules 8, 9: level 3 on the host refuses an unprivileged user, where the
 * host's level counts as it is (Debian); where it counts for 2 at most
 * (mainline), the host at 3 is at 2: user-space events open, kernel ones
 * do not.
 */
static void host_level_3_refuses_unprivileged_user(void **state)
{
	(void)state;
	assert_ret(perf_open_as(NULL, AS_NOBODY, &user_only), 0);
	set_host_level(3);
	assert_ret(perf_open_as(NULL, AS_NOBODY, &user_only), at_host_3());
	assert_ret(perf_open_as(NULL, AS_NOBODY, &with_kernel), -EACCES);
}

static void host_level_3_allows_cap_sys_admin(void **state)
{
	(void)state;
	set_host_level(3);
	assert_ret(perf_open_as(NULL, ONLY(CAP_SYS_ADMIN), &user_only), 0);
	assert_ret(perf_open_as(NULL, AS_ROOT, &with_kernel), 0);
}

/*
 * A process with CAP_PERFMON and nothing else (uid 65534; userns_agent.c
 * checks CapEff, CapPrm and CapBnd are exactly CAP_PERFMON before the call).
 */
static void cap_perfmon_alone_passes_level_3_on_host(void **state)
{
	struct out out;

	(void)state;
	/* What the callee really has. */
	assert_ret(call_as(NULL, ONLY(CAP_PERFMON), fn_caps, NULL, 0, -1,
			   &out), NOBODY);
	assert_true((uint64_t)out.val[0] == CAP_BIT(CAP_PERFMON));
	assert_true((uint64_t)out.val[1] == CAP_BIT(CAP_PERFMON));
	set_host_level(3);
	assert_ret(perf_open_as(NULL, ONLY(CAP_PERFMON), &user_only), 0);
	assert_ret(perf_open_as(NULL, ONLY(CAP_PERFMON), &with_kernel), 0);
	/*
	 * Another capability alone is not enough: refused at 3 where the
	 * host's level counts as it is, at 2 for kernel events anyway.
	 */
	assert_ret(perf_open_as(NULL, ONLY(CAP_SYSLOG), &user_only),
		   at_host_3());
	assert_ret(perf_open_as(NULL, ONLY(CAP_SYSLOG), &with_kernel),
		   -EACCES);
}

/* Rule 8: level 2 refuses kernel events to the unprivileged. */
static void host_level_2_refuses_kernel_events_to_unprivileged(void **state)
{
	(void)state;
	assert_ret(perf_open_as(NULL, AS_NOBODY, &with_kernel), -EACCES);
	assert_ret(perf_open_as(NULL, AS_NOBODY, &user_only), 0);
	assert_ret(perf_open_as(NULL, ONLY(CAP_PERFMON), &with_kernel), 0);
	set_host_level(1);
	assert_ret(perf_open_as(NULL, AS_NOBODY, &with_kernel), 0);
}

/* Rule 8: the container's 2 applies inside while the host is at 1. */
static void container_at_2_refuses_kernel_events_host_at_1_allows(
	void **state)
{
	struct fixture *f = *state;
	struct agent *c;

	set_host_level(1);
	c = fixture_add(f, container_new());
	assert_ret(perf_open_as(c, AS_ROOT, &with_kernel), 0);
	set_level(c, 2);
	assert_ret(perf_open_as(c, AS_ROOT, &with_kernel), -EACCES);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(NULL, AS_NOBODY, &with_kernel), 0);
}

/* Rule 8: level 1 (CPU-wide events) is per namespace too. */
static void container_at_1_refuses_cpu_events_host_at_0_allows(
	void **state)
{
	struct fixture *f = *state;
	struct agent *c;

	set_host_level(0);
	c = fixture_add(f, container_new());
	assert_ret(perf_open_as(c, AS_ROOT, &cpu_wide), 0);
	assert_ret(perf_open_as(NULL, AS_NOBODY, &cpu_wide), 0);
	set_level(c, 1);
	assert_ret(perf_open_as(c, AS_ROOT, &cpu_wide), -EACCES);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(NULL, AS_NOBODY, &cpu_wide), 0);
	set_host_level(1);
	assert_ret(perf_open_as(NULL, AS_NOBODY, &cpu_wide), -EACCES);
}

/*
 * Rule 8: level 0 (raw tracepoint samples) per namespace: with the host
 * at -1, an unprivileged host user samples sched_switch with raw data, the
 * root of a container raised to 0 gets EPERM.
 */
static void container_at_0_refuses_raw_tracepoint_host_at_minus_1_allows(
	void **state)
{
	struct fixture *f = *state;
	struct perf_req tp = { .kind = PERF_TRACEPOINT, .kernel = true };
	struct agent *c;

	tp.tp_id = tracepoint_id("sched/sched_switch");
	assert_true(tp.tp_id > 0);
	set_host_level(-1);
	c = fixture_add(f, container_new());
	assert_ret(perf_open_as(NULL, AS_NOBODY, &tp), 0);
	assert_ret(perf_open_as(c, AS_ROOT, &tp), 0);
	set_level(c, 0);
	assert_ret(perf_open_as(c, AS_ROOT, &tp), -EPERM);
	assert_ret(perf_open_as(NULL, AS_NOBODY, &tp), 0);
	set_host_level(0);
	assert_ret(perf_open_as(NULL, AS_NOBODY, &tp), -EPERM);
	assert_ret(perf_open_as(NULL, ONLY(CAP_PERFMON), &tp), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(container_root_refused_while_host_user_counts),
		TEST(container_at_2_opens_user_only_events),
		TEST(nested_ns_root_cannot_escape_container_level),
		TEST(container_at_3_stays_refused_when_host_at_minus_1),
		TEST(container_refused_when_host_raised_to_3),
		TEST(container_made_at_3_follows_host_down_and_opens),
		TEST(host_level_3_refuses_unprivileged_user),
		TEST(host_level_3_allows_cap_sys_admin),
		TEST(cap_perfmon_alone_passes_level_3_on_host),
		TEST(host_level_2_refuses_kernel_events_to_unprivileged),
		TEST(container_at_2_refuses_kernel_events_host_at_1_allows),
		TEST(container_at_1_refuses_cpu_events_host_at_0_allows),
		TEST(container_at_0_refuses_raw_tracepoint_host_at_minus_1_allows),
	};

	return RUN_TESTS("paranoid_perf", tests);
}
