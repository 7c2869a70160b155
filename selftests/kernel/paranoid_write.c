// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_write - who may write a namespace's level, and which values:
 * -1 to 3, raise only outside the initial namespace (writing the level in
 * force locks it), CAP_SYS_ADMIN over the namespace to write
 * user.perf_event_paranoid (contract points 5 and 6); the host's
 * kernel.perf_event_paranoid written as on a kernel without the series, and
 * refused from any other namespace; user.perf_event_paranoid read-only in
 * the initial namespace.
 *
 * write_level() writes user.perf_event_paranoid in a namespace and
 * kernel.perf_event_paranoid on the host (harness.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>

#include "harness.h"

/* Everything but CAP_SYS_ADMIN. */
#define NO_SYS_ADMIN ((struct who){ .uid = -1, \
				    .caps = ~CAP_BIT(CAP_SYS_ADMIN) })

/* Rule 6: the root of a rootless container raises its own level. */
static void rootless_container_root_can_raise_its_level(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());

	assert_ret(write_level(c, "3"), 0);
	assert_level(c, 3);
	assert_ret(host_level(), 2);
}

/*
 * Rule 6: writing the level in force again succeeds, and locks the
 * namespace there: it no longer follows the host down.
 */
static void container_root_can_write_its_level_again(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct agent *d = fixture_add(f, container_new());
	int shown = host_reach_max();
	char s[16];

	assert_ret(write_level(c, "2"), 0);
	assert_level(c, 2);
	set_host_level(1);
	assert_level(c, 2);
	assert_level(d, 1);
	set_host_level(2);
	set_level(c, 3);
	assert_ret(write_level(c, "3"), 0);
	assert_level(c, 3);
	/*
	 * The host at 4: user.perf_event_paranoid shows 3 (2 where the host
	 * counts for 2 at most), and what it shows is what writing the level
	 * in force again means; then that holds at 2 and at 1.
	 */
	set_host_level(4);
	assert_ret(read_path_as(d, AS_ROOT, USER_PATH), shown);
	snprintf(s, sizeof(s), "%d", shown);
	assert_ret(write_level(d, s), 0);
	assert_level(d, 4);
	set_host_level(2);
	assert_level(d, shown);
	assert_level(c, 3);
	set_host_level(1);
	assert_level(d, shown);
}

/*
 * Rules 6, 7: user.perf_event_paranoid takes -1 to 3 only; anything else is
 * EINVAL, also where the value would be below the level (EINVAL comes
 * before EPERM), and changes nothing.
 */
static void container_level_takes_minus_1_to_3_only(void **state)
{
	static const char *const bad[] = { "4", "7", "-2", "100",
					   "2147483647", "-2147483648",
					   "0x4", "040" };
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	unsigned int i, at;
	int ret;

	for (at = 0; at < 2; at++) {
		/* At -1, then at 3 where "-2" and INT_MIN are below it. */
		if (at == 0)
			set_host_level(-1);
		else
			set_level(c, 3);
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			ret = write_level(c, bad[i]);
			if (ret != -EINVAL)
				fail_msg("writing \"%s\" at %d: %s, not "
					 "-EINVAL", bad[i], at ? 3 : -1,
					 ret_str(ret));
		}
		assert_level(c, at ? 3 : -1);
		set_host_level(2);
	}
	set_host_level(-1);
	assert_level(c, 3);
}

/* Rule 6: lowering fails with EPERM and changes nothing. */
static void container_root_cannot_lower_its_level(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());

	set_level(c, 3);
	assert_ret(write_level(c, "2"), -EPERM);
	assert_level(c, 3);
	assert_ret(write_level(c, "0"), -EPERM);
	assert_ret(write_level(c, "-1"), -EPERM);
	assert_level(c, 3);
	assert_ret(host_level(), 2);
}

/*
 * Rule 6: the floor is the effective level, inherited ones included: the
 * host's, as far as it counts. With the host at 3, 2 is below the level
 * where the host counts as it is; where it counts for 2 at most, 2 is the
 * level in force, and writing it locks the container at 2.
 */
static void container_root_cannot_go_below_host_level(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	int reach = host_reach_max();

	assert_ret(write_level(c, "1"), -EPERM);
	set_host_level(3);
	assert_ret(read_path_as(c, AS_ROOT, USER_PATH), reach);
	assert_ret(write_level(c, "1"), -EPERM);
	assert_ret(write_level(c, "2"), reach == 3 ? -EPERM : 0);
	assert_level(c, 3);
	assert_ret(write_level(c, "3"), 0);
	set_host_level(2);
	assert_level(c, 3);
}

/*
 * -1, the lowest level, in a container: written at -1 it sets -1, which
 * holds nothing (the container follows the host up again); with the host
 * at 2 it is below the level (EPERM). Below -1 is no level (EINVAL).
 */
static void container_minus_1_is_the_lowest_level(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *d;

	set_host_level(-1);
	c = fixture_add(f, container_new());
	assert_level(c, -1);
	assert_ret(write_level(c, "-1"), 0);
	assert_ret(write_level(c, "-2"), -EINVAL);
	assert_ret(write_level(c, "-2147483648"), -EINVAL);
	assert_level(c, -1);
	set_host_level(2);
	assert_level(c, 2);
	d = fixture_add(f, container_new());
	assert_ret(write_level(d, "-1"), -EPERM);
	assert_level(d, 2);
}

/* Rule 6: the same in a namespace nested in a container. */
static void nested_root_cannot_lower_its_level(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n;

	set_host_level(0);
	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	set_level(n, 2);
	assert_ret(write_level(n, "1"), -EPERM);
	assert_ret(write_level(n, "0"), -EPERM);
	assert_level(n, 2);
	assert_ret(write_level(n, "2"), 0);
	assert_ret(write_level(n, "3"), 0);
	assert_level(n, 3);
	assert_level(c, 0);
}

/* A nested root cannot undo the level of the container it lives in. */
static void nested_root_cannot_go_below_its_parents_level(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct agent *n = fixture_add(f, nested_new(c));

	set_level(c, 3);
	assert_level(n, 3);
	assert_ret(write_level(n, "2"), -EPERM);
	assert_ret(write_level(n, "1"), -EPERM);
	assert_level(n, 3);
	assert_ret(write_level(n, "3"), 0);
	assert_level(c, 3);
}

/* Rule 6: raising a child never changes its parent or the host. */
static void raising_child_never_changes_parent(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n, *m;

	set_host_level(0);
	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	m = fixture_add(f, nested_new(n));
	set_level(m, 3);
	assert_level(n, 0);
	assert_level(c, 0);
	set_level(n, 2);
	assert_level(c, 0);
	assert_level(m, 3);
	set_level(c, 1);
	assert_level(n, 2);
	assert_ret(host_level(), 0);
}

/*
 * A container whose root is the host's root (unshare -U -r run by root):
 * its writes go to its own namespace, never to the host.
 */
static void root_mapped_container_raise_leaves_host_alone(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, agent_userns(NULL, 0, 1));

	assert_ret(write_level(c, "3"), 0);
	assert_level(c, 3);
	assert_ret(host_level(), 2);
	assert_ret(write_level(c, "1"), -EPERM);
	assert_ret(host_level(), 2);
}

/*
 * kernel.perf_event_paranoid written from any namespace but the initial
 * one: EPERM, and nothing changes, neither the host nor the namespace. The
 * root of a namespace mapped to the host's root (and of one nested in it)
 * is uid 0 to the file's owner check, so the write itself is refused; any
 * value, the level in force and junk included.
 */
static void root_mapped_namespace_cannot_write_kernel_file(void **state)
{
	static const char *const values[] = { "3", "2", "1", "-1", "9\n",
					      "abc", "" };
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, agent_userns(NULL, 0, 1));
	struct agent *n = fixture_add(f, agent_userns(c, 0, 1));
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(values); i++) {
		assert_ret(write_path_as(c, AS_ROOT, PARANOID_PATH, values[i]),
			   -EPERM);
		assert_ret(write_path_as(n, AS_ROOT, PARANOID_PATH, values[i]),
			   -EPERM);
	}
	assert_level(c, 2);
	assert_level(n, 2);
	assert_ret(host_level(), 2);
	/* The same through a descriptor opened for writing there. */
	assert_ret(open_path_as(c, AS_ROOT, PARANOID_PATH, O_WRONLY, &fd), 0);
	fixture_fd(f, fd);
	set_level(c, 3);
	assert_ret(write_path_as(c, AS_ROOT, PARANOID_PATH, "4"), -EPERM);
	assert_level(c, 3);
	assert_ret(host_level(), 2);
	/* The host writes through it as through its own. */
	assert_ret(fd_write_str(fd, "4"), 0);
	assert_ret(host_level(), 4);
	assert_level(c, 4);
}

/*
 * The root of a rootless container is uid 100000 on the host: it cannot
 * even open the host's file for writing (0644, owned by the host's root).
 */
static void container_root_cannot_open_kernel_file_for_writing(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	int fd;

	assert_ret(open_path_as(c, AS_ROOT, PARANOID_PATH, O_WRONLY, NULL),
		   -EACCES);
	assert_ret(open_path_as(c, AS_ROOT, PARANOID_PATH, O_RDWR, &fd),
		   -EACCES);
	assert_level(c, 2);
	assert_ret(host_level(), 2);
}

/*
 * user.perf_event_paranoid in the initial namespace is read-only, for the
 * host's root too: it shows the host's level as the level in force counts
 * it (up to host_reach_max()), which is written only through
 * kernel.perf_event_paranoid.
 */
static void initial_ns_user_file_is_read_only(void **state)
{
	int fd, ret;

	(void)state;
	assert_ret(open_path_as(NULL, AS_ROOT, USER_PATH, O_WRONLY, NULL),
		   -EACCES);
	assert_ret(open_path_as(NULL, AS_ROOT, USER_PATH, O_RDWR, &fd),
		   -EACCES);
	assert_ret(open_path_as(NULL, AS_NOBODY, USER_PATH, O_WRONLY, NULL),
		   -EACCES);
	ret = access(USER_PATH, W_OK) ? -errno : 0;
	assert_ret(ret, -EACCES);
	assert_ret(path_read_level(USER_PATH), 2);
	assert_ret(host_level(), 2);
	/* The host at 3: 3, or 2 where the host counts for 2 at most. */
	set_host_level(3);
	assert_ret(path_read_level(USER_PATH), host_reach_max());
	assert_ret(read_path_as(NULL, AS_NOBODY, USER_PATH), host_reach_max());
	assert_ret(host_level(), 3);
	set_host_level(-1);
	assert_ret(path_read_level(USER_PATH), -1);
	/* Within -1 to 3, as in every namespace. */
	set_host_level(4);
	assert_ret(path_read_level(USER_PATH), host_reach_max());
	set_host_level(-2);
	assert_ret(read_path_as(NULL, AS_NOBODY, USER_PATH), -1);
}

/* Rule 6: the initial namespace takes any int, lower ones included. */
static void host_accepts_any_int(void **state)
{
	static const int levels[] = { 4, -1, 0, 1, 3, 100, INT_MAX,
				      INT_MIN, -5, 2 };
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(levels); i++)
		set_host_level(levels[i]);
}

/*
 * Rule 5: a task in the container without CAP_SYS_ADMIN cannot open
 * user.perf_event_paranoid for writing (EACCES) but can open it for
 * reading.
 */
static void container_task_without_cap_sys_admin_cannot_write(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	int fd;

	set_level(c, 3);
	assert_ret(open_level_as(c, NO_SYS_ADMIN, O_WRONLY, NULL), -EACCES);
	assert_ret(open_level_as(c, NO_SYS_ADMIN, O_RDWR, &fd),
		   -EACCES);
	assert_level(c, 3);
	assert_ret(host_level(), 2);
}

static void container_task_without_cap_sys_admin_can_read(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());

	assert_ret(read_level_as(c, NO_SYS_ADMIN), 2);
	set_level(c, 3);
	assert_ret(read_level_as(c, NO_SYS_ADMIN), 3);
	set_host_level(4);
	assert_ret(read_level_as(c, NO_SYS_ADMIN), 4);
}

/* Rule 5: a non-root user of the container can read, not write. */
static void container_unprivileged_user_can_read_not_write(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct who user = { .uid = 1000, .caps = 0 };

	set_level(c, 3);
	assert_ret(open_level_as(c, user, O_WRONLY, NULL), -EACCES);
	assert_ret(read_level_as(c, user), 3);
	assert_level(c, 3);
}

/* Rule 5: in a container too, CAP_SYS_ADMIN decides, not uid 0. */
static void container_user_with_only_cap_sys_admin_can_raise(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct who admin = { .uid = 1000, .caps = CAP_BIT(CAP_SYS_ADMIN) };

	assert_ret(write_level_as(c, admin, "3"), 0);
	assert_level(c, 3);
	assert_ret(write_level_as(c, admin, "2"), -EPERM);
	assert_ret(host_level(), 2);
}

/*
 * As on a kernel without the series: the host's kernel.perf_event_paranoid
 * is 0644 and owned by root, and proc_dointvec() checks nothing more, so
 * uid 0 writes it without CAP_SYS_ADMIN.
 */
static void host_root_without_cap_sys_admin_can_change_host_level(
	void **state)
{
	(void)state;
	assert_ret(write_level_as(NULL, NO_SYS_ADMIN, "3"), 0);
	assert_ret(host_level(), 3);
	assert_ret(read_level_as(NULL, NO_SYS_ADMIN), 3);
	assert_ret(write_level_as(NULL, NO_SYS_ADMIN, "1"), 0);
	assert_ret(host_level(), 1);
	assert_ret(write_level_as(NULL, NO_SYS_ADMIN, "-1"), 0);
	assert_ret(host_level(), -1);
}

/*
 * As on a kernel without the series: CAP_SYS_ADMIN alone does not pass the
 * owner check, so uid 65534 with it cannot open the file for writing.
 */
static void host_user_with_cap_sys_admin_cannot_change_host_level(
	void **state)
{
	struct who admin = { .uid = NOBODY, .caps = CAP_BIT(CAP_SYS_ADMIN) };

	(void)state;
	assert_ret(open_level_as(NULL, admin, O_WRONLY, NULL), -EACCES);
	assert_ret(open_level_as(NULL, admin, O_RDWR, NULL), -EACCES);
	assert_ret(host_level(), 2);
	assert_ret(read_level_as(NULL, admin), 2);
}

static void host_unprivileged_user_cannot_change_host_level(void **state)
{
	(void)state;
	assert_ret(open_level_as(NULL, AS_NOBODY, O_WRONLY, NULL), -EACCES);
	assert_ret(read_level_as(NULL, AS_NOBODY), 2);
	assert_ret(host_level(), 2);
}

/*
 * Rules 5, 6: a runtime on the host (root, CAP_SYS_ADMIN in the initial
 * namespace) that setns() into the container's user namespace writes the
 * container's level through user.perf_event_paranoid: it can raise it and
 * still cannot lower it. kernel.perf_event_paranoid, which that task still
 * opens as uid 0, refuses it with EPERM, and shows the container's level.
 */
static void runtime_setns_into_container_can_raise_not_lower(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct out out;
	int nsfd = fixture_fd(f, agent_userns_fd(c));

	assert_ret(setns_write_as(NULL, AS_ROOT, nsfd, USER_PATH, "3", "2",
				  &out), 0);
	assert_ret(out.val[0], 0);
	assert_ret(out.val[1], -EPERM);
	assert_ret(out.val[2], 3);
	assert_ret(out.val[3], 3);
	assert_level(c, 3);
	assert_ret(host_level(), 2);

	assert_ret(setns_write_as(NULL, AS_ROOT, nsfd, PARANOID_PATH, "3", "1",
				  &out), 0);
	assert_ret(out.val[0], -EPERM);
	assert_ret(out.val[1], -EPERM);
	assert_ret(out.val[2], 3);
	assert_ret(out.val[3], 3);
	assert_level(c, 3);
	assert_ret(host_level(), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(rootless_container_root_can_raise_its_level),
		TEST(container_root_can_write_its_level_again),
		TEST(container_level_takes_minus_1_to_3_only),
		TEST(container_root_cannot_lower_its_level),
		TEST(container_root_cannot_go_below_host_level),
		TEST(container_minus_1_is_the_lowest_level),
		TEST(nested_root_cannot_lower_its_level),
		TEST(nested_root_cannot_go_below_its_parents_level),
		TEST(raising_child_never_changes_parent),
		TEST(root_mapped_container_raise_leaves_host_alone),
		TEST(root_mapped_namespace_cannot_write_kernel_file),
		TEST(container_root_cannot_open_kernel_file_for_writing),
		TEST(initial_ns_user_file_is_read_only),
		TEST(host_accepts_any_int),
		TEST(container_task_without_cap_sys_admin_cannot_write),
		TEST(container_task_without_cap_sys_admin_can_read),
		TEST(container_unprivileged_user_can_read_not_write),
		TEST(container_user_with_only_cap_sys_admin_can_raise),
		TEST(host_root_without_cap_sys_admin_can_change_host_level),
		TEST(host_user_with_cap_sys_admin_cannot_change_host_level),
		TEST(host_unprivileged_user_cannot_change_host_level),
		TEST(runtime_setns_into_container_can_raise_not_lower),
	};

	return RUN_TESTS("paranoid_write", tests);
}
