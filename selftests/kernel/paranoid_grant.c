// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_grant - the host grants one user namespace a perf_event_paranoid
 * level below its own, and no other (docs/design.md, rules 11 to 16).
 *
 * The grant is made through ioctls on a user namespace descriptor
 * (NS_PERF_PARANOID_GRANT, _REVOKE, _GET of <linux/nsfs.h>), and bounded by
 * kernel.perf_event_paranoid_grant_min. What is tested:
 *   - the walk: with the host at 3 and the floor at 3, a granted namespace G
 *     is at the granted level v, and so is every namespace in G that set no
 *     level of its own, made before the grant or after; one that wrote 3
 *     keeps it; revoke and grant_min reach the whole subtree at once;
 *     grant_min outside 1 to 3, v above 3 and v below grant_min are refused
 *     and change nothing; grant_min 3 with the floor at 3 locks every
 *     namespace, granted or not;
 *   - revoke gives G back its own level from before the grant, raised to
 *     one the tenant wrote under it; a G that set none follows its parent
 *     again;
 *   - grants nest: granting G and a namespace in it, in either order, keeps
 *     both, each revoked on its own;
 *   - the ioctls: GET's level, own level and grant with their flags; the
 *     structure's size taken from the ioctl's number (E2BIG for unknown
 *     non-zero bytes, EINVAL below 16 bytes); a kernel log line for each
 *     grant and revoke;
 *   - who may grant: only CAP_SYS_ADMIN in the initial namespace, held by
 *     the caller and by the opener of the descriptor; uid 0 without
 *     CAP_SYS_ADMIN, CAP_PERFMON alone, the container's root on its own or
 *     a nested namespace, a tenant's descriptor in the host admin's hands
 *     and the host's descriptor in an unprivileged process's are refused;
 *   - bypasses from inside G at 2: every attempt is refused exactly as it is
 *     for an unprivileged host user with the host at 2, while a user-only
 *     event on the tenant's own task opens (the positive control);
 *   - isolation: the sibling stays at 3 and the host's users at the
 *     host's 3 as far as it counts (host_reach_max()), the host's floor
 *     does not reach G;
 *   - the tasks a grant covers: a process in G profiles its child in G at
 *     G's level; a host process of G's owner stays refused, by the ptrace
 *     check, with or without the grant;
 *   - events open in G survive a revoke; new ones are refused;
 *   - a race: the host grants and revokes in a loop while the tenant raises
 *     in a loop; no read ever shows a level below the granted one, and the
 *     host reads the chain's level after each revoke.
 *
 * On a kernel without grants every test fails, saying so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>

#include "harness.h"

#define DEVELOPER	((struct who){ .uid = 1000, .caps = 0 })
#define NO_SYS_ADMIN	((struct who){ .uid = -1, \
				       .caps = ~CAP_BIT(CAP_SYS_ADMIN) })
#define ONLY_PERFMON	((struct who){ .uid = -1, \
				       .caps = CAP_BIT(CAP_PERFMON) })

static int perf_open_attr(struct perf_event_attr *attr, pid_t pid, int cpu,
			  int group, unsigned long flags);

/* A user-space-only count of a task's CPU time: what level 2 allows */
static const struct perf_event_attr user_task_clock = {
	.size = sizeof(struct perf_event_attr),
	.type = PERF_TYPE_SOFTWARE,
	.config = PERF_COUNT_SW_TASK_CLOCK,
	.exclude_kernel = 1,
	.exclude_hv = 1,
};

/* --- the ioctls ------------------------------------------------------- */

/* No own level, or no grant: for assert_get(). */
#define NONE	INT_MIN

static int ns_grant(int nsfd, int level)
{
	struct ns_perf_paranoid req = { .level = level };

	return ioctl(nsfd, NS_PERF_PARANOID_GRANT, &req) ? -errno : 0;
}

static int ns_revoke(int nsfd)
{
	return ioctl(nsfd, NS_PERF_PARANOID_REVOKE) ? -errno : 0;
}

static int ns_get(int nsfd, struct ns_perf_paranoid *p)
{
	memset(p, 0, sizeof(*p));
	return ioctl(nsfd, NS_PERF_PARANOID_GET, p) ? -errno : 0;
}

/* The descriptor of @a's user namespace, opened by the test (host root). */
static int ns_fd(struct fixture *f, struct agent *a)
{
	int fd = agent_userns_fd(a);

	if (fd < 0)
		fail_msg("%s", agent_error());
	return fixture_fd(f, fd);
}

/* Grant @a's namespace @level as host root, asserting success. */
static void grant_agent(struct fixture *f, struct agent *a, int level)
{
	assert_ret(ns_grant(ns_fd(f, a), level), 0);
}

/*
 * What NS_PERF_PARANOID_GET tells of @nsfd: the level in force @level, the
 * own level @own (NONE: none, NS_PERF_PARANOID_OWN clear and own 0), the
 * granted level @granted (NONE: no grant, NS_PERF_PARANOID_ANCHORED clear
 * and granted 0), and no other flag.
 */
#define assert_get(nsfd, level, own, granted) \
	_assert_get((nsfd), (level), (own), (granted), __FILE__, __LINE__)

static void _assert_get(int nsfd, int level, int own, int granted,
			const char *file, int line)
{
	const uint32_t known = NS_PERF_PARANOID_ANCHORED |
			       NS_PERF_PARANOID_OWN;
	struct ns_perf_paranoid p;

	_assert_ret(ns_get(nsfd, &p), 0, "NS_PERF_PARANOID_GET", file, line);
	_assert_ret(p.level, level, "level", file, line);
	_assert_ret(!!(p.flags & NS_PERF_PARANOID_OWN), own != NONE,
		    "flags & NS_PERF_PARANOID_OWN", file, line);
	_assert_ret(p.own, own == NONE ? 0 : own, "own", file, line);
	_assert_ret(!!(p.flags & NS_PERF_PARANOID_ANCHORED), granted != NONE,
		    "flags & NS_PERF_PARANOID_ANCHORED", file, line);
	_assert_ret(p.granted, granted == NONE ? 0 : granted, "granted", file,
		    line);
	_assert_ret(p.flags & ~known, 0, "unknown flags", file, line);
}

/* In an agent: the grant ioctl on @in_fd (arg: the level) as the call's who */
static int fn_grant(const void *arg, int in_fd, struct out *out)
{
	(void)out;
	return ns_grant(in_fd, *(const int *)arg);
}

static int fn_revoke(const void *arg, int in_fd, struct out *out)
{
	(void)arg;
	(void)out;
	return ns_revoke(in_fd);
}

/* In an agent: open its own /proc/self/ns/user and send it back. */
static int fn_own_ns_fd(const void *arg, int in_fd, struct out *out)
{
	(void)arg;
	(void)in_fd;
	out->fd = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	return out->fd < 0 ? -errno : 0;
}

static int grant_as(struct agent *a, struct who w, int nsfd, int level)
{
	struct out out;

	return call_as(a, w, fn_grant, &level, sizeof(level), nsfd, &out);
}

/* --- grant_min -------------------------------------------------------- */

static int grant_min_present(void)
{
	if (access(GRANT_MIN_PATH, F_OK) == 0)
		return 0;
	diag("%s: %m: this kernel has no grants", GRANT_MIN_PATH);
	return -1;
}

/* Every test starts and ends with grant_min at 2 and no floor. */
static int grant_setup(void **state)
{
	if (fixture_setup(state) || grant_min_present())
		return -1;
	if (write_file(GRANT_MIN_PATH, "2") || clear_host_floor()) {
		diag("could not reset grant_min and the floor");
		return -1;
	}
	return 0;
}

static int grant_teardown(void **state)
{
	int ret = 0, min = 0, floor = 0;

	if (!grant_min_present() &&
	    (write_file(GRANT_MIN_PATH, "2") || clear_host_floor() ||
	     read_int(GRANT_MIN_PATH, &min) || min != GRANT_MIN ||
	     read_int(FLOOR_PATH, &floor) || floor != NO_FLOOR)) {
		diag("restoring grant_min and the floor failed");
		ret = -1;
	}
	return fixture_teardown(state) || ret;
}

#define GTEST(f) cmocka_unit_test_setup_teardown(f, grant_setup, grant_teardown)

/*
 * The host locked: level 3, floor 3, as Debian's default with the floor.
 * The floor puts every namespace at 3 on both forms; the host's own tasks
 * are at 3 only where its level counts as it is (host_reach_max()).
 */
static void lock_host(void)
{
	set_host_level(3);
	set_host_floor(3);
}

static const struct perf_req user_only = { .kind = PERF_TASK };
static const struct perf_req with_kernel = { .kind = PERF_TASK,
					     .kernel = true };

/* --- the walk --------------------------------------------------------- */

/*
 * Rules 12 and 15: with the host and the floor at 3, G granted 2 is at 2,
 * and so is every namespace in G that set nothing, made before the grant or
 * after it; one made before that wrote 3 stays at 3, and so do G's sibling
 * and the host. G's own level from before is put aside (GET shows none);
 * the floor file reads the host's 3 in G as anywhere.
 */
static void grant_anchors_g_below_host_and_floor(void **state)
{
	struct fixture *f = *state;
	struct agent *g, *sibling, *before, *locked, *after, *deeper;
	int gfd;

	lock_host();
	g = fixture_add(f, container_new());
	sibling = fixture_add(f, container_new());
	before = fixture_add(f, nested_new(g));
	locked = fixture_add(f, nested_new(g));
	set_level(locked, 3);
	gfd = ns_fd(f, g);
	assert_get(gfd, 3, NONE, NONE);
	assert_get(ns_fd(f, locked), 3, 3, NONE);

	assert_ret(ns_grant(gfd, 2), 0);
	assert_get(gfd, 2, NONE, 2);
	assert_level(g, 2);
	after = fixture_add(f, nested_new(g));
	deeper = fixture_add(f, nested_new(after));
	assert_level(after, 2);
	assert_level(deeper, 2);
	assert_get(ns_fd(f, after), 2, NONE, NONE);
	assert_level(before, 2);
	assert_level(locked, 3);
	assert_level(sibling, 3);
	assert_level(NULL, 3);
	assert_ret(read_floor(g), 3);
	assert_ret(read_floor(sibling), 3);
	assert_ret(perf_open_as(g, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(before, AS_NOBODY, &user_only), 0);
	assert_ret(perf_open_as(deeper, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(locked, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(sibling, AS_ROOT, &user_only), -EACCES);
}

/* Rule 16: revoke puts the whole subtree under the chain again at once. */
static void revoke_reaches_the_whole_subtree(void **state)
{
	struct fixture *f = *state;
	struct agent *g, *c;
	int gfd;

	lock_host();
	g = fixture_add(f, container_new());
	gfd = ns_fd(f, g);
	assert_ret(ns_grant(gfd, 2), 0);
	c = fixture_add(f, nested_new(g));
	assert_level(c, 2);

	assert_ret(ns_revoke(gfd), 0);
	assert_get(gfd, 3, NONE, NONE);
	assert_level(g, 3);
	assert_level(c, 3);
	assert_ret(perf_open_as(g, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), -EACCES);

	assert_ret(ns_grant(gfd, 2), 0);
	assert_level(c, 2);
}

/*
 * Rule 16: a lock set before the grant holds again after the revoke. With
 * the host at 2 and no floor, a runtime locked G at 3 through its
 * user.perf_event_paranoid; the host grants 2 (GET shows the lock put
 * aside), grants again, and revokes: G is at 3 again and refused, not at
 * the host's 2, also with the host at 1. A level the tenant wrote under the
 * grant below the lock (2) does not lower it.
 */
static void revoke_gives_back_a_lock_set_before_the_grant(void **state)
{
	struct fixture *f = *state;
	struct agent *g;
	int gfd;

	g = fixture_add(f, container_new());
	set_level(g, 3);
	gfd = ns_fd(f, g);
	assert_get(gfd, 3, 3, NONE);
	assert_ret(perf_open_as(g, AS_ROOT, &user_only), -EACCES);

	assert_ret(ns_grant(gfd, 2), 0);
	assert_get(gfd, 2, NONE, 2);
	assert_ret(perf_open_as(g, AS_ROOT, &user_only), 0);
	/* A second grant keeps what the first one put aside. */
	assert_ret(ns_grant(gfd, 3), 0);
	assert_get(gfd, 3, NONE, 3);
	assert_ret(ns_grant(gfd, 2), 0);
	assert_ret(write_level(g, "2"), 0);
	assert_get(gfd, 2, 2, 2);
	assert_ret(ns_revoke(gfd), 0);
	assert_get(gfd, 3, 3, NONE);
	assert_level(g, 3);
	assert_ret(perf_open_as(g, AS_ROOT, &user_only), -EACCES);
	set_host_level(1);
	assert_level(g, 3);
	assert_ret(perf_open_as(g, AS_ROOT, &user_only), -EACCES);

	/* Revoking again changes nothing */
	assert_ret(ns_revoke(gfd), 0);
	assert_get(gfd, 3, 3, NONE);
}

/*
 * Rule 16: a namespace that set no level before the grant and none under it
 * has none after the revoke: it follows its parent again, both ways, and so
 * does a namespace nested in it. With the host at 3 that is 3 where the
 * host's level counts as it is, 2 where it counts for 2 at most
 * (host_reach_max()).
 */
static void revoke_of_a_namespace_that_set_nothing_lets_it_follow(
	void **state)
{
	struct fixture *f = *state;
	int reach = host_reach_max();
	struct agent *g, *n;
	int gfd;

	set_host_level(3);
	g = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(g));
	gfd = ns_fd(f, g);
	assert_ret(ns_grant(gfd, 2), 0);
	assert_level(n, 2);
	assert_ret(ns_revoke(gfd), 0);
	assert_get(gfd, reach, NONE, NONE);
	set_host_level(1);
	assert_get(gfd, 1, NONE, NONE);
	assert_level(g, 1);
	assert_level(n, 1);
	assert_ret(perf_open_as(n, AS_ROOT, &with_kernel), 0);
	set_host_level(3);
	assert_get(gfd, reach, NONE, NONE);
	assert_level(g, 3);
	assert_level(n, 3);
	assert_ret(read_path_as(n, AS_ROOT, USER_PATH), reach);
	assert_ret(perf_open_as(n, AS_ROOT, &user_only),
		   reach == 3 ? -EACCES : 0);
	assert_ret(perf_open_as(n, AS_ROOT, &with_kernel), -EACCES);
}

/*
 * Rule 16: the revoke gives back the own level from before the grant raised
 * to the one the tenant wrote under it: 1 before, 3 written under a grant
 * of 2, 3 after, also with the host at 1.
 */
static void revoke_keeps_a_level_the_tenant_raised_to(void **state)
{
	struct fixture *f = *state;
	struct agent *g;
	int gfd;

	set_host_level(1);
	g = fixture_add(f, container_new());
	set_level(g, 1);
	set_host_level(2);
	gfd = ns_fd(f, g);
	assert_get(gfd, 2, 1, NONE);
	assert_ret(ns_grant(gfd, 2), 0);
	assert_get(gfd, 2, NONE, 2);
	set_level(g, 3);
	assert_get(gfd, 3, 3, 2);
	assert_ret(ns_revoke(gfd), 0);
	assert_get(gfd, 3, 3, NONE);
	set_host_level(1);
	assert_level(g, 3);
	assert_ret(perf_open_as(g, AS_ROOT, &user_only), -EACCES);
}

/*
 * Rule 14: grant_min is the lowest level a grant gives and a floor for
 * every granted subtree; raising it to 3 suspends every grant, lowering it
 * resumes them; it takes 1 to 3 only, and a grant 3 at the most.
 */
static void grant_min_bounds_and_suspends_grants(void **state)
{
	static const char *const bad[] = { "0", "-1", "4", "2x", "",
					   "2147483647", "-2147483648" };
	struct fixture *f = *state;
	struct agent *g, *h, *c;
	unsigned int i;
	int gfd, ret;

	lock_host();
	g = fixture_add(f, container_new());
	h = fixture_add(f, container_new());
	gfd = ns_fd(f, g);
	assert_ret(ns_grant(gfd, 1), -EPERM);
	assert_get(gfd, 3, NONE, NONE);
	assert_ret(ns_grant(gfd, 2), 0);
	grant_agent(f, h, 2);
	c = fixture_add(f, nested_new(g));

	assert_ret(path_write_level(GRANT_MIN_PATH, "3"), 0);
	assert_ret(path_read_level(GRANT_MIN_PATH), 3);
	assert_level(g, 3);
	assert_level(h, 3);
	assert_level(c, 3);
	assert_get(gfd, 3, NONE, 2);
	assert_ret(ns_grant(gfd, 2), -EPERM);
	assert_get(gfd, 3, NONE, 2);
	assert_ret(path_write_level(GRANT_MIN_PATH, "2"), 0);
	assert_level(g, 2);
	assert_level(h, 2);
	assert_level(c, 2);

	/* Outside 1 to 3, or not a number: EINVAL, and nothing changes */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ret = path_write_level(GRANT_MIN_PATH, bad[i]);
		if (ret != -EINVAL)
			fail_msg("writing \"%s\" to grant_min: %s, not "
				 "-EINVAL", bad[i], ret_str(ret));
	}
	assert_ret(path_read_level(GRANT_MIN_PATH), 2);

	/* A grant above 3 is no level; below grant_min, EPERM */
	assert_ret(ns_grant(gfd, 4), -EINVAL);
	assert_ret(ns_grant(gfd, INT_MAX), -EINVAL);
	assert_ret(ns_grant(gfd, -1), -EPERM);
	assert_get(gfd, 2, NONE, 2);

	/* Level 1 is opt-in: only once grant_min is lowered to 1 */
	assert_ret(ns_grant(gfd, 0), -EPERM);
	assert_ret(path_write_level(GRANT_MIN_PATH, "1"), 0);
	assert_ret(ns_grant(gfd, 0), -EPERM);
	assert_ret(ns_grant(gfd, 1), 0);
	assert_level(g, 1);
	/* c, which set nothing, follows G down; so does one made now */
	assert_level(c, 1);
	assert_level(fixture_add(f, nested_new(g)), 1);
	assert_level(h, 2);
}

/* grant_min is the host's: a container's root cannot write it. */
static void grant_min_is_written_by_the_host_only(void **state)
{
	struct fixture *f = *state;
	struct agent *g = fixture_add(f, container_new());
	struct agent *r = fixture_add(f, agent_userns(NULL, 0, 1));

	assert_ret(open_path_as(g, AS_ROOT, GRANT_MIN_PATH, O_WRONLY, NULL),
		   -EACCES);
	assert_ret(write_path_as(r, AS_ROOT, GRANT_MIN_PATH, "3"), -EPERM);
	assert_ret(write_path_as(NULL, NO_SYS_ADMIN, GRANT_MIN_PATH, "1"),
		   -EPERM);
	assert_ret(read_path_as(g, AS_ROOT, GRANT_MIN_PATH), 2);
	assert_ret(read_path_as(r, AS_ROOT, GRANT_MIN_PATH), 2);
	assert_ret(path_read_level(GRANT_MIN_PATH), 2);
	/* Read anywhere as it was written */
	assert_ret(path_write_level(GRANT_MIN_PATH, "3"), 0);
	assert_ret(read_path_as(g, AS_NOBODY, GRANT_MIN_PATH), 3);
}

/*
 * Rule 14 with the floor: grant_min 3 and the floor 3 lock every user
 * namespace, granted or not, while the host stays at 2 and its developer
 * profiles. Lowering grant_min gives the grant back.
 */
static void grant_min_3_and_floor_3_lock_every_namespace(void **state)
{
	struct fixture *f = *state;
	struct agent *g, *in_g, *sibling;

	g = fixture_add(f, container_new());
	in_g = fixture_add(f, nested_new(g));
	sibling = fixture_add(f, container_new());
	set_host_floor(3);
	grant_agent(f, g, 2);
	assert_ret(perf_open_as(g, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(in_g, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(sibling, AS_ROOT, &user_only), -EACCES);

	assert_ret(path_write_level(GRANT_MIN_PATH, "3"), 0);
	assert_ret(perf_open_as(g, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(g, AS_NOBODY, &user_only), -EACCES);
	assert_ret(perf_open_as(in_g, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(sibling, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(fixture_add(f, container_new()), AS_ROOT,
				&user_only), -EACCES);
	assert_ret(host_level(), 2);
	assert_ret(perf_open_as(NULL, DEVELOPER, &user_only), 0);
	/* No grant gets past it */
	assert_ret(ns_grant(ns_fd(f, sibling), 2), -EPERM);
	assert_level(sibling, 3);

	assert_ret(path_write_level(GRANT_MIN_PATH, "2"), 0);
	assert_ret(perf_open_as(g, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(sibling, AS_ROOT, &user_only), -EACCES);
}

/* --- the ioctls' structure -------------------------------------------- */

/* The size of a request: the ioctl's number says it (_IOC_SIZE()). */
#define GRANT_SIZED(size)	_IOC(_IOC_WRITE, NSIO, 0x21, (size))
#define GET_SIZED(size)		_IOC(_IOC_READ, NSIO, 0x20, (size))

/* A larger version of the structure: 8 more bytes. */
struct ns_perf_paranoid_next {
	struct ns_perf_paranoid v0;
	uint64_t more;
};

/*
 * The structure can grow: the kernel takes its size from the ioctl's
 * number. GRANT of a larger one works when the bytes it does not know are
 * zero and is E2BIG when they are not; GET of a larger one zeroes them;
 * one smaller than the first version (16 bytes) is EINVAL; nothing changes
 * on a refusal.
 */
static void ioctl_size_comes_from_the_number(void **state)
{
	struct fixture *f = *state;
	struct ns_perf_paranoid_next next;
	struct agent *g;
	int gfd;

	assert_ret(NS_PERF_PARANOID_SIZE_VER0, 16);
	assert_ret(sizeof(struct ns_perf_paranoid), 16);
	assert_ret(_IOC_SIZE(NS_PERF_PARANOID_GRANT), 16);
	lock_host();
	g = fixture_add(f, container_new());
	gfd = ns_fd(f, g);

	memset(&next, 0, sizeof(next));
	next.v0.level = 2;
	next.more = 1;
	assert_ret(ioctl(gfd, GRANT_SIZED(sizeof(next)), &next) ? -errno : 0,
		   -E2BIG);
	next.more = 1ULL << 63;
	assert_ret(ioctl(gfd, GRANT_SIZED(sizeof(next)), &next) ? -errno : 0,
		   -E2BIG);
	assert_get(gfd, 3, NONE, NONE);
	assert_ret(ioctl(gfd, GRANT_SIZED(8), &next) ? -errno : 0, -EINVAL);
	assert_ret(ioctl(gfd, GRANT_SIZED(15), &next) ? -errno : 0, -EINVAL);
	assert_ret(ioctl(gfd, GRANT_SIZED(0), &next) ? -errno : 0, -EINVAL);
	assert_get(gfd, 3, NONE, NONE);
	assert_level(g, 3);

	next.more = 0;
	assert_ret(ioctl(gfd, GRANT_SIZED(sizeof(next)), &next) ? -errno : 0,
		   0);
	assert_get(gfd, 2, NONE, 2);
	assert_level(g, 2);

	memset(&next, 0xff, sizeof(next));
	assert_ret(ioctl(gfd, GET_SIZED(sizeof(next)), &next) ? -errno : 0, 0);
	assert_ret(next.v0.level, 2);
	assert_ret(next.v0.flags, NS_PERF_PARANOID_ANCHORED);
	assert_ret(next.v0.own, 0);
	assert_ret(next.v0.granted, 2);
	assert_true(next.more == 0);
	assert_ret(ioctl(gfd, GET_SIZED(8), &next) ? -errno : 0, -EINVAL);
}

/*
 * Each grant and each revoke writes one line to the kernel log, starting
 * "perf: user namespace " and the namespace's inode number, and saying who
 * made it; a refused grant writes none.
 */

/* The kernel log's lines about @ino read from @kmsg since the last call. */
static int kmsg_lines_about(int kmsg, unsigned long ino, char *line,
			    size_t size)
{
	char rec[1024], want[64], *text;
	int n = 0, len;
	ssize_t r;

	len = snprintf(want, sizeof(want), "perf: user namespace %lu", ino);
	line[0] = '\0';
	for (;;) {
		r = read(kmsg, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;
		if (r <= 0)
			break;
		rec[r] = '\0';
		/* "prio,seq,time,flags;text\n" */
		text = strchr(rec, ';');
		if (!text++ || strncmp(text, want, len) ||
		    (text[len] >= '0' && text[len] <= '9'))
			continue;
		text[strcspn(text, "\n")] = '\0';
		snprintf(line, size, "%s", text);
		n++;
	}
	return n;
}

static void grant_and_revoke_are_logged(void **state)
{
	struct fixture *f = *state;
	char line[512];
	struct stat st;
	struct agent *g;
	int kmsg, gfd;

	lock_host();
	g = fixture_add(f, container_new());
	gfd = ns_fd(f, g);
	assert_int_equal(fstat(gfd, &st), 0);
	kmsg = fixture_fd(f, open("/dev/kmsg", O_RDONLY | O_NONBLOCK |
				  O_CLOEXEC));
	assert_int_equal(lseek(kmsg, 0, SEEK_END) < 0 ? -errno : 0, 0);

	assert_ret(ns_grant(gfd, 2), 0);
	assert_ret(kmsg_lines_about(kmsg, st.st_ino, line, sizeof(line)), 1);
	diag("grant: %s", line);
	assert_non_null(strstr(line, "granted"));
	assert_null(strstr(line, "revoked"));
	assert_non_null(strstr(line, " 2 "));
	assert_non_null(strstr(line, "uid 0"));

	assert_ret(ns_grant(gfd, 1), -EPERM);
	assert_ret(kmsg_lines_about(kmsg, st.st_ino, line, sizeof(line)), 0);

	assert_ret(ns_revoke(gfd), 0);
	assert_ret(kmsg_lines_about(kmsg, st.st_ino, line, sizeof(line)), 1);
	diag("revoke: %s", line);
	assert_non_null(strstr(line, "revoked"));
	assert_non_null(strstr(line, "uid 0"));
}

/* --- who may grant ---------------------------------------------------- */

/* Rule 11: the caller and the opener need CAP_SYS_ADMIN in the host. */
static void only_host_cap_sys_admin_grants(void **state)
{
	struct fixture *f = *state;
	struct agent *g, *nested;
	struct out out;
	int gfd, nfd, tenant_fd;

	lock_host();
	g = fixture_add(f, container_new());
	nested = fixture_add(f, nested_new(g));
	gfd = ns_fd(f, g);
	nfd = ns_fd(f, nested);

	/* The host's descriptor, in the hands of other callers */
	assert_ret(grant_as(NULL, NO_SYS_ADMIN, gfd, 2), -EPERM);
	assert_ret(grant_as(NULL, ONLY_PERFMON, gfd, 2), -EPERM);
	assert_ret(grant_as(NULL, DEVELOPER, gfd, 2), -EPERM);
	assert_ret(call_as(NULL, DEVELOPER, fn_revoke, NULL, 0, gfd, &out),
		   -EPERM);
	assert_ret(grant_as(g, AS_ROOT, gfd, 2), -EPERM);
	assert_ret(grant_as(g, AS_ROOT, nfd, 2), -EPERM);

	/* The tenant's own descriptor: for itself, or passed to the host */
	assert_ret(call(g, fn_own_ns_fd, NULL, 0, &out), 0);
	tenant_fd = fixture_fd(f, out.fd);
	assert_ret(grant_as(g, AS_ROOT, tenant_fd, 2), -EPERM);
	assert_ret(ns_grant(tenant_fd, 2), -EPERM);
	assert_ret(ns_revoke(tenant_fd), -EPERM);
	assert_ret(call(nested, fn_own_ns_fd, NULL, 0, &out), 0);
	assert_ret(ns_grant(fixture_fd(f, out.fd), 2), -EPERM);

	/* Nothing changed */
	assert_get(gfd, 3, NONE, NONE);
	assert_get(nfd, 3, NONE, NONE);
	assert_level(g, 3);

	/* The positive control: the host's root with its own descriptor */
	assert_ret(grant_as(NULL, AS_ROOT, gfd, 2), 0);
	assert_level(g, 2);
}

/*
 * Rule 11: neither the initial namespace nor another kind of namespace;
 * GET of the initial namespace shows the host's level as its own.
 */
static void grant_refuses_the_host_and_other_namespaces(void **state)
{
	static const struct ns_perf_paranoid bad[] = {
		{ .level = 2, .own = 1 },
		{ .level = 2, .flags = NS_PERF_PARANOID_ANCHORED },
		{ .level = 2, .flags = NS_PERF_PARANOID_OWN },
		{ .level = 2, .flags = 1U << 31 },
		{ .level = 2, .granted = 2 },
	};
	struct fixture *f = *state;
	struct ns_perf_paranoid p = { .level = 2 };
	struct agent *g = fixture_add(f, container_new());
	int host = fixture_fd(f, open("/proc/self/ns/user", O_RDONLY));
	int net = fixture_fd(f, open("/proc/self/ns/net", O_RDONLY));
	int gfd = ns_fd(f, g);
	unsigned int i;

	assert_true(host >= 0 && net >= 0);
	assert_ret(ns_grant(host, 2), -EINVAL);
	assert_ret(ns_revoke(host), -EINVAL);
	assert_get(host, 2, 2, NONE);
	assert_ret(ns_grant(net, 2), -EINVAL);
	assert_ret(ns_revoke(net), -EINVAL);
	assert_ret(ioctl(net, NS_PERF_PARANOID_GET, &p) ? -errno : 0, -EINVAL);
	/* Fields other than the level must be zero */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		p = bad[i];
		assert_ret(ioctl(gfd, NS_PERF_PARANOID_GRANT, &p) ? -errno : 0,
			   -EINVAL);
	}
	assert_ret(ioctl(gfd, NS_PERF_PARANOID_GRANT, NULL) ? -errno : 0,
		   -EFAULT);
	assert_get(gfd, 2, NONE, NONE);
	assert_level(NULL, 2);
}

/*
 * Rule 12: grants nest. An outer namespace O, I in it and K in I; granting
 * O 2 then I 1, or I 1 then O 2, keeps both grants and ends in the same
 * state: O at 2, I and K at 1 (kernel profiling opens in I, not in O).
 * Revoking I puts it under O's grant; granting I again and revoking O
 * leaves I's grant alone; then revoking I puts everything under the host's
 * level and floor again.
 */
struct nest {
	struct agent *o, *i, *k;
	int ofd, ifd, kfd;
};

static void nest_new(struct fixture *f, struct nest *t, bool outer_first)
{
	t->o = fixture_add(f, container_new());
	t->i = fixture_add(f, nested_new(t->o));
	t->k = fixture_add(f, nested_new(t->i));
	t->ofd = ns_fd(f, t->o);
	t->ifd = ns_fd(f, t->i);
	t->kfd = ns_fd(f, t->k);
	if (outer_first)
		assert_ret(ns_grant(t->ofd, 2), 0);
	assert_ret(ns_grant(t->ifd, 1), 0);
	if (!outer_first)
		assert_ret(ns_grant(t->ofd, 2), 0);
}

/* Both trees: O at @o (granted @og), I at @i (granted @ig), K at @i. */
static void nests_are(struct nest *t, int o, int og, int i, int ig)
{
	int n;

	for (n = 0; n < 2; n++) {
		assert_get(t[n].ofd, o, NONE, og);
		assert_get(t[n].ifd, i, NONE, ig);
		assert_get(t[n].kfd, i, NONE, NONE);
		assert_level(t[n].o, o);
		assert_level(t[n].i, i);
		assert_level(t[n].k, i);
	}
}

static void nested_grants_in_either_order_end_the_same(void **state)
{
	struct fixture *f = *state;
	struct nest t[2];
	int n;

	lock_host();
	assert_ret(path_write_level(GRANT_MIN_PATH, "1"), 0);
	nest_new(f, &t[0], true);
	nest_new(f, &t[1], false);
	nests_are(t, 2, 2, 1, 1);
	for (n = 0; n < 2; n++) {
		assert_ret(perf_open_as(t[n].k, AS_ROOT, &with_kernel), 0);
		assert_ret(perf_open_as(t[n].o, AS_ROOT, &with_kernel),
			   -EACCES);
		assert_ret(perf_open_as(t[n].o, AS_ROOT, &user_only), 0);
	}

	for (n = 0; n < 2; n++)
		assert_ret(ns_revoke(t[n].ifd), 0);
	nests_are(t, 2, 2, 2, NONE);
	for (n = 0; n < 2; n++) {
		assert_ret(perf_open_as(t[n].k, AS_ROOT, &with_kernel),
			   -EACCES);
		assert_ret(ns_grant(t[n].ifd, 1), 0);
		assert_ret(ns_revoke(t[n].ofd), 0);
	}
	nests_are(t, 3, NONE, 1, 1);
	for (n = 0; n < 2; n++) {
		assert_ret(perf_open_as(t[n].o, AS_ROOT, &user_only), -EACCES);
		assert_ret(perf_open_as(t[n].k, AS_ROOT, &with_kernel), 0);
		assert_ret(ns_revoke(t[n].ifd), 0);
	}
	nests_are(t, 3, NONE, 3, NONE);
	for (n = 0; n < 2; n++)
		assert_ret(perf_open_as(t[n].k, AS_ROOT, &user_only), -EACCES);
}

/* A child of the caller that waits until it is killed: its pid or -errno */
static pid_t fork_pauser(void)
{
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	return child < 0 ? -errno : child;
}

/*
 * In a host process of G's owner: a user-only event on itself, then
 * setns() into G (@in_fd) and one on itself again, on its own child, which
 * stays on the host, and on pid 1. val[0] to val[3] in that order.
 */
static int fn_owner_enters(const void *arg, int in_fd, struct out *out)
{
	struct perf_event_attr attr = user_task_clock;
	pid_t child;

	(void)arg;
	/*
	 * Becoming the owner's uid made this process non-dumpable, which no
	 * process of a logged-in user is: ptrace's same-uid rule needs it.
	 */
	if (prctl(PR_SET_DUMPABLE, 1))
		return -errno;
	child = fork_pauser();
	if (child < 0)
		return child;
	out->val[0] = perf_open_attr(&attr, 0, -1, -1, 0);
	if (setns(in_fd, CLONE_NEWUSER)) {
		snprintf(out->msg, sizeof(out->msg), "setns: %m");
		kill(child, SIGKILL);
		return -ENOTRECOVERABLE;
	}
	out->val[1] = perf_open_attr(&attr, 0, -1, -1, 0);
	out->val[2] = perf_open_attr(&attr, child, -1, -1, 0);
	out->val[3] = perf_open_attr(&attr, 1, -1, -1, 0);
	kill(child, SIGKILL);
	return 0;
}

/*
 * Rule 13: G's owner (a rootless container's user) can enter G, and what
 * it runs there is profiled at G's level; its processes outside G are not
 * (commoncap wants CAP_SYS_PTRACE over their namespace), nor anybody
 * else's. On the host itself, at 3, the owner is refused where the host's
 * level counts as it is (host_reach_max()).
 */
static void the_owner_of_g_profiles_only_inside_it(void **state)
{
	struct fixture *f = *state;
	struct who owner = { .uid = ROOTLESS_BASE, .caps = 0 };
	struct agent *g;
	struct out out;
	int gfd;

	lock_host();
	g = fixture_add(f, container_new());
	gfd = ns_fd(f, g);
	assert_ret(ns_grant(gfd, 2), 0);
	assert_ret(call_as(NULL, owner, fn_owner_enters, NULL, 0, gfd, &out),
		   0);
	diag("G's owner on the host: %s; entered G: %s on itself, %s on its "
	     "own host process, %s on pid 1", ret_str(out.val[0]),
	     ret_str(out.val[1]), ret_str(out.val[2]), ret_str(out.val[3]));
	assert_ret(out.val[0], host_reach_max() == 3 ? -EACCES : 0);
	assert_ret(out.val[1], 0);
	assert_ret(out.val[2], -EACCES);
	assert_ret(out.val[3], -EACCES);

	/* Revoked, entering G gives nothing */
	assert_ret(ns_revoke(gfd), 0);
	assert_ret(call_as(NULL, owner, fn_owner_enters, NULL, 0, gfd, &out),
		   0);
	assert_ret(out.val[1], -EACCES);
}

/*
 * On the host, as G's owner: fork V, a process of the owner that stays on
 * the host, dumpable as a logged-in user's processes are, until the test
 * closes the pipe it sends back. val[0]: V's pid.
 */
static int fn_owner_process(const void *arg, int in_fd, struct out *out)
{
	pid_t victim;
	int p[2];
	char c;

	(void)arg;
	(void)in_fd;
	if (prctl(PR_SET_DUMPABLE, 1) || pipe2(p, O_CLOEXEC))
		return -errno;
	victim = fork();
	if (victim < 0)
		return -errno;
	if (victim == 0) {
		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(p[0]);
	out->fd = p[1];
	out->val[0] = victim;
	return 0;
}

/*
 * In G: a user-only event on itself, on a child it forks, which stays in
 * G, and on the task *@arg. val[0] to val[2] in that order.
 */
static int fn_open_on_tasks(const void *arg, int in_fd, struct out *out)
{
	struct perf_event_attr attr = user_task_clock;
	pid_t child;

	(void)in_fd;
	child = fork_pauser();
	if (child < 0)
		return child;
	out->val[0] = perf_open_attr(&attr, 0, -1, -1, 0);
	out->val[1] = perf_open_attr(&attr, child, -1, -1, 0);
	out->val[2] = perf_open_attr(&attr, *(const pid_t *)arg, -1, -1, 0);
	kill(child, SIGKILL);
	return 0;
}

/* What fn_open_on_tasks() sent back, shown */
static void show_opens(const char *when, const struct out *out)
{
	diag("%s: %s on itself, %s on its child, %s on V", when,
	     ret_str(out->val[0]), ret_str(out->val[1]), ret_str(out->val[2]));
}

/*
 * A granted level covers the tasks of G's subtree. With the floor at 3 and
 * G, made by its owner's uid, granted 2: a process in G opens a user-only
 * event on itself and on its child in G (a task other than the caller's,
 * judged at G's level); on V, a host process of the same uid, it is
 * refused; revoked, on itself and its child too. V stays refused with no
 * floor and no grant: commoncap's ptrace check wants CAP_SYS_PTRACE over
 * V's namespace, the host's, so no level in G reaches V and the refusal
 * under the grant is the ptrace check's, not the level's (the floor never
 * applies to the host's tasks).
 */
static void a_grant_covers_the_tasks_in_g(void **state)
{
	struct fixture *f = *state;
	struct who owner = { .uid = ROOTLESS_BASE, .caps = 0 };
	struct agent *g;
	struct out out;
	pid_t victim;
	int gfd;

	set_host_floor(3);
	g = fixture_add(f, container_new());
	gfd = ns_fd(f, g);
	assert_ret(call_as(NULL, owner, fn_owner_process, NULL, 0, -1, &out),
		   0);
	fixture_fd(f, out.fd);
	victim = out.val[0];

	assert_ret(ns_grant(gfd, 2), 0);
	assert_ret(call(g, fn_open_on_tasks, &victim, sizeof(victim), &out),
		   0);
	show_opens("in G granted 2, the floor at 3", &out);
	assert_ret(out.val[0], 0);
	assert_ret(out.val[1], 0);
	assert_ret(out.val[2], -EACCES);

	assert_ret(ns_revoke(gfd), 0);
	assert_ret(call(g, fn_open_on_tasks, &victim, sizeof(victim), &out),
		   0);
	assert_ret(out.val[0], -EACCES);
	assert_ret(out.val[1], -EACCES);

	/* No grant, no floor: G's own tasks open, V is the ptrace check's */
	assert_ret(clear_host_floor(), 0);
	assert_ret(call(g, fn_open_on_tasks, &victim, sizeof(victim), &out),
		   0);
	show_opens("in G, no grant, no floor", &out);
	assert_ret(out.val[0], 0);
	assert_ret(out.val[1], 0);
	assert_ret(out.val[2], -EACCES);
}

/* --- inside G --------------------------------------------------------- */

/*
 * Rule 15: a tenant still only raises, also after unshare -U. Granting G
 * again sets the granted level anew, also below the level the tenant
 * raised G to.
 */
static void inside_g_the_tenant_only_raises(void **state)
{
	struct fixture *f = *state;
	struct agent *g, *c;
	int gfd;

	lock_host();
	g = fixture_add(f, container_new());
	gfd = ns_fd(f, g);
	assert_ret(ns_grant(gfd, 2), 0);
	c = fixture_add(f, nested_new(g));

	assert_ret(write_level(g, "1"), -EPERM);
	assert_ret(write_level(c, "1"), -EPERM);
	assert_ret(write_level(g, "-1"), -EPERM);
	assert_ret(write_level(g, "4"), -EINVAL);
	assert_level(g, 2);
	assert_ret(write_level(g, "2"), 0);
	assert_ret(write_level(c, "2"), 0);
	set_level(c, 3);
	assert_level(g, 2);
	set_level(g, 3);
	assert_ret(write_level(g, "2"), -EPERM);
	assert_level(g, 3);
	assert_get(gfd, 3, 3, 2);

	assert_ret(ns_grant(gfd, 2), 0);
	assert_get(gfd, 2, NONE, 2);
	assert_level(g, 2);
	assert_ret(perf_open_as(g, AS_ROOT, &user_only), 0);
	/* c's own 3 is c's */
	assert_level(c, 3);
}

/*
 * Rule 12: the sibling and the host's users stay refused (the host's users
 * where the host's 3 counts as it is, host_reach_max()), the floor stops.
 */
static void siblings_and_host_users_stay_locked(void **state)
{
	struct fixture *f = *state;
	struct agent *g, *sibling, *sandbox;

	lock_host();
	g = fixture_add(f, container_new());
	sibling = fixture_add(f, container_new());
	sandbox = fixture_add(f, nested_new(sibling));
	grant_agent(f, g, 2);

	assert_ret(perf_open_as(g, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(g, AS_NOBODY, &user_only), 0);
	assert_ret(perf_open_as(sibling, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(sandbox, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(NULL, DEVELOPER, &user_only),
		   host_reach_max() == 3 ? -EACCES : 0);
	assert_ret(perf_open_as(NULL, DEVELOPER, &with_kernel), -EACCES);

	/* The host's level and floor do not reach G */
	set_host_level(4);
	assert_level(g, 2);
	assert_level(sibling, 4);
	assert_ret(perf_open_as(g, AS_ROOT, &user_only), 0);
	set_host_level(2);
	set_host_floor(3);
	assert_level(g, 2);
	assert_level(sandbox, 3);
	assert_ret(perf_open_as(NULL, DEVELOPER, &user_only), 0);
}

/* In G: open an event and send its descriptor back. */
static int fn_open_event(const void *arg, int in_fd, struct out *out)
{
	struct perf_event_attr attr = user_task_clock;

	(void)arg;
	(void)in_fd;
	out->fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	return out->fd < 0 ? -errno : 0;
}

/* Rule 16: events open in G survive a revoke; new ones are refused. */
static void events_survive_a_revoke(void **state)
{
	struct fixture *f = *state;
	struct agent *g;
	struct out out;
	uint64_t before, after;
	int gfd, ev;

	lock_host();
	g = fixture_add(f, container_new());
	gfd = ns_fd(f, g);
	assert_ret(ns_grant(gfd, 2), 0);
	assert_ret(call(g, fn_open_event, NULL, 0, &out), 0);
	ev = fixture_fd(f, out.fd);
	assert_ret(read(ev, &before, sizeof(before)), sizeof(before));

	assert_ret(ns_revoke(gfd), 0);
	assert_ret(call(g, fn_open_event, NULL, 0, &out), -EACCES);
	assert_ret(ioctl(ev, PERF_EVENT_IOC_RESET, 0), 0);
	assert_ret(ioctl(ev, PERF_EVENT_IOC_ENABLE, 0), 0);
	assert_ret(read(ev, &after, sizeof(after)), sizeof(after));
}

/* --- bypasses from inside G ------------------------------------------ */

enum attempt_kind {
	TRY_USER_TASK,		/* the positive control: must open */
	TRY_KERNEL,		/* exclude_kernel = 0 */
	TRY_CPU_WIDE,		/* pid -1, cpu 0 */
	TRY_CGROUP,		/* PERF_FLAG_PID_CGROUP on cgroup2's root */
	TRY_UNCORE,		/* every PMU with a cpumask in sysfs */
	TRY_ANY_THREAD,		/* a raw event with the AnyThread bit */
	TRY_RAW_TRACEPOINT,	/* sched_switch with PERF_SAMPLE_RAW */
	TRY_FUNCTION_TRACE,	/* ftrace:function */
	TRY_PHYS_ADDR,		/* PERF_SAMPLE_PHYS_ADDR */
	TRY_SIBLING_TASK,	/* a task of another tenant */
	TRY_MLOCK,		/* a ring buffer past the mlock limits */
	TRY_KALLSYMS,		/* kernel addresses in /proc/kallsyms */
};

static const char *const attempt_names[] = {
	[TRY_USER_TASK] = "a user-only event on its own task",
	[TRY_KERNEL] = "kernel profiling (exclude_kernel=0)",
	[TRY_CPU_WIDE] = "a CPU-wide event",
	[TRY_CGROUP] = "a cgroup event",
	[TRY_UNCORE] = "uncore PMUs (CPU-wide, per sysfs cpumask)",
	[TRY_ANY_THREAD] = "a raw event with the AnyThread bit",
	[TRY_RAW_TRACEPOINT] = "a raw tracepoint sample",
	[TRY_FUNCTION_TRACE] = "the function tracepoint",
	[TRY_PHYS_ADDR] = "PERF_SAMPLE_PHYS_ADDR",
	[TRY_SIBLING_TASK] = "a sibling tenant's task",
	[TRY_MLOCK] = "a ring buffer past the mlock limit",
	[TRY_KALLSYMS] = "/proc/kallsyms addresses",
};

struct attempt {
	enum attempt_kind kind;
	pid_t sibling;		/* TRY_SIBLING_TASK */
	int sched_switch;	/* tracepoint ids, -1 if none */
	int function;
};

static int perf_open_attr(struct perf_event_attr *attr, pid_t pid, int cpu,
			  int group, unsigned long flags)
{
	int fd;

	attr->size = sizeof(*attr);
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group,
		     flags | PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Every PMU with a cpumask (uncore, and the like) opened CPU-wide */
static int try_uncore(struct out *out)
{
	static const char *const dir = "/sys/bus/event_source/devices";
	char path[256], buf[32];
	int ret = -ENOENT, n = 0, r, type;
	FILE *ls;

	snprintf(path, sizeof(path),
		 "ls %s/*/cpumask 2>/dev/null | cut -d/ -f6", dir);
	ls = popen(path, "re");
	if (!ls)
		return -errno;
	while (fgets(buf, sizeof(buf), ls)) {
		struct perf_event_attr attr = {};

		buf[strcspn(buf, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s/%s/type", dir, buf);
		if (read_int(path, &type))
			continue;
		attr.type = type;
		r = perf_open_attr(&attr, -1, 0, -1, 0);
		n++;
		if (!r)
			return 0;
		ret = r;
	}
	pclose(ls);
	out->val[0] = n;
	return ret;
}

static int try_mlock(void)
{
	struct perf_event_attr attr = user_task_clock;
	struct rlimit none = { 0, 0 };
	size_t len = (1 + 1024) * sysconf(_SC_PAGESIZE);
	void *p;
	int fd, ret = 0;

	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (setrlimit(RLIMIT_MEMLOCK, &none))
		ret = -ENOTRECOVERABLE;
	p = ret ? MAP_FAILED : mmap(NULL, len, PROT_READ | PROT_WRITE,
				    MAP_SHARED, fd, 0);
	if (!ret && p == MAP_FAILED)
		ret = -errno;
	else if (!ret)
		munmap(p, len);
	close(fd);
	return ret;
}

/* 0 if /proc/kallsyms shows a nonzero address, else -EACCES */
static int try_kallsyms(void)
{
	char line[256];
	FILE *file = fopen("/proc/kallsyms", "re");
	int ret = -EACCES;

	if (!file)
		return -errno;
	while (fgets(line, sizeof(line), file))
		if (strtoull(line, NULL, 16)) {
			ret = 0;
			break;
		}
	fclose(file);
	return ret;
}

static int fn_attempt(const void *arg, int in_fd, struct out *out)
{
	const struct attempt *t = arg;
	struct perf_event_attr attr = user_task_clock;

	switch (t->kind) {
	case TRY_USER_TASK:
		return perf_open_attr(&attr, 0, -1, -1, 0);
	case TRY_KERNEL:
		attr.exclude_kernel = 0;
		return perf_open_attr(&attr, 0, -1, -1, 0);
	case TRY_CPU_WIDE:
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		return perf_open_attr(&attr, -1, 0, -1, 0);
	case TRY_CGROUP:
		if (in_fd < 0)
			return -EBADF;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		return perf_open_attr(&attr, in_fd, 0, -1,
				      PERF_FLAG_PID_CGROUP);
	case TRY_UNCORE:
		return try_uncore(out);
	case TRY_ANY_THREAD:
		attr.type = PERF_TYPE_RAW;
		attr.config = 0x3c | (1ULL << 21);
		return perf_open_attr(&attr, 0, -1, -1, 0);
	case TRY_RAW_TRACEPOINT:
	case TRY_FUNCTION_TRACE:
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = t->kind == TRY_RAW_TRACEPOINT ? t->sched_switch :
							      t->function;
		attr.sample_type = PERF_SAMPLE_RAW;
		attr.sample_period = 1;
		return perf_open_attr(&attr, 0, -1, -1, 0);
	case TRY_PHYS_ADDR:
		attr.sample_type = PERF_SAMPLE_PHYS_ADDR;
		attr.sample_period = 100000;
		return perf_open_attr(&attr, 0, -1, -1, 0);
	case TRY_SIBLING_TASK:
		return perf_open_attr(&attr, t->sibling, -1, -1, 0);
	case TRY_MLOCK:
		return try_mlock();
	case TRY_KALLSYMS:
		return try_kallsyms();
	}
	return -ENOTRECOVERABLE;
}

/* On the host: a descriptor of cgroup2's root, mounted if it is not. */
static int fn_cgroup_fd(const void *arg, int in_fd, struct out *out)
{
	const char *dir = "/sys/fs/cgroup";
	struct statfs sfs;

	(void)arg;
	(void)in_fd;
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	if ((statfs(dir, &sfs) || sfs.f_type != 0x63677270) &&
	    mount("cgroup2", dir, "cgroup2", 0, NULL))
		return -errno;
	out->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return out->fd < 0 ? -errno : 0;
}

/*
 * Rule 13 and the bypass list of docs/design.md: every attempt from inside
 * G granted 2 ends as it ends for an unprivileged host user with the host at
 * 2, and every one but the positive control is refused.
 */
static void g_at_2_is_no_more_than_host_at_2(void **state)
{
	struct fixture *f = *state;
	struct attempt t = { 0 };
	struct agent *g, *sibling;
	struct out out;
	int cgroup_fd, host_ret, g_ret, gfd;
	unsigned int k;

	g = fixture_add(f, container_new());
	gfd = ns_fd(f, g);
	sibling = fixture_add(f, container_new());
	t.sibling = sibling->pid;
	t.sched_switch = tracepoint_id("sched/sched_switch");
	t.function = tracepoint_id("ftrace/function");
	assert_true(t.sched_switch > 0);
	assert_ret(call(NULL, fn_cgroup_fd, NULL, 0, &out), 0);
	cgroup_fd = fixture_fd(f, out.fd);
	diag("function tracepoint id %d (-1: none in this kernel)", t.function);

	for (k = 0; k < ARRAY_SIZE(attempt_names); k++) {
		t.kind = k;
		set_host_level(2);
		assert_ret(clear_host_floor(), 0);
		assert_ret(ns_revoke(gfd), 0);
		host_ret = call_as(NULL, DEVELOPER, fn_attempt, &t, sizeof(t),
				   cgroup_fd, &out);

		lock_host();
		assert_ret(ns_grant(gfd, 2), 0);
		g_ret = call_as(g, AS_ROOT, fn_attempt, &t, sizeof(t),
				cgroup_fd, &out);
		diag("%-42s host user at 2: %-8s G's root at 2: %s%s",
		     attempt_names[k], ret_str(host_ret), ret_str(g_ret),
		     host_ret == -ENOENT || host_ret == -EINVAL ?
		     " (refused before the level check: not in this kernel)" :
		     "");
		assert_ret(g_ret, host_ret);
		if (k == TRY_USER_TASK)
			assert_ret(g_ret, 0);
		else
			assert_true(g_ret < 0);
	}
}

/* --- a race ----------------------------------------------------------- */

struct race {
	int seconds;
};

/*
 * In G: raise G's level to 3 and read it back, in a loop. val[0]: reads,
 * val[1]: reads below 2, val[2]: raises, val[3]: the lowest level read.
 */
static int fn_raise_loop(const void *arg, int in_fd, struct out *out)
{
	const struct race *r = arg;
	time_t end = time(NULL) + r->seconds;
	int level, err;

	(void)in_fd;
	out->val[3] = INT_MAX;
	while (time(NULL) < end) {
		if (!write_file(USER_PATH, "3"))
			out->val[2]++;
		err = read_int(USER_PATH, &level);
		if (err) {
			snprintf(out->msg, sizeof(out->msg), "reading %s: %s",
				 USER_PATH, strerrorname_np(-err));
			return err;
		}
		out->val[0]++;
		if (level < 2)
			out->val[1]++;
		if (level < out->val[3])
			out->val[3] = level;
	}
	return 0;
}

/*
 * Rules 12 and 16 under concurrency: the host grants and revokes in a loop
 * while the tenant raises; the tenant never reads below 2, the host reads 3
 * after every revoke, and a sandbox made before the grant is at 3 at the
 * end, under the host's level and floor.
 */
static void grant_revoke_race_with_tenant_raises(void **state)
{
	struct fixture *f = *state;
	struct race r = { .seconds = 10 };
	struct ns_perf_paranoid p;
	struct agent *g, *sandbox;
	long cycles = 0, low = 0;
	struct out out;
	time_t end;
	int gfd;

	lock_host();
	g = fixture_add(f, container_new());
	sandbox = fixture_add(f, nested_new(g));
	gfd = ns_fd(f, g);
	call_start(g, AS_ROOT, fn_raise_loop, &r, sizeof(r));
	end = time(NULL) + r.seconds;
	while (time(NULL) < end) {
		assert_ret(ns_grant(gfd, 2), 0);
		assert_ret(ns_get(gfd, &p), 0);
		low += p.level < 2;
		assert_ret(ns_revoke(gfd), 0);
		assert_ret(ns_get(gfd, &p), 0);
		low += p.level != 3;
		cycles++;
	}
	assert_ret(call_finish(g, &out, AGENT_TIMEOUT_MS), 0);
	diag("%ld grant/revoke cycles; the tenant read %ld times (%ld below 2, "
	     "lowest %ld) and raised %ld times", cycles, out.val[0],
	     out.val[1], out.val[3], out.val[2]);
	assert_true(cycles > 0 && out.val[0] > 0 && out.val[2] > 0);
	assert_ret(out.val[1], 0);
	assert_true(out.val[3] >= 2);
	assert_ret(low, 0);
	assert_level(sandbox, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		GTEST(grant_anchors_g_below_host_and_floor),
		GTEST(revoke_reaches_the_whole_subtree),
		GTEST(revoke_gives_back_a_lock_set_before_the_grant),
		GTEST(revoke_of_a_namespace_that_set_nothing_lets_it_follow),
		GTEST(revoke_keeps_a_level_the_tenant_raised_to),
		GTEST(grant_min_bounds_and_suspends_grants),
		GTEST(grant_min_is_written_by_the_host_only),
		GTEST(grant_min_3_and_floor_3_lock_every_namespace),
		GTEST(ioctl_size_comes_from_the_number),
		GTEST(grant_and_revoke_are_logged),
		GTEST(only_host_cap_sys_admin_grants),
		GTEST(grant_refuses_the_host_and_other_namespaces),
		GTEST(nested_grants_in_either_order_end_the_same),
		GTEST(the_owner_of_g_profiles_only_inside_it),
		GTEST(a_grant_covers_the_tasks_in_g),
		GTEST(inside_g_the_tenant_only_raises),
		GTEST(siblings_and_host_users_stay_locked),
		GTEST(events_survive_a_revoke),
		GTEST(g_at_2_is_no_more_than_host_at_2),
		GTEST(grant_revoke_race_with_tenant_raises),
	};

	return RUN_TESTS("paranoid_grant", tests);
}
