// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_floor - kernel.perf_event_paranoid_userns, the host's floor for
 * user namespaces: one value of the initial namespace that every other user
 * namespace is held to, so that one line in sysctl.d locks every container
 * and sandbox while the host keeps its level.
 *
 * What is tested, through the real files /proc/sys/kernel/
 * perf_event_paranoid{,_userns} and /proc/sys/user/perf_event_paranoid (the
 * floor F, the level in force E):
 *   - E(N) = max(own levels of N and its ancestors, the host's level, F)
 *     for every N but the initial namespace: the floor never applies to the
 *     host itself;
 *   - the floor reaches existing namespaces at once, both ways: raising it
 *     locks them, lowering it takes every namespace that set nothing back
 *     down, whenever it was made; a namespace that wrote its level keeps it;
 *   - the floor file reads what was written, wherever it is read: -1 (no
 *     floor, the boot value) to 3, EINVAL for anything else (4, -2, INT_MAX,
 *     junk), nothing changed; writing back what it reads changes nothing
 *     (sysctl -a, then sysctl -p);
 *   - only the host has a floor: written from the initial namespace by uid 0
 *     with CAP_SYS_ADMIN (uid 0 without it: EPERM; CAP_SYS_ADMIN without
 *     uid 0: EACCES at open); from any other namespace refused (EPERM where
 *     its root is the host's uid 0, EACCES at open elsewhere), nothing
 *     changed, also through a descriptor the host opened; a runtime in a
 *     namespace locks the namespaces it makes by writing their
 *     user.perf_event_paranoid;
 *   - perf_event_open() refused under the floor while a host developer
 *     (uid 1000) profiles, in rootless containers, nested namespaces and in
 *     sandboxes made by unshare -U and bubblewrap, which know nothing of
 *     perf;
 *   - the boot command line: with sysctl.kernel.perf_event_paranoid_userns=V
 *     in /proc/cmdline the floor is V from boot (SELFTESTS_BOOT_FLOOR, read
 *     by selftests/kernel/run-suites before any test ran), without it there is none (-1).
 *
 * On a kernel without the floor every test fails, saying so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>

#include "harness.h"

#define FLOOR_KEY	"kernel.perf_event_paranoid_userns"

/* A host developer: uid 1000, no capabilities. */
#define DEVELOPER	((struct who){ .uid = 1000, .caps = 0 })
#define NO_SYS_ADMIN	((struct who){ .uid = -1, \
				       .caps = ~CAP_BIT(CAP_SYS_ADMIN) })
#define AS_DEV_SH	"setpriv --reuid=1000 --regid=1000 --clear-groups "

static const struct perf_req user_only = { .kind = PERF_TASK };

/* --- the floor file --------------------------------------------------- */

/* The floor, if this kernel has it: 0, or a message and -1. */
static int floor_present(void)
{
	if (access(FLOOR_PATH, F_OK) == 0)
		return 0;
	diag("%s: %m: this kernel has no userns floor "
	     "(kernel.perf_event_paranoid_userns)", FLOOR_PATH);
	return -1;
}

/* Every test starts and ends with no floor on the host. */
static int floor_setup(void **state)
{
	if (fixture_setup(state) || floor_present())
		return -1;
	if (clear_host_floor()) {
		diag("could not clear the host's floor");
		return -1;
	}
	return 0;
}

static int floor_teardown(void **state)
{
	int ret = 0, err;

	if (!floor_present()) {
		err = clear_host_floor();
		if (err) {
			diag("clearing the host's floor: %s", ret_str(err));
			ret = -1;
		}
	}
	return fixture_teardown(state) || ret;
}

#define FTEST(f) cmocka_unit_test_setup_teardown(f, floor_setup, \
						  floor_teardown)

/* For the test of the boot value: the floor as the kernel booted it. */
static int boot_setup(void **state)
{
	return fixture_setup(state) || floor_present() ? -1 : 0;
}

#define BOOT_TEST(f) cmocka_unit_test_setup_teardown(f, boot_setup, \
						      floor_teardown)

/* --- defaults and the boot command line ------------------------------- */

/* The value of sysctl.kernel.perf_event_paranoid_userns=V on the cmdline. */
static bool cmdline_floor(int *v)
{
	char buf[4096], *p;

	if (read_file("/proc/cmdline", buf, sizeof(buf)) <= 0)
		return false;
	p = strstr(buf, "sysctl." FLOOR_KEY "=");
	if (!p)
		return false;
	*v = atoi(p + strlen("sysctl." FLOOR_KEY "="));
	return true;
}

/*
 * Rules 1 and 10: the floor at boot. Without the command line parameter
 * there is none: the floor file reads -1, and with the host lowered to -1 a
 * new container is at -1. With sysctl.kernel.perf_event_paranoid_userns=V
 * it is V: the file reads V and a new container is at max(2, V), the host's
 * own level untouched. Runs first, before any test wrote the floor.
 */
static void floor_at_boot_is_none_or_the_command_line_value(void **state)
{
	struct fixture *f = *state;
	const char *boot = getenv("SELFTESTS_BOOT_FLOOR");
	struct agent *c;
	int v;

	if (boot)
		diag("the floor file read %s at boot", boot);
	if (cmdline_floor(&v)) {
		diag("booted with sysctl.%s=%d", FLOOR_KEY, v);
		if (boot)
			assert_ret(atoi(boot), v);
		assert_floor(NULL, v);
		assert_ret(host_level(), HOST_LEVEL);
		c = fixture_add(f, container_new());
		assert_level(c, v > HOST_LEVEL ? v : HOST_LEVEL);
		assert_floor(c, v);
		return;
	}
	if (boot)
		assert_ret(atoi(boot), NO_FLOOR);
	assert_floor(NULL, NO_FLOOR);
	set_host_level(-1);
	assert_floor(NULL, NO_FLOOR);
	c = fixture_add(f, container_new());
	assert_level(c, -1);
	assert_floor(c, NO_FLOOR);
}

/*
 * Rule 4: the floor file reads what was written, from anywhere: the host,
 * a rootless container, a namespace nested in it and one whose root is the
 * host's; whatever the host's level, above or below it.
 */
static void floor_file_reads_what_was_written_everywhere(void **state)
{
	static const int floors[] = { 3, 1, -1, 0, 2, 3 };
	struct fixture *f = *state;
	struct agent *c, *n, *r;
	unsigned int i;

	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	r = fixture_add(f, agent_userns(NULL, 0, 1));
	set_level(n, 3);
	for (i = 0; i < ARRAY_SIZE(floors); i++) {
		set_host_floor(floors[i]);
		assert_floor(NULL, floors[i]);
		assert_floor(c, floors[i]);
		assert_floor(n, floors[i]);
		assert_floor(r, floors[i]);
		assert_ret(read_floor_as(c, AS_NOBODY), floors[i]);
		assert_ret(read_floor_as(NULL, DEVELOPER), floors[i]);
	}
	/* The host's level changes nothing of it. */
	set_host_level(-1);
	assert_floor(NULL, 3);
	set_host_level(7);
	assert_floor(NULL, 3);
	assert_floor(c, 3);
	set_host_level(2);
	set_host_floor(NO_FLOOR);
	assert_floor(c, NO_FLOOR);
}

/* Rule 2: the host's floor never applies to the host itself. */
static void floor_never_applies_to_its_own_namespace(void **state)
{
	(void)state;
	set_host_floor(3);
	assert_ret(host_level(), 2);
	assert_ret(read_level_as(NULL, DEVELOPER), 2);
	assert_ret(read_path_as(NULL, DEVELOPER, USER_PATH), 2);
	assert_ret(perf_open_as(NULL, DEVELOPER, &user_only), 0);
	/* Nor with the host below it. */
	set_host_level(1);
	assert_ret(read_level_as(NULL, DEVELOPER), 1);
	assert_ret(read_path_as(NULL, DEVELOPER, USER_PATH), 1);
	assert_ret(perf_open_as(NULL, DEVELOPER,
				&(struct perf_req){ .kernel = true }), 0);
}

/*
 * Rule 2: the floor's purpose. The host at 2, its floor at 3: a
 * new rootless container and a namespace nested in it are at 3 and refused
 * perf, the host developer profiles.
 */
static void floor_locks_new_containers_host_developer_profiles(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n;

	set_host_floor(3);
	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	assert_level(c, 3);
	assert_level(n, 3);
	assert_floor(c, 3);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(c, AS_NOBODY, &user_only), -EACCES);
	assert_ret(perf_open_as(n, AS_ROOT, &user_only), -EACCES);
	assert_ret(host_level(), 2);
	assert_ret(perf_open_as(NULL, DEVELOPER, &user_only), 0);
	/* And the container cannot undo it: its level is raise only. */
	assert_ret(write_level(c, "2"), -EPERM);
	assert_level(c, 3);
}

/*
 * The rootless container of a developer: uid 1000 unshares a namespace
 * mapping only itself to root (unshare -r). Locked by the host's floor,
 * and its root can lower neither the level (EPERM) nor the floor, which
 * it cannot even open for writing (it is uid 1000 on the host).
 */
static void developer_rootless_container_locked_by_host_floor(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n;

	set_host_floor(3);
	c = fixture_add(f, agent_userns(NULL, 1000, 1));
	n = fixture_add(f, agent_userns(c, 0, 1));
	assert_level(c, 3);
	assert_level(n, 3);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(n, AS_ROOT, &user_only), -EACCES);
	assert_ret(write_level(c, "2"), -EPERM);
	assert_ret(open_floor_as(c, AS_ROOT, O_WRONLY, NULL), -EACCES);
	assert_ret(open_floor_as(n, AS_ROOT, O_WRONLY, NULL), -EACCES);
	assert_level(c, 3);
	assert_floor(c, 3);
	assert_floor(NULL, 3);
	assert_ret(perf_open_as(NULL, DEVELOPER, &user_only), 0);
}

/* --- raising and lowering --------------------------------------------- */

/*
 * Rule 2: raising the floor reaches namespaces that exist already, at
 * once, through descriptors opened before too.
 */
static void raising_floor_reaches_existing_descendants_at_once(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n;
	int cfd, nfd;

	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	cfd = fixture_level_fd(f, c);
	nfd = fixture_level_fd(f, n);
	assert_ret(fd_read_level(cfd), 2);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), 0);

	set_host_floor(3);
	assert_ret(fd_read_level(cfd), 3);
	assert_ret(fd_read_level(nfd), 3);
	assert_level(c, 3);
	assert_level(n, 3);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(n, AS_ROOT, &user_only), -EACCES);
	/* The host above the floor: its level applies. */
	set_host_level(5);
	assert_level(c, 5);
	assert_level(n, 5);
	set_host_level(2);
	assert_level(c, 3);
	assert_ret(host_level(), 2);
}

/*
 * Rules 2, 3: lowering the floor reaches every namespace that set nothing,
 * whenever it was made: one made before the floor, one made under it and
 * one nested under it all follow the floor back down, to -1 with the host
 * at -1, and profile. One made under the floor that wrote 3 stays at 3, and
 * so does one nested in it.
 */
static void lowering_floor_reaches_namespaces_that_set_nothing(void **state)
{
	struct fixture *f = *state;
	struct agent *before, *under, *nested_under, *locked, *in_locked;

	before = fixture_add(f, container_new());
	set_host_floor(3);
	under = fixture_add(f, container_new());
	nested_under = fixture_add(f, nested_new(before));
	locked = fixture_add(f, container_new());
	assert_level(before, 3);
	assert_level(under, 3);
	assert_level(nested_under, 3);
	set_level(locked, 3);
	in_locked = fixture_add(f, nested_new(locked));

	set_host_floor(2);
	assert_level(before, 2);
	assert_level(under, 2);
	assert_level(nested_under, 2);
	assert_level(locked, 3);
	set_host_floor(NO_FLOOR);
	set_host_level(-1);
	assert_level(before, -1);
	assert_level(under, -1);
	assert_level(nested_under, -1);
	assert_level(locked, 3);
	assert_level(in_locked, 3);
	assert_ret(perf_open_as(before, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(under, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(nested_under, AS_NOBODY, &user_only), 0);
	assert_ret(perf_open_as(locked, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(in_locked, AS_ROOT, &user_only), -EACCES);
	assert_floor(NULL, NO_FLOOR);
}

/*
 * Only the host has a floor: the root of a rootless container cannot open
 * the floor file for writing (it is uid 100000 on the host), the root of a
 * namespace mapped to the host's root (and of one nested in it) opens it
 * and is refused the write with EPERM. Nothing changes: no namespace below
 * them is held to anything.
 */
static void namespace_cannot_set_a_floor(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n, *r, *rn;

	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	r = fixture_add(f, agent_userns(NULL, 0, 1));
	rn = fixture_add(f, agent_userns(r, 0, 1));
	assert_ret(open_floor_as(c, AS_ROOT, O_WRONLY, NULL), -EACCES);
	assert_ret(open_floor_as(n, AS_ROOT, O_WRONLY, NULL), -EACCES);
	assert_ret(write_floor(r, "3"), -EPERM);
	assert_ret(write_floor(rn, "3"), -EPERM);
	assert_floor(NULL, NO_FLOOR);
	assert_floor(c, NO_FLOOR);
	assert_floor(r, NO_FLOOR);
	assert_level(c, 2);
	assert_level(n, 2);
	assert_level(rn, 2);
	assert_ret(perf_open_as(n, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(rn, AS_ROOT, &user_only), 0);
	/* Namespaces created there now are at 2. */
	assert_level(fixture_add(f, nested_new(c)), 2);
	assert_level(fixture_add(f, agent_userns(r, 0, 1)), 2);
	assert_ret(host_level(), 2);
}

/*
 * A runtime inside a container locks the namespaces it creates the way a
 * runtime on the host does: its root setns() into the new namespace (which
 * it owns) and writes that namespace's user.perf_event_paranoid. The level
 * applies to that namespace and the ones below it, also when the host goes
 * lower, not to the runtime's own namespace nor to its other children; the
 * floor file cannot be written from there.
 */
static void nested_runtime_locks_its_children_by_their_user_file(
	void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n, *sib, *m;
	struct out out;
	int nsfd;

	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	sib = fixture_add(f, nested_new(c));
	nsfd = fixture_fd(f, agent_userns_fd(n));
	assert_ret(setns_write_as(c, AS_ROOT, nsfd, USER_PATH, "3", "2", &out),
		   0);
	assert_ret(out.val[0], 0);
	assert_ret(out.val[1], -EPERM);
	assert_ret(out.val[2], 3);
	assert_ret(out.val[3], 3);
	assert_level(n, 3);
	assert_level(c, 2);
	assert_level(sib, 2);
	assert_ret(perf_open_as(n, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(sib, AS_ROOT, &user_only), 0);
	/* One created in the locked namespace is held there. */
	m = fixture_add(f, nested_new(n));
	assert_level(m, 3);
	set_host_level(1);
	assert_level(c, 1);
	assert_level(sib, 1);
	assert_level(n, 3);
	assert_level(m, 3);
	assert_ret(perf_open_as(m, AS_ROOT, &user_only), -EACCES);
	/* The floor file: the container's root is uid 100000 on the host. */
	assert_ret(setns_open_as(c, AS_ROOT, nsfd, FLOOR_PATH, O_WRONLY),
		   -EACCES);
	assert_ret(setns_open_as(c, AS_ROOT, nsfd, FLOOR_PATH, O_RDWR),
		   -EACCES);
	assert_level(n, 3);
	assert_floor(n, NO_FLOOR);
	assert_floor(NULL, NO_FLOOR);
	assert_ret(host_level(), 1);
}

/*
 * Rule 2 along a chain host > c > n > m, the host's floor and levels set at
 * two depths: each namespace is held to the levels of itself and its
 * ancestors, to the host's level and to the floor, both ways.
 */
static void floor_and_levels_along_a_chain(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n, *m;

	set_host_level(0);
	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	m = fixture_add(f, nested_new(n));
	set_level(n, 2);
	set_host_floor(1);
	assert_level(c, 1);
	assert_level(n, 2);
	assert_level(m, 2);
	/* Above the level set in n: the floor reaches everyone. */
	set_host_floor(3);
	assert_level(c, 3);
	assert_level(n, 3);
	assert_level(m, 3);
	/* Back down: n's level holds n and m, c follows the host. */
	set_host_floor(NO_FLOOR);
	assert_level(c, 0);
	assert_level(n, 2);
	assert_level(m, 2);
	/* c's own level 1 is under n's 2. */
	set_level(c, 1);
	assert_level(n, 2);
	assert_level(m, 2);
	set_host_floor(0);
	assert_level(c, 1);
	set_host_level(-1);
	assert_level(c, 1);
	assert_level(m, 2);
	assert_ret(host_level(), -1);
}

/* --- writing ---------------------------------------------------------- */

/*
 * Rule 6: the floor takes -1 to 3, lowering too (-1: no floor); anything
 * else is EINVAL and changes nothing: 4, -2, INT_MAX, INT_MIN, 100.
 */
static void floor_takes_minus_1_to_3_only(void **state)
{
	static const int floors[] = { 3, -1, 0, 1, 2, 3, 1, -1 };
	static const char *const bad[] = { "4", "-2", "2147483647",
					   "-2147483648", "100", "0x4", "010",
					   "-0x2" };
	struct fixture *f = *state;
	unsigned int i;
	struct agent *c;
	int ret;

	c = fixture_add(f, container_new());
	set_host_level(-1);
	for (i = 0; i < ARRAY_SIZE(floors); i++) {
		set_host_floor(floors[i]);
		assert_level(c, floors[i]);
		assert_ret(host_level(), -1);
	}
	set_host_floor(2);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ret = path_write_level(FLOOR_PATH, bad[i]);
		if (ret != -EINVAL)
			fail_msg("writing \"%s\" to the floor: %s, not "
				 "-EINVAL", bad[i], ret_str(ret));
	}
	assert_floor(NULL, 2);
	assert_level(c, 2);
	assert_ret(host_level(), -1);
}

/*
 * The floor written from a namespace mapped to the host's root: EPERM for
 * any value, the one it reads, other ones and junk included, and nothing
 * changes; also through a descriptor opened for writing there. The host
 * writes through that same descriptor as through its own.
 */
static void floor_written_from_a_namespace_is_refused(void **state)
{
	static const char *const values[] = { "-1", "2", "3", "0", "abc", "",
					      " 3\n", "4", "-2147483648" };
	struct fixture *f = *state;
	struct agent *r = fixture_add(f, agent_userns(NULL, 0, 1));
	struct agent *rn = fixture_add(f, agent_userns(r, 0, 1));
	int before;
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(values); i++) {
		assert_ret(write_floor(r, values[i]), -EPERM);
		assert_ret(write_floor(rn, values[i]), -EPERM);
	}
	assert_floor(NULL, NO_FLOOR);
	assert_floor(r, NO_FLOOR);
	assert_floor(rn, NO_FLOOR);
	assert_level(fixture_add(f, container_new()), 2);

	set_host_floor(3);
	assert_ret(write_floor(r, "3"), -EPERM);
	assert_ret(write_floor(r, "-1"), -EPERM);
	assert_ret(write_floor(rn, "2"), -EPERM);
	assert_floor(NULL, 3);
	assert_floor(r, 3);
	assert_level(rn, 3);
	assert_level(fixture_add(f, container_new()), 3);

	assert_ret(open_path_as(r, AS_ROOT, FLOOR_PATH, O_RDWR, &fd), 0);
	fixture_fd(f, fd);
	assert_ret(write_fd_as(r, AS_ROOT, fd, "1", &before), -EPERM);
	assert_ret(before, 3);
	assert_floor(NULL, 3);
	assert_ret(fd_write_str(fd, "1"), 0);
	assert_floor(NULL, 1);
	assert_floor(r, 1);
	assert_level(rn, 2);
	assert_ret(host_level(), 2);
}

/*
 * Rule 4: the floor file is one value for the whole system: in a namespace
 * it reads what the host wrote, whatever the levels there, of the host
 * and of the namespace; the container's root cannot write it (EACCES: uid
 * 100000 on the host).
 */
static void floor_file_in_a_namespace_reads_the_hosts_value(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct agent *n;

	assert_floor(c, NO_FLOOR);
	set_host_floor(1);
	assert_floor(c, 1);
	set_host_level(4);
	assert_floor(c, 1);
	assert_level(c, 4);
	set_host_level(2);
	set_level(c, 3);
	assert_floor(c, 1);
	n = fixture_add(f, nested_new(c));
	assert_level(n, 3);
	assert_floor(n, 1);
	assert_ret(open_floor_as(c, AS_ROOT, O_WRONLY, NULL), -EACCES);
	assert_ret(open_floor_as(c, AS_ROOT, O_RDWR, NULL), -EACCES);
	assert_floor(c, 1);
	assert_floor(NULL, 1);
}

/*
 * Rule 5: the floor file is the host's root's, 0644, and the write
 * also takes CAP_SYS_ADMIN in the initial namespace: uid 0 without it
 * opens the file and is refused the write (EPERM), also through a
 * descriptor root opened; CAP_SYS_ADMIN without uid 0 does not open it
 * (EACCES), on the host or in a container; uid 0 with it writes.
 */
static void floor_takes_uid_0_and_cap_sys_admin(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct who admin = { .uid = 1000, .caps = CAP_BIT(CAP_SYS_ADMIN) };
	int before;
	int fd;

	assert_ret(write_floor_as(NULL, NO_SYS_ADMIN, "3"), -EPERM);
	assert_ret(write_floor_as(NULL, NO_SYS_ADMIN, "-1"), -EPERM);
	fd = fixture_fd(f, open(FLOOR_PATH, O_RDWR | O_CLOEXEC));
	assert_ret(write_fd_as(NULL, NO_SYS_ADMIN, fd, "3", &before), -EPERM);
	assert_ret(open_floor_as(c, NO_SYS_ADMIN, O_WRONLY, NULL), -EACCES);
	assert_ret(open_path_as(c, NO_SYS_ADMIN, FLOOR_PATH, O_RDWR, &fd),
		   -EACCES);
	assert_ret(open_floor_as(NULL, admin, O_WRONLY, NULL), -EACCES);
	assert_ret(open_floor_as(c, admin, O_WRONLY, NULL), -EACCES);
	assert_floor(NULL, NO_FLOOR);
	assert_floor(c, NO_FLOOR);
	assert_ret(read_floor_as(NULL, NO_SYS_ADMIN), NO_FLOOR);
	assert_ret(read_floor_as(c, NO_SYS_ADMIN), NO_FLOOR);
	assert_ret(read_floor_as(NULL, admin), NO_FLOOR);
	/* No floor was set: the container follows the host down to 1. */
	set_host_level(4);
	assert_level(c, 4);
	set_host_level(1);
	assert_level(c, 1);
	set_host_level(2);

	assert_ret(write_floor_as(NULL, AS_ROOT, "3"), 0);
	assert_floor(NULL, 3);
	assert_level(c, 3);
}

/* Rule 5: unprivileged users read the floor and cannot write it. */
static void unprivileged_users_read_floor_not_write(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct who user = { .uid = 1000, .caps = 0 };

	set_host_floor(3);
	assert_ret(read_floor_as(NULL, DEVELOPER), 3);
	assert_ret(open_floor_as(NULL, DEVELOPER, O_WRONLY, NULL), -EACCES);
	assert_ret(open_floor_as(NULL, DEVELOPER, O_RDWR, NULL), -EACCES);
	assert_ret(read_floor_as(c, user), 3);
	assert_ret(open_floor_as(c, user, O_WRONLY, NULL), -EACCES);
	assert_floor(NULL, 3);
	assert_floor(c, 3);
}

/*
 * Rule 7: junk written to the host's floor is EINVAL and changes
 * nothing (the strict parser: the whole write judged); from a namespace
 * it is EPERM, refused before it is parsed.
 */
static void floor_rejects_junk_and_changes_nothing(void **state)
{
	static const char * const junk[] = {
		"", "\n", "abc", "3abc", "+3", "3 1", "3\n1\n", "0x", "08",
		"2147483648", "-2147483649", "99999999999999999999", "-",
		"1.5", "3\v", "3\r\n", "\xa0" "3\xa0",
	};
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct agent *n = fixture_add(f, nested_new(c));
	struct agent *r = fixture_add(f, agent_userns(NULL, 0, 1));
	ssize_t n_written;
	unsigned int i;
	int fd;

	set_host_floor(1);
	set_level(n, 3);
	for (i = 0; i < ARRAY_SIZE(junk); i++) {
		if (path_write_level(FLOOR_PATH, junk[i]) != -EINVAL ||
		    write_floor(r, junk[i]) != -EPERM) {
			diag("writing \"%s\" was not EINVAL on the host and "
			     "EPERM in a namespace", junk[i]);
			fail();
		}
	}
	assert_ret(path_write_level(FLOOR_PATH, "1x"), -EINVAL);
	/* A write at an offset other than 0. */
	fd = fixture_fd(f, open(FLOOR_PATH, O_WRONLY | O_CLOEXEC));
	n_written = pwrite(fd, "3", 1, 1);
	assert_ret(n_written < 0 ? -errno : n_written, -EINVAL);
	/* Nothing changed. */
	assert_floor(NULL, 1);
	assert_floor(c, 1);
	assert_level(c, 2);
	assert_level(n, 3);
	assert_level(r, 2);
	assert_ret(host_level(), 2);
	/* What echo and sysctl write is fine. */
	assert_ret(path_write_level(FLOOR_PATH, " 3\n"), 0);
	assert_floor(NULL, 3);
	assert_level(c, 3);
	assert_ret(path_write_level(FLOOR_PATH, "\t-1 \n\n"), 0);
	assert_floor(NULL, NO_FLOOR);
	assert_level(c, 2);
}

/* --- descriptors ------------------------------------------------------ */

/*
 * The floor file is one file for the whole system: a descriptor opened in
 * a container reads the host's value on the host and in the container
 * alike, and neither the container's root (uid 100000 on the host: EPERM
 * at the write) nor the root of a namespace mapped to the host's root
 * writes through the host's; the host writes through it, lowering too.
 */
static void floor_descriptor_reads_the_same_everywhere(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct agent *r;
	int before;
	int cfd, hfd;

	set_level(c, 3);
	assert_ret(open_path_as(c, AS_ROOT, FLOOR_PATH, O_RDONLY, &cfd), 0);
	fixture_fd(f, cfd);
	assert_ret(fd_read_level(cfd), NO_FLOOR);
	assert_ret(read_fd_as(c, AS_ROOT, cfd), NO_FLOOR);
	set_host_floor(2);
	assert_ret(fd_read_level(cfd), 2);
	assert_ret(read_fd_as(c, AS_ROOT, cfd), 2);

	set_host_floor(3);
	r = fixture_add(f, agent_userns(NULL, 0, 1));
	hfd = fixture_fd(f, open(FLOOR_PATH, O_RDWR | O_CLOEXEC));
	assert_ret(fd_read_level(hfd), 3);
	assert_ret(write_fd_as(c, AS_ROOT, hfd, "3", &before), -EPERM);
	assert_ret(before, 3);
	assert_ret(write_fd_as(c, AS_ROOT, hfd, "1", &before), -EPERM);
	assert_ret(write_fd_as(r, AS_ROOT, hfd, "2", &before), -EPERM);
	assert_ret(before, 3);
	assert_floor(NULL, 3);
	assert_level(r, 3);
	/* The host's own writes through it: lowering too. */
	assert_ret(fd_write_str(hfd, "1"), 0);
	assert_floor(NULL, 1);
	assert_ret(fd_read_level(cfd), 1);
	assert_level(c, 3);
	assert_level(r, 2);
}

/*
 * A runtime on the host that setns() into a container's namespace cannot
 * write the floor from there (EPERM: it is still uid 0, past the owner
 * check); it locks the container through its user.perf_event_paranoid.
 */
static void runtime_setns_into_container_cannot_write_floor(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	int nsfd = fixture_fd(f, agent_userns_fd(c));
	struct out out;

	assert_ret(setns_write_as(NULL, AS_ROOT, nsfd, FLOOR_PATH, "3", "2",
				  &out), 0);
	assert_ret(out.val[0], -EPERM);
	assert_ret(out.val[1], -EPERM);
	assert_ret(out.val[2], 2);
	assert_floor(c, NO_FLOOR);
	assert_floor(NULL, NO_FLOOR);
	assert_level(c, 2);

	assert_ret(setns_write_as(NULL, AS_ROOT, nsfd, USER_PATH, "3", "2",
				  &out), 0);
	assert_ret(out.val[0], 0);
	assert_ret(out.val[1], -EPERM);
	assert_ret(out.val[2], 3);
	assert_ret(out.val[3], 3);
	assert_level(c, 3);
	assert_floor(c, NO_FLOOR);
	assert_floor(NULL, NO_FLOOR);
}

/* --- sandboxes made by real programs ---------------------------------- */

/*
 * util-linux unshare -U run by a developer, which knows nothing of perf:
 * with the floor set by sysctl(8) as a sysadmin would, the sandbox is at 3
 * and perf stat is refused; the developer outside still profiles; inside,
 * the sandbox's root (unshare -U -r) cannot lower the level (EPERM) and
 * cannot write the host's keys (EACCES: it is uid 1000 on the host).
 */
static void unshare_sandbox_locked_by_floor(void **state)
{
	(void)state;
	assert_ret(sh("sysctl -w " FLOOR_KEY "=3"), 0);
	assert_output_has(FLOOR_KEY " = 3\n");
	assert_ret(sh(AS_DEV_SH "unshare -U sh -c '"
		      "echo level=$(cat /proc/sys/kernel/perf_event_paranoid); "
		      "echo user=$(cat /proc/sys/user/perf_event_paranoid); "
		      "exec perf stat -e task-clock true'"), 255);
	assert_output_has("level=3\nuser=3\n");
	assert_output_has("perf_event_paranoid setting is 3");
	assert_ret(sh(AS_DEV_SH "unshare -U -r sh -c '"
		      "sysctl -w user.perf_event_paranoid=2; echo urc=$?; "
		      "sysctl -w kernel.perf_event_paranoid=2; echo rc=$?; "
		      "sysctl -w " FLOOR_KEY "=2; echo frc=$?; "
		      "echo now=$(sysctl -n kernel.perf_event_paranoid "
		      "user.perf_event_paranoid)'"), 0);
	assert_output_has("setting key \"user.perf_event_paranoid\": "
			  "Operation not permitted");
	assert_output_has("urc=1\n");
	assert_output_has("rc=1\n");
	assert_output_has("frc=1\n");
	assert_output_has("now=3 3\n");
	assert_ret(sh(AS_DEV_SH "perf stat -e task-clock true"), 0);
	assert_output_has("task-clock");
	assert_ret(host_level(), 2);
}

/*
 * bubblewrap, as flatpak and others run it: bwrap --unshare-user by the
 * developer. Locked by the floor, the developer outside profiles; without
 * a floor the same sandbox profiles (the control).
 */
static void bwrap_sandbox_locked_by_floor(void **state)
{
	static const char bwrap[] = AS_DEV_SH
		"bwrap --unshare-user --ro-bind / / sh -c '"
		"echo level=$(cat /proc/sys/kernel/perf_event_paranoid)"
		"/$(cat /proc/sys/user/perf_event_paranoid); "
		"exec perf stat -e task-clock true'";

	(void)state;
	assert_ret(sh(bwrap), 0);
	assert_output_has("level=2/2\n");
	assert_output_has("task-clock");
	assert_ret(sh("sysctl -w " FLOOR_KEY "=3"), 0);
	assert_ret(sh(bwrap), 255);
	assert_output_has("level=3/3\n");
	assert_output_has("perf_event_paranoid setting is 3");
	assert_ret(sh(AS_DEV_SH "perf stat -e task-clock true"), 0);
	assert_output_has("task-clock");
	assert_ret(host_level(), 2);
}

/*
 * What sysctl -a prints of the host's perf_event_paranoid keys, written back
 * with sysctl -p, changes no value and no behaviour: with no floor (-1 is
 * written back, which sets none: a container that set nothing still
 * follows the host down to 1 afterwards) and with the floor at 3.
 */
static void sysctl_a_written_back_changes_nothing(void **state)
{
	static const char save[] =
		"f=/tmp/selftests-floor.conf; "
		"sysctl -a 2>/dev/null | grep '^kernel\\.perf_event_paranoid' "
		">$f && cat $f && sysctl -p $f";
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());

	assert_ret(sh(save), 0);
	assert_output_has("kernel.perf_event_paranoid = 2\n");
	assert_output_has(FLOOR_KEY " = -1\n");
	assert_output_has("kernel.perf_event_paranoid_grant_min = 2\n");
	assert_floor(NULL, NO_FLOOR);
	assert_ret(host_level(), 2);
	assert_ret(path_read_level(GRANT_MIN_PATH), GRANT_MIN);
	set_host_level(1);
	assert_level(c, 1);
	set_host_level(2);

	set_host_floor(3);
	assert_ret(sh(save), 0);
	assert_output_has(FLOOR_KEY " = 3\n");
	assert_floor(NULL, 3);
	assert_ret(host_level(), 2);
	assert_ret(path_read_level(GRANT_MIN_PATH), GRANT_MIN);
	assert_level(c, 3);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(NULL, DEVELOPER, &user_only), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOOT_TEST(floor_at_boot_is_none_or_the_command_line_value),
		FTEST(floor_file_reads_what_was_written_everywhere),
		FTEST(floor_never_applies_to_its_own_namespace),
		FTEST(floor_locks_new_containers_host_developer_profiles),
		FTEST(developer_rootless_container_locked_by_host_floor),
		FTEST(raising_floor_reaches_existing_descendants_at_once),
		FTEST(lowering_floor_reaches_namespaces_that_set_nothing),
		FTEST(namespace_cannot_set_a_floor),
		FTEST(nested_runtime_locks_its_children_by_their_user_file),
		FTEST(floor_and_levels_along_a_chain),
		FTEST(floor_takes_minus_1_to_3_only),
		FTEST(floor_written_from_a_namespace_is_refused),
		FTEST(floor_file_in_a_namespace_reads_the_hosts_value),
		FTEST(floor_takes_uid_0_and_cap_sys_admin),
		FTEST(unprivileged_users_read_floor_not_write),
		FTEST(floor_rejects_junk_and_changes_nothing),
		FTEST(floor_descriptor_reads_the_same_everywhere),
		FTEST(runtime_setns_into_container_cannot_write_floor),
		FTEST(unshare_sandbox_locked_by_floor),
		FTEST(bwrap_sandbox_locked_by_floor),
		FTEST(sysctl_a_written_back_changes_nothing),
	};

	return RUN_TESTS("paranoid_floor", tests);
}
