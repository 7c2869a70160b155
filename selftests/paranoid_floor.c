// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_floor - kernel.perf_event_paranoid_userns, the userns floor
 * (issue 10): one value per user namespace that every user namespace below
 * it is held to, so that one line in sysctl.d locks every container and
 * sandbox while the host keeps its level.
 *
 * What is tested, through the real files /proc/sys/kernel/
 * perf_event_paranoid{,_userns} (the floor F, the level in force E):
 *   - E(N) = max(own levels of N and its ancestors, F of its strict
 *     ancestors): a floor never applies to its own namespace;
 *   - raising a floor reaches existing descendants at once; a new
 *     namespace's own level is its E at creation, so lowering a floor never
 *     unlocks one created under it, and one created before follows it down;
 *   - the floor file reads max(E(N), F of N and of each ancestor): the level
 *     a namespace created in N starts at (2 on a host at 2 with no floor, 3
 *     with the floor at 3, 4 with the host at 4);
 *   - writes: CAP_SYS_ADMIN over the namespace (uid 0 without it refused),
 *     any int in the initial namespace (INT_MIN: no floor, the boot value),
 *     only raising elsewhere (EPERM below what it reads, nothing changed),
 *     EINVAL on junk (nothing changed), descriptors bound to the namespace
 *     they were opened in, also when passed to the host and back;
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

#define FLOOR_PATH	"/proc/sys/kernel/perf_event_paranoid_userns"
#define FLOOR_KEY	"kernel.perf_event_paranoid_userns"
#define NO_FLOOR	INT_MIN		/* what the initial namespace boots with */

/* A host developer: uid 1000, no capabilities. */
#define DEVELOPER	((struct who){ .uid = 1000, .caps = 0 })
#define NO_SYS_ADMIN	((struct who){ .uid = -1, \
				       .caps = ~CAP_BIT(CAP_SYS_ADMIN) })
#define AS_DEV_SH	"setpriv --reuid=1000 --regid=1000 --clear-groups "

static const struct perf_req user_only = { .kind = PERF_TASK };

/* --- the floor file --------------------------------------------------- */

static int read_floor_as(struct agent *a, struct who w)
{
	return read_path_as(a, w, FLOOR_PATH);
}

static int read_floor(struct agent *a)
{
	return read_floor_as(a, AS_ROOT);
}

static int write_floor_as(struct agent *a, struct who w, const char *s)
{
	return write_path_as(a, w, FLOOR_PATH, s);
}

static int write_floor(struct agent *a, const char *s)
{
	return write_floor_as(a, AS_ROOT, s);
}

#define assert_floor(a, v)	assert_ret(read_floor(a), (v))

/* Write @v to the floor of @a (NULL: the host) as its root, asserting. */
#define set_floor(a, v)							\
	do {								\
		char __s[16];						\
		snprintf(__s, sizeof(__s), "%d", (v));			\
		assert_ret(write_floor((a), __s), 0);			\
	} while (0)

static void set_host_floor(int v)
{
	char s[16];

	snprintf(s, sizeof(s), "%d", v);
	assert_ret(path_write_level(FLOOR_PATH, s), 0);
}

/* The floor, if this kernel has it: 0, or a message and -1. */
static int floor_present(void)
{
	if (access(FLOOR_PATH, F_OK) == 0)
		return 0;
	diag("%s: %m: this kernel has no userns floor "
	     "(kernel.perf_event_paranoid_userns, issue 10)", FLOOR_PATH);
	return -1;
}

/* Every test starts and ends with no floor on the host. */
static int floor_setup(void **state)
{
	if (fixture_setup(state) || floor_present())
		return -1;
	if (path_write_level(FLOOR_PATH, "-2147483648")) {
		diag("could not clear the host's floor");
		return -1;
	}
	return 0;
}

static int floor_teardown(void **state)
{
	int ret = 0, err;

	if (!floor_present()) {
		err = path_write_level(FLOOR_PATH, "-2147483648");
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
 * Contract 1 and 6: the floor at boot. Without the command line parameter
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

/* Contract 4: host at 2 and no floor reads 2; floor 3 reads 3; host 4, 4. */
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

/* Contract 2: the host's floor never applies to the host itself. */
static void floor_never_applies_to_its_own_namespace(void **state)
{
	(void)state;
	set_host_floor(3);
	assert_ret(host_level(), 2);
	assert_ret(read_level_as(NULL, DEVELOPER), 2);
	assert_ret(perf_open_as(NULL, DEVELOPER, &user_only), 0);
	set_host_floor(INT_MAX);
	assert_ret(host_level(), 2);
	assert_ret(perf_open_as(NULL, DEVELOPER, &user_only), 0);
}

/*
 * Contract 2: the picture of the issue. The host at 2, its floor at 3: a
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
 * and its root can lower neither the level nor the floor.
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
	assert_ret(write_floor(c, "2"), -EPERM);
	assert_level(c, 3);
	assert_floor(c, 3);
	assert_ret(perf_open_as(NULL, DEVELOPER, &user_only), 0);
}

/* --- raising and lowering --------------------------------------------- */

/*
 * Contract 3: raising the floor reaches namespaces that exist already, at
 * once, through descriptors opened before too.
 */
static void raising_floor_reaches_existing_descendants_at_once(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n;
	int cfd, nfd;

	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	assert_ret(open_level_as(c, AS_ROOT, O_RDONLY, &cfd), 0);
	fixture_fd(f, cfd);
	assert_ret(open_level_as(n, AS_ROOT, O_RDONLY, &nfd), 0);
	fixture_fd(f, nfd);
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
 * Contract 3: a namespace created while the floor was 3 keeps 3 as its own
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
 * Contract 2 and 4, nested: a container's own floor applies to the
 * namespaces below it, not to itself, and its floor file reads the largest
 * of its level and the floors of itself and its ancestors.
 */
static void container_floor_applies_below_it_not_to_it(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n, *m;

	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	assert_floor(c, 2);
	set_floor(c, 4);
	assert_floor(c, 4);
	assert_level(c, 2);
	assert_ret(perf_open_as(c, AS_ROOT, &user_only), 0);
	assert_level(n, 4);
	assert_floor(n, 4);
	assert_ret(perf_open_as(n, AS_ROOT, &user_only), -EACCES);
	/* One created now starts at 4 and keeps it. */
	m = fixture_add(f, nested_new(c));
	assert_level(m, 4);
	/* The host and its floor do not see the container's floor. */
	assert_ret(host_level(), 2);
	assert_floor(NULL, 2);
}

/*
 * Contract 2 and 4 along a chain host > c > n > m, floors at two depths:
 * each namespace is held to the floors of its strict ancestors only, and
 * each floor file reads max(level in force, the floors up to the host).
 */
static void floors_at_several_depths_of_a_chain(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n, *m;

	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	m = fixture_add(f, nested_new(n));
	set_floor(n, 5);
	set_host_floor(3);
	assert_level(c, 3);
	assert_level(n, 3);
	assert_level(m, 5);
	assert_floor(NULL, 3);
	assert_floor(c, 3);
	assert_floor(n, 5);
	assert_floor(m, 5);
	/* Above the deeper floor: the host's reaches everyone below it. */
	set_host_floor(6);
	assert_level(c, 6);
	assert_level(n, 6);
	assert_level(m, 6);
	assert_floor(n, 6);
	/* Back down: n's floor holds m, c and n follow the host's. */
	set_host_floor(NO_FLOOR);
	assert_level(c, 2);
	assert_level(n, 2);
	assert_level(m, 5);
	assert_floor(c, 2);
	assert_floor(n, 5);
	/* Levels and floors together: c's own level 4 is under n's floor. */
	set_level(c, 4);
	assert_level(n, 4);
	assert_level(m, 5);
	assert_floor(c, 4);
	assert_ret(host_level(), 2);
}

/* --- writing ---------------------------------------------------------- */

/* Contract 5: the initial namespace takes any int, INT_MIN clears it. */
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

/* Contract 5: outside the initial namespace the floor only goes up. */
static void container_root_raises_its_floor_never_lowers_it(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct agent *n = fixture_add(f, nested_new(c));

	assert_ret(write_floor(c, "2"), 0);
	assert_ret(write_floor(c, "3"), 0);
	assert_floor(c, 3);
	assert_ret(write_floor(c, "3"), 0);
	assert_ret(write_floor(c, "2"), -EPERM);
	assert_ret(write_floor(c, "-1"), -EPERM);
	assert_ret(write_floor(c, "-2147483648"), -EPERM);
	assert_floor(c, 3);
	assert_level(n, 3);
	assert_ret(write_floor(c, "5"), 0);
	assert_floor(c, 5);
	assert_level(n, 5);
	assert_level(c, 2);
	/* The nested root: the same, from what its file reads (5). */
	assert_floor(n, 5);
	assert_ret(write_floor(n, "4"), -EPERM);
	assert_ret(write_floor(n, "5"), 0);
	assert_ret(write_floor(n, "6"), 0);
	assert_floor(n, 6);
	assert_floor(c, 5);
	assert_floor(NULL, 2);
	assert_ret(host_level(), 2);
}

/*
 * Contract 5: "below what the file reads" counts the level in force and
 * the ancestors' floors, not only the namespace's own floor.
 */
static void container_floor_cannot_go_below_what_it_reads(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());

	assert_ret(write_floor(c, "1"), -EPERM);
	set_host_floor(3);
	assert_floor(c, 3);
	assert_ret(write_floor(c, "2"), -EPERM);
	assert_ret(write_floor(c, "3"), 0);
	set_host_level(4);
	assert_floor(c, 4);
	assert_ret(write_floor(c, "3"), -EPERM);
	assert_ret(write_floor(c, "4"), 0);
	set_level(c, 5);
	assert_floor(c, 5);
	assert_ret(write_floor(c, "4"), -EPERM);
	assert_floor(c, 5);
}

/*
 * Contract 5: CAP_SYS_ADMIN over the namespace decides, not uid 0: root
 * without it can neither open the file for writing nor write, on the host
 * and in a container; a user with only CAP_SYS_ADMIN can.
 */
static void uid_0_without_cap_sys_admin_cannot_write_floor(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct who admin = { .uid = 1000, .caps = CAP_BIT(CAP_SYS_ADMIN) };
	int fd;

	assert_ret(write_floor_as(NULL, NO_SYS_ADMIN, "3"), OPEN_ERR(EACCES));
	assert_ret(write_floor_as(NULL, NO_SYS_ADMIN, "-1"), OPEN_ERR(EACCES));
	assert_ret(write_floor_as(c, NO_SYS_ADMIN, "3"), OPEN_ERR(EACCES));
	assert_ret(open_path_as(c, NO_SYS_ADMIN, FLOOR_PATH, O_RDWR, &fd),
		   -EACCES);
	assert_floor(NULL, 2);
	assert_floor(c, 2);
	assert_ret(read_floor_as(NULL, NO_SYS_ADMIN), 2);
	assert_ret(read_floor_as(c, NO_SYS_ADMIN), 2);
	/* Host: the floor stays unset (the container still follows down). */
	set_host_level(1);
	assert_level(c, 2);
	set_host_level(2);

	assert_ret(write_floor_as(c, admin, "3"), 0);
	assert_floor(c, 3);
	assert_ret(write_floor_as(NULL, admin, "4"), 0);
	assert_floor(NULL, 4);
	assert_level(c, 4);
}

/* Contract 5: unprivileged users read the floor and cannot write it. */
static void unprivileged_users_read_floor_not_write(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct who user = { .uid = 1000, .caps = 0 };

	set_host_floor(3);
	assert_ret(read_floor_as(NULL, DEVELOPER), 3);
	assert_ret(write_floor_as(NULL, DEVELOPER, "2"), OPEN_ERR(EACCES));
	assert_ret(write_floor_as(NULL, DEVELOPER, "9"), OPEN_ERR(EACCES));
	assert_ret(read_floor_as(c, user), 3);
	assert_ret(write_floor_as(c, user, "9"), OPEN_ERR(EACCES));
	assert_floor(NULL, 3);
	assert_floor(c, 3);
}

/* Contract 5: junk is EINVAL and changes nothing, on the host and inside. */
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
	ssize_t n_written;
	unsigned int i;
	int fd;

	set_host_floor(3);
	set_floor(c, 4);
	for (i = 0; i < ARRAY_SIZE(junk); i++) {
		if (path_write_level(FLOOR_PATH, junk[i]) != -EINVAL ||
		    write_floor(c, junk[i]) != -EINVAL) {
			diag("writing \"%s\" was not EINVAL", junk[i]);
			fail();
		}
	}
	/* Junk that would also be below the floor: EINVAL first. */
	assert_ret(write_floor(c, "1x"), -EINVAL);
	/* A write at an offset other than 0. */
	assert_ret(open_path_as(c, AS_ROOT, FLOOR_PATH, O_WRONLY, &fd), 0);
	fixture_fd(f, fd);
	n_written = pwrite(fd, "5", 1, 1);
	assert_ret(n_written < 0 ? -errno : n_written, -EINVAL);
	/* Nothing changed. */
	assert_floor(NULL, 3);
	assert_floor(c, 4);
	assert_level(c, 3);
	assert_level(n, 4);
	assert_ret(host_level(), 2);
	/* What echo and sysctl write is fine. */
	assert_ret(write_floor(c, " 5\n"), 0);
	assert_floor(c, 5);
}

/* --- descriptors ------------------------------------------------------ */

static int fn_floor_through_fd(const void *arg, int in_fd, struct out *out)
{
	out->val[0] = fd_read_level(in_fd);
	return fd_write_level(in_fd, arg);
}

/*
 * Contract 5: a floor descriptor opened in a container and passed to the
 * host (SCM_RIGHTS) is the container's floor: it reads and writes that,
 * with the container's rules (raise only), never the host's. One opened on
 * the host and passed into the container is the host's: the container's
 * root reads it and cannot write through it.
 */
static void floor_descriptor_stays_bound_to_its_namespace(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	struct agent *n;
	struct out out;
	int cfd, hfd;

	set_floor(c, 3);
	assert_ret(open_path_as(c, AS_ROOT, FLOOR_PATH, O_RDWR, &cfd), 0);
	fixture_fd(f, cfd);
	assert_ret(fd_read_level(cfd), 3);
	assert_ret(fd_write_level(cfd, "2"), -EPERM);
	assert_ret(fd_write_level(cfd, "4"), 0);
	assert_ret(fd_read_level(cfd), 4);
	assert_floor(c, 4);
	assert_floor(NULL, 2);
	n = fixture_add(f, nested_new(c));
	assert_level(n, 4);
	assert_level(c, 2);
	/* The host's floor raised: the container's descriptor shows it. */
	set_host_floor(5);
	assert_ret(fd_read_level(cfd), 5);

	/* And back: the host's descriptor in the container. */
	set_host_floor(3);
	hfd = fixture_fd(f, open(FLOOR_PATH, O_RDWR | O_CLOEXEC));
	assert_ret(call_as(c, AS_ROOT, fn_floor_through_fd, "9", 2, hfd,
			   &out), -EPERM);
	assert_ret(out.val[0], 3);
	assert_ret(call_as(c, AS_ROOT, fn_floor_through_fd, "1", 2, hfd,
			   &out), -EPERM);
	assert_floor(NULL, 3);
	/* The host's descriptor is the host's: any int, lowering too. */
	assert_ret(fd_write_level(hfd, "1"), 0);
	assert_floor(NULL, 2);
	assert_floor(c, 4);
}

/*
 * A runtime on the host that setns() into the container's namespace writes
 * the container's floor, raise only, and never the host's.
 */
static int fn_setns_write_floor(const void *arg, int in_fd, struct out *out)
{
	(void)arg;
	if (setns(in_fd, CLONE_NEWUSER)) {
		snprintf(out->msg, sizeof(out->msg), "setns: %m");
		return -ENOTRECOVERABLE;
	}
	out->val[0] = path_write_level(FLOOR_PATH, "4");
	out->val[1] = path_write_level(FLOOR_PATH, "3");
	out->val[2] = path_read_level(FLOOR_PATH);
	return 0;
}

static void host_runtime_in_container_raises_its_floor(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	int nsfd = fixture_fd(f, agent_userns_fd(c));
	struct out out;

	assert_ret(call_as(NULL, AS_ROOT, fn_setns_write_floor, NULL, 0, nsfd,
			   &out), 0);
	assert_ret(out.val[0], 0);
	assert_ret(out.val[1], -EPERM);
	assert_ret(out.val[2], 4);
	assert_floor(c, 4);
	assert_floor(NULL, 2);
	assert_level(c, 2);
}

/* --- sandboxes made by real programs ---------------------------------- */

/*
 * util-linux unshare -U run by a developer, which knows nothing of perf:
 * with the floor set by sysctl(8) as a sysadmin would, the sandbox is at 3
 * and perf stat is refused; the developer outside still profiles; inside,
 * the sandbox's root (unshare -U -r) cannot lower the level or the floor.
 */
static void unshare_sandbox_locked_by_floor(void **state)
{
	(void)state;
	assert_ret(sh("sysctl -w " FLOOR_KEY "=3"), 0);
	assert_output_has(FLOOR_KEY " = 3\n");
	assert_ret(sh(AS_DEV_SH "unshare -U sh -c '"
		      "echo level=$(cat /proc/sys/kernel/perf_event_paranoid); "
		      "exec perf stat -e task-clock true'"), 255);
	assert_output_has("level=3\n");
	assert_output_has("perf_event_paranoid setting is 3");
	assert_ret(sh(AS_DEV_SH "unshare -U -r sh -c '"
		      "sysctl -w kernel.perf_event_paranoid=2; echo rc=$?; "
		      "sysctl -w " FLOOR_KEY "=2; echo frc=$?; "
		      "echo now=$(sysctl -n kernel.perf_event_paranoid)'"), 0);
	assert_output_has("rc=1\n");
	assert_output_has("frc=1\n");
	assert_output_has("now=3\n");
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
		"echo level=$(cat /proc/sys/kernel/perf_event_paranoid); "
		"exec perf stat -e task-clock true'";

	(void)state;
	assert_ret(sh(bwrap), 0);
	assert_output_has("level=2\n");
	assert_output_has("task-clock");
	assert_ret(sh("sysctl -w " FLOOR_KEY "=3"), 0);
	assert_ret(sh(bwrap), 255);
	assert_output_has("level=3\n");
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
		FTEST(container_floor_applies_below_it_not_to_it),
		FTEST(floors_at_several_depths_of_a_chain),
		FTEST(initial_ns_floor_takes_any_int),
		FTEST(container_root_raises_its_floor_never_lowers_it),
		FTEST(container_floor_cannot_go_below_what_it_reads),
		FTEST(uid_0_without_cap_sys_admin_cannot_write_floor),
		FTEST(unprivileged_users_read_floor_not_write),
		FTEST(floor_rejects_junk_and_changes_nothing),
		FTEST(floor_descriptor_stays_bound_to_its_namespace),
		FTEST(host_runtime_in_container_raises_its_floor),
		FTEST(unshare_sandbox_locked_by_floor),
		FTEST(bwrap_sandbox_locked_by_floor),
	};

	return RUN_TESTS("paranoid_floor", tests);
}
