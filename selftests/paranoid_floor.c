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
 *   - E(N) = max(own levels of N and its ancestors, F) for every N but the
 *     initial namespace: the floor never applies to the host itself;
 *   - raising the floor reaches existing namespaces at once; a new
 *     namespace's own level is its E at creation, so lowering the floor
 *     never unlocks one created under it, and one created before follows it
 *     down;
 *   - the floor file reads max(E(N), F) in N: the level a namespace created
 *     in N starts at (2 on a host at 2 with no floor, 3 with the floor at 3,
 *     4 with the host at 4);
 *   - only the host has a floor: written from the initial namespace by uid 0
 *     with CAP_SYS_ADMIN (uid 0 without it: EPERM; CAP_SYS_ADMIN without
 *     uid 0: EACCES at open), any int (INT_MIN: no floor, the boot value),
 *     EINVAL on junk (nothing changed); from any other namespace refused
 *     (EPERM where its root is the host's uid 0, EACCES at open elsewhere),
 *     nothing changed, also through a descriptor the host opened; a runtime
 *     in a namespace locks the namespaces it makes by writing their
 *     user.perf_event_paranoid;
 *   - perf_event_open() refused under the floor while a host developer
 *     (uid 1000) profiles, in rootless containers, nested namespaces and in
 *     sandboxes made by unshare -U and bubblewrap, which know nothing of
 *     perf;
 *   - the boot command line: with sysctl.kernel.perf_event_paranoid_userns=V
 *     in /proc/cmdline the floor is V from boot (SELFTESTS_BOOT_FLOOR, read
 *     by selftests/run before any test ran), without it there is none.
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
#define NO_FLOOR	INT_MIN		/* the boot value: no floor */

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
 * there is none: with the host lowered to -1 the floor file reads -1 and a
 * new container starts at -1. With sysctl.kernel.perf_event_paranoid_userns=V
 * it is V: the file reads max(2, V) and a new container starts there, the
 * host's own level untouched. Runs first, before any test wrote the floor.
 */
static void floor_at_boot_is_none_or_the_command_line_value(void **state)
{
	struct fixture *f = *state;
	const char *boot = getenv("SELFTESTS_BOOT_FLOOR");
	struct agent *c;
	int v, want;

	if (boot)
		diag("the floor file read %s at boot", boot);
	if (cmdline_floor(&v)) {
		want = v > HOST_LEVEL ? v : HOST_LEVEL;
		diag("booted with sysctl.%s=%d", FLOOR_KEY, v);
		if (boot)
			assert_ret(atoi(boot), want);
		assert_floor(NULL, want);
		assert_ret(host_level(), HOST_LEVEL);
		c = fixture_add(f, container_new());
		assert_level(c, want);
		return;
	}
	if (boot)
		assert_ret(atoi(boot), HOST_LEVEL);
	assert_floor(NULL, HOST_LEVEL);
	set_host_level(-1);
	assert_floor(NULL, -1);
	c = fixture_add(f, container_new());
	assert_level(c, -1);
	assert_floor(c, -1);
}

/* Rule 4: host at 2 and no floor reads 2; floor 3 reads 3; host 4, 4. */
static void floor_file_reads_the_level_a_new_namespace_starts_at(
	void **state)
{
	(void)state;
	assert_floor(NULL, 2);
	set_host_floor(3);
	assert_floor(NULL, 3);
	assert_ret(host_level(), 2);
	set_host_level(4);
	assert_floor(NULL, 4);
	set_host_level(2);
	assert_floor(NULL, 3);
	/* A floor below the level reads as the level. */
	set_host_floor(1);
	assert_floor(NULL, 2);
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
	set_host_floor(INT_MAX);
	assert_ret(host_level(), 2);
	assert_ret(perf_open_as(NULL, DEVELOPER, &user_only), 0);
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
	set_host_floor(5);
	assert_level(c, 5);
	assert_level(n, 5);
	assert_ret(host_level(), 2);
}

/*
 * Rule 3: a namespace created while the floor was 3 keeps 3 as its own
 * level when the floor goes down; one created before follows it back down.
 */
static void lowering_floor_unlocks_only_namespaces_made_before_it(
	void **state)
{
	struct fixture *f = *state;
	struct agent *before, *under, *nested_under;

	before = fixture_add(f, container_new());
	set_host_floor(3);
	under = fixture_add(f, container_new());
	nested_under = fixture_add(f, nested_new(before));
	assert_level(before, 3);
	assert_level(under, 3);
	assert_level(nested_under, 3);

	set_host_floor(2);
	assert_level(before, 2);
	assert_level(under, 3);
	assert_level(nested_under, 3);
	set_host_floor(NO_FLOOR);
	assert_level(before, 2);
	assert_level(under, 3);
	assert_level(nested_under, 3);
	assert_ret(perf_open_as(before, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(under, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(nested_under, AS_ROOT, &user_only), -EACCES);
	/* The host going to -1 does not unlock them either. */
	set_host_level(-1);
	assert_level(before, 2);
	assert_level(under, 3);
	assert_floor(NULL, -1);
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
	assert_ret(write_floor(r, "4"), -EPERM);
	assert_ret(write_floor(rn, "4"), -EPERM);
	assert_floor(NULL, 2);
	assert_floor(c, 2);
	assert_floor(r, 2);
	assert_level(c, 2);
	assert_level(n, 2);
	assert_level(rn, 2);
	assert_ret(perf_open_as(n, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(rn, AS_ROOT, &user_only), 0);
	/* Namespaces created there now start at 2. */
	assert_level(fixture_add(f, nested_new(c)), 2);
	assert_level(fixture_add(f, agent_userns(r, 0, 1)), 2);
	assert_ret(host_level(), 2);
}

/*
 * A runtime inside a container locks the namespaces it creates the way a
 * runtime on the host does: its root setns() into the new namespace (which
 * it owns) and writes that namespace's user.perf_event_paranoid. The level
 * applies to that namespace and the ones below it, not to the runtime's
 * own namespace nor to its other children; the floor file cannot be
 * written from there.
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
	assert_ret(setns_write_as(c, AS_ROOT, nsfd, USER_PATH, "4", "3", &out),
		   0);
	assert_ret(out.val[0], 0);
	assert_ret(out.val[1], -EPERM);
	assert_ret(out.val[2], 4);
	assert_ret(out.val[3], 4);
	assert_level(n, 4);
	assert_level(c, 2);
	assert_level(sib, 2);
	assert_ret(perf_open_as(n, AS_ROOT, &user_only), -EACCES);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), 0);
	assert_ret(perf_open_as(sib, AS_ROOT, &user_only), 0);
	/* One created in the locked namespace starts at 4 and keeps it. */
	m = fixture_add(f, nested_new(n));
	assert_level(m, 4);
	assert_floor(n, 4);
	assert_floor(c, 2);
	assert_floor(NULL, 2);
	/* The floor file: the container's root is uid 100000 on the host. */
	assert_ret(setns_open_as(c, AS_ROOT, nsfd, FLOOR_PATH, O_WRONLY),
		   -EACCES);
	assert_ret(setns_open_as(c, AS_ROOT, nsfd, FLOOR_PATH, O_RDWR),
		   -EACCES);
	assert_level(n, 4);
	assert_floor(NULL, 2);
	assert_ret(host_level(), 2);
}

/*
 * Rules 2 and 4 along a chain host > c > n > m, the host's floor and a
 * level set at one depth: each namespace is held to the levels of itself
 * and its ancestors and to the floor, and each floor file reads max(level
 * in force, the floor).
 */
static void floor_and_levels_along_a_chain(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n, *m;

	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	m = fixture_add(f, nested_new(n));
	set_level(n, 5);
	set_host_floor(3);
	assert_level(c, 3);
	assert_level(n, 5);
	assert_level(m, 5);
	assert_floor(NULL, 3);
	assert_floor(c, 3);
	assert_floor(n, 5);
	assert_floor(m, 5);
	/* Above the level set in n: the floor reaches everyone. */
	set_host_floor(6);
	assert_level(c, 6);
	assert_level(n, 6);
	assert_level(m, 6);
	assert_floor(n, 6);
	/* Back down: n's level holds n and m, c follows the floor. */
	set_host_floor(NO_FLOOR);
	assert_level(c, 2);
	assert_level(n, 5);
	assert_level(m, 5);
	assert_floor(c, 2);
	assert_floor(n, 5);
	/* c's own level 4 is under n's 5. */
	set_level(c, 4);
	assert_level(n, 5);
	assert_level(m, 5);
	assert_floor(c, 4);
	assert_ret(host_level(), 2);
}

/* --- writing ---------------------------------------------------------- */

/* Rule 6: the initial namespace takes any int, INT_MIN clears it. */
static void initial_ns_floor_takes_any_int(void **state)
{
	static const int floors[] = { 3, -1, 0, 100, INT_MAX, INT_MIN + 1,
				      1, 4 };
	struct fixture *f = *state;
	unsigned int i;
	struct agent *c;

	/* With the host at INT_MIN the file reads the floor itself. */
	set_host_level(INT_MIN);
	for (i = 0; i < ARRAY_SIZE(floors); i++) {
		set_host_floor(floors[i]);
		assert_floor(NULL, floors[i]);
		assert_ret(host_level(), INT_MIN);
	}
	/* Lowering is fine here: 4 to 1, then no floor at all. */
	set_host_floor(1);
	assert_floor(NULL, 1);
	set_host_floor(NO_FLOOR);
	assert_floor(NULL, INT_MIN);
	c = fixture_add(f, container_new());
	assert_level(c, INT_MIN);
}

/*
 * The floor written from a namespace mapped to the host's root: EPERM for
 * any value, the one it reads, higher ones and junk included, and nothing
 * changes; also through a descriptor opened for writing there. The host
 * writes through that same descriptor as through its own.
 */
static void floor_written_from_a_namespace_is_refused(void **state)
{
	static const char *const values[] = { "2", "3", "5", "-1",
					      "-2147483648", "abc", "",
					      " 4\n" };
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
	assert_floor(NULL, 2);
	assert_floor(r, 2);
	assert_floor(rn, 2);
	assert_level(fixture_add(f, container_new()), 2);

	set_host_floor(3);
	assert_ret(write_floor(r, "4"), -EPERM);
	assert_ret(write_floor(r, "3"), -EPERM);
	assert_ret(write_floor(rn, "2"), -EPERM);
	assert_floor(NULL, 3);
	assert_floor(r, 3);
	assert_level(fixture_add(f, container_new()), 3);

	assert_ret(open_path_as(r, AS_ROOT, FLOOR_PATH, O_RDWR, &fd), 0);
	fixture_fd(f, fd);
	assert_ret(write_fd_as(r, AS_ROOT, fd, "6", &before),
		   -EPERM);
	assert_ret(before, 3);
	assert_floor(NULL, 3);
	assert_ret(fd_write_str(fd, "4"), 0);
	assert_floor(NULL, 4);
	assert_floor(r, 4);
	assert_ret(host_level(), 2);
}

/*
 * Rule 4: in a namespace the floor file reads where a namespace created
 * there starts: the level in force there, the host's floor included; the
 * container's root cannot write it (EACCES: uid 100000 on the host).
 */
static void floor_file_in_a_namespace_reads_where_its_children_start(
	void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct agent *n;

	assert_floor(c, 2);
	set_host_floor(3);
	assert_floor(c, 3);
	set_host_level(4);
	assert_floor(c, 4);
	set_host_level(2);
	assert_floor(c, 3);
	set_level(c, 5);
	assert_floor(c, 5);
	n = fixture_add(f, nested_new(c));
	assert_level(n, 5);
	assert_floor(n, 5);
	assert_ret(open_floor_as(c, AS_ROOT, O_WRONLY, NULL), -EACCES);
	assert_ret(open_floor_as(c, AS_ROOT, O_RDWR, NULL), -EACCES);
	assert_floor(c, 5);
	assert_floor(NULL, 3);
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
	assert_floor(NULL, 2);
	assert_floor(c, 2);
	assert_ret(read_floor_as(NULL, NO_SYS_ADMIN), 2);
	assert_ret(read_floor_as(c, NO_SYS_ADMIN), 2);
	assert_ret(read_floor_as(NULL, admin), 2);
	/* No floor was set: the container follows the host down to 2. */
	set_host_level(4);
	assert_level(c, 4);
	set_host_level(1);
	assert_level(c, 2);
	set_host_level(2);

	assert_ret(write_floor_as(NULL, AS_ROOT, "4"), 0);
	assert_floor(NULL, 4);
	assert_level(c, 4);
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
		"", "\n", "abc", "3abc", "+4", "4 5", "4\n5\n", "0x", "08",
		"2147483648", "-2147483649", "99999999999999999999", "-",
		"1.5",
	};
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct agent *n = fixture_add(f, nested_new(c));
	struct agent *r = fixture_add(f, agent_userns(NULL, 0, 1));
	ssize_t n_written;
	unsigned int i;
	int fd;

	set_host_floor(3);
	set_level(c, 4);
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
	n_written = pwrite(fd, "5", 1, 1);
	assert_ret(n_written < 0 ? -errno : n_written, -EINVAL);
	/* Nothing changed. */
	assert_floor(NULL, 3);
	assert_floor(c, 4);
	assert_level(c, 4);
	assert_level(n, 4);
	assert_level(r, 3);
	assert_ret(host_level(), 2);
	/* What echo and sysctl write is fine. */
	assert_ret(path_write_level(FLOOR_PATH, " 5\n"), 0);
	assert_floor(NULL, 5);
	assert_level(c, 5);
}

/* --- descriptors ------------------------------------------------------ */

/*
 * The floor file is one file for the whole system: a descriptor reads what
 * its reader's namespace would give a new namespace, wherever it was
 * opened. One opened in a container reads the host's value on the host;
 * the host's read in the container reads the container's, and neither the
 * container's root (uid 100000 on the host: EPERM at the write) nor the
 * root of a namespace mapped to the host's root writes through it.
 */
static void floor_descriptor_shows_its_readers_value(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct agent *r;
	int before;
	int cfd, hfd;

	set_level(c, 4);
	assert_ret(open_path_as(c, AS_ROOT, FLOOR_PATH, O_RDONLY, &cfd), 0);
	fixture_fd(f, cfd);
	assert_ret(fd_read_level(cfd), 2);
	assert_ret(read_fd_as(c, AS_ROOT, cfd), 4);
	set_host_floor(5);
	assert_ret(fd_read_level(cfd), 5);
	assert_ret(read_fd_as(c, AS_ROOT, cfd), 5);

	set_host_floor(3);
	r = fixture_add(f, agent_userns(NULL, 0, 1));
	hfd = fixture_fd(f, open(FLOOR_PATH, O_RDWR | O_CLOEXEC));
	assert_ret(fd_read_level(hfd), 3);
	assert_ret(write_fd_as(c, AS_ROOT, hfd, "9", &before), -EPERM);
	assert_ret(before, 4);
	assert_ret(write_fd_as(c, AS_ROOT, hfd, "1", &before), -EPERM);
	assert_ret(write_fd_as(r, AS_ROOT, hfd, "9", &before), -EPERM);
	assert_ret(before, 3);
	assert_floor(NULL, 3);
	/* The host's own writes through it: any int, lowering too. */
	assert_ret(fd_write_str(hfd, "1"), 0);
	assert_floor(NULL, 2);
	assert_level(c, 4);
	assert_level(r, 3);
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

	assert_ret(setns_write_as(NULL, AS_ROOT, nsfd, FLOOR_PATH, "4", "3",
				  &out), 0);
	assert_ret(out.val[0], -EPERM);
	assert_ret(out.val[1], -EPERM);
	assert_ret(out.val[2], 2);
	assert_floor(c, 2);
	assert_floor(NULL, 2);
	assert_level(c, 2);

	assert_ret(setns_write_as(NULL, AS_ROOT, nsfd, USER_PATH, "4", "3",
				  &out), 0);
	assert_ret(out.val[0], 0);
	assert_ret(out.val[1], -EPERM);
	assert_ret(out.val[2], 4);
	assert_ret(out.val[3], 4);
	assert_level(c, 4);
	assert_floor(c, 4);
	assert_floor(NULL, 2);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOOT_TEST(floor_at_boot_is_none_or_the_command_line_value),
		FTEST(floor_file_reads_the_level_a_new_namespace_starts_at),
		FTEST(floor_never_applies_to_its_own_namespace),
		FTEST(floor_locks_new_containers_host_developer_profiles),
		FTEST(developer_rootless_container_locked_by_host_floor),
		FTEST(raising_floor_reaches_existing_descendants_at_once),
		FTEST(lowering_floor_unlocks_only_namespaces_made_before_it),
		FTEST(namespace_cannot_set_a_floor),
		FTEST(nested_runtime_locks_its_children_by_their_user_file),
		FTEST(floor_and_levels_along_a_chain),
		FTEST(initial_ns_floor_takes_any_int),
		FTEST(floor_written_from_a_namespace_is_refused),
		FTEST(floor_file_in_a_namespace_reads_where_its_children_start),
		FTEST(floor_takes_uid_0_and_cap_sys_admin),
		FTEST(unprivileged_users_read_floor_not_write),
		FTEST(floor_rejects_junk_and_changes_nothing),
		FTEST(floor_descriptor_shows_its_readers_value),
		FTEST(runtime_setns_into_container_cannot_write_floor),
		FTEST(unshare_sandbox_locked_by_floor),
		FTEST(bwrap_sandbox_locked_by_floor),
	};

	return RUN_TESTS("paranoid_floor", tests);
}
