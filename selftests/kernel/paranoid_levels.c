// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_levels - the level of each user namespace: the host's starting
 * value, a new namespace that has no level of its own and follows its
 * parent both ways, a written level that holds when the host goes lower,
 * and the effective level along the chain of ancestors (contract points 1
 * to 4), as user.perf_event_paranoid (within -1 to 3) and
 * kernel.perf_event_paranoid show it.
 *
 * In a namespace other than the initial one, read_level() reads both files
 * and fails the test when user.perf_event_paranoid does not show
 * kernel.perf_event_paranoid's level within -1 to 3; set_level() writes
 * user.perf_event_paranoid.
 *
 * The host's level above 2 counts for host_reach_max() at most (harness.h):
 * a namespace that set nothing shows min(shown_level(host),
 * host_reach_max()) in user.perf_event_paranoid, while
 * kernel.perf_event_paranoid shows the host's level as it is on both forms.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

/*
 * @a, where nothing was set (in it or above it) and there is no floor,
 * with the host at @host: kernel.perf_event_paranoid reads @host as it is,
 * user.perf_event_paranoid shows it within -1 to 3 and up to
 * host_reach_max() (on the mainline form a host at 3 shows as 2 there).
 */
static void assert_follows_host(struct agent *a, int host)
{
	int want = shown_level(host);

	if (want > host_reach_max())
		want = host_reach_max();
	assert_ret(read_path_as(a, AS_ROOT, USER_PATH), want);
	assert_level(a, host);
}

/* Rule 1: the initial namespace boots at 2 (no PERF_EVENTS_RESTRICT). */
static void initial_ns_starts_at_level_2(void **state)
{
	const char *boot = getenv("SELFTESTS_BOOT_LEVEL");

	(void)state;
	/* selftests/kernel/run-suites reads the level before any test can change it. */
	if (boot)
		assert_ret(atoi(boot), 2);
	assert_level(NULL, 2);
	assert_ret(host_level(), 2);
	/* The initial namespace's user.perf_event_paranoid shows it too. */
	assert_ret(path_read_level(USER_PATH), 2);
	assert_ret(read_path_as(NULL, AS_NOBODY, USER_PATH), 2);
}

/*
 * Rules 2, 3: a new namespace has no level of its own, so it reads its
 * parent's level, whatever that is.
 */
static void new_ns_reads_its_parents_level(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n;

	set_host_level(0);
	c = fixture_add(f, container_new());
	assert_level(c, 0);

	set_level(c, 3);
	n = fixture_add(f, nested_new(c));
	assert_level(n, 3);
	assert_ret(host_level(), 0);
}

/*
 * Rules 2, 3: a namespace that set nothing follows its parent both ways, at
 * any depth and whenever it was made. A is made at 2; the host goes to 3,
 * so A is at 3 without having a level of 3 of its own; B is made in A then.
 * When the host goes back to 2 and to 1, A and B both follow it down.
 */
static void ns_that_set_nothing_follows_its_parent_down(void **state)
{
	struct fixture *f = *state;
	struct agent *a, *b;

	a = fixture_add(f, container_new());
	assert_level(a, 2);
	set_host_level(3);
	assert_follows_host(a, 3);
	b = fixture_add(f, nested_new(a));
	assert_follows_host(b, 3);

	set_host_level(2);
	assert_level(a, 2);
	assert_level(b, 2);
	set_host_level(1);
	assert_level(a, 1);
	assert_level(b, 1);
}

/*
 * Rule 2: raising the host reaches running namespaces at once, as far as
 * the host's level counts (host_reach_max()).
 */
static void running_container_follows_host_raise(void **state)
{
	struct fixture *f = *state;
	int reach = host_reach_max();
	struct agent *c, *n;
	int cfd, nfd;

	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	/* Descriptors opened before the raise show it too. */
	cfd = fixture_level_fd(f, c);
	nfd = fixture_level_fd(f, n);
	assert_ret(fd_read_level(cfd), 2);
	assert_ret(fd_read_level(nfd), 2);

	set_host_level(3);
	assert_ret(fd_read_level(cfd), reach);
	assert_ret(fd_read_level(nfd), reach);
	assert_level(c, 3);
	assert_level(n, 3);

	/*
	 * Above 3: kernel.perf_event_paranoid shows it, user. shows 3 (2
	 * where the host counts for 2 at most).
	 */
	set_host_level(5);
	assert_level(c, 5);
	assert_level(n, 5);
	assert_ret(fd_read_level(cfd), reach);
	assert_ret(fd_read_level(nfd), reach);
	/* The initial namespace's user.perf_event_paranoid follows the host. */
	assert_ret(path_read_level(USER_PATH), reach);
}

/*
 * Rule 2: a namespace that wrote its level stays there when the host goes
 * lower, and so does every namespace below it.
 */
static void container_stays_locked_when_host_lowers(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n, *m;

	c = fixture_add(f, container_new());
	set_level(c, 3);
	n = fixture_add(f, nested_new(c));
	assert_level(n, 3);

	set_host_level(4);
	assert_level(c, 4);
	assert_level(n, 4);
	set_host_level(1);
	assert_level(c, 3);
	assert_level(n, 3);
	/* One made now, with the host at 1, is held there too. */
	m = fixture_add(f, nested_new(n));
	assert_level(m, 3);
	set_host_level(-1);
	assert_level(c, 3);
	assert_level(n, 3);
	assert_level(m, 3);
	assert_ret(host_level(), -1);
}

/*
 * Rules 2, 3: a namespace made while the host was at 3 follows the host
 * back down to 2 and below; one made at the same time that wrote 3 stays.
 */
static void ns_created_while_host_at_3_follows_it_down(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *locked;

	set_host_level(3);
	c = fixture_add(f, container_new());
	locked = fixture_add(f, container_new());
	assert_follows_host(c, 3);
	set_level(locked, 3);
	set_host_level(2);
	assert_level(c, 2);
	assert_level(locked, 3);
	set_host_level(-1);
	assert_level(c, -1);
	assert_level(locked, 3);
}

/*
 * Rule 2, the invariant: a namespace where nothing was written reads the
 * host's level at every step, up and down, above 3 and below -1 too (in
 * kernel.perf_event_paranoid; user.perf_event_paranoid shows it within -1
 * to 3 and up to host_reach_max()).
 */
static void ns_that_set_nothing_reads_the_host_level(void **state)
{
	static const int levels[] = { 3, 2, 1, 0, -1, 4, 2, -5, 1, 100, 2 };
	struct fixture *f = *state;
	struct agent *c, *n;
	unsigned int i;

	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		set_host_level(levels[i]);
		assert_follows_host(c, levels[i]);
		assert_follows_host(n, levels[i]);
	}
}

/* Rule 2: effective = max(own, parent's effective) at every depth. */
static void effective_level_is_max_along_the_chain(void **state)
{
	struct fixture *f = *state;
	struct agent *a, *b, *c;

	set_host_level(0);
	a = fixture_add(f, container_new());
	b = fixture_add(f, nested_new(a));
	c = fixture_add(f, nested_new(b));
	set_level(b, 2);
	assert_level(a, 0);
	assert_level(c, 2);
	set_level(a, 1);
	assert_level(b, 2);
	assert_level(c, 2);
	set_host_level(6);
	assert_level(a, 6);
	assert_level(b, 6);
	assert_level(c, 6);
	set_host_level(-1);
	assert_level(a, 1);
	assert_level(b, 2);
	assert_level(c, 2);
	set_level(c, 3);
	assert_level(a, 1);
	assert_level(b, 2);
	assert_level(c, 3);
}

/* Sibling namespaces do not see each other's levels. */
static void sibling_containers_are_independent(void **state)
{
	struct fixture *f = *state;
	struct agent *c1, *c2, *n1, *n2;

	set_host_level(0);
	c1 = fixture_add(f, container_new());
	c2 = fixture_add(f, container_new());
	n1 = fixture_add(f, nested_new(c1));
	n2 = fixture_add(f, nested_new(c1));
	set_level(c1, 1);
	set_level(n1, 3);
	assert_level(c2, 0);
	assert_level(n2, 1);
	assert_level(n1, 3);
	assert_ret(host_level(), 0);
}

/*
 * Rule 4: user.perf_event_paranoid shows the level of the namespace it
 * was opened in: the same path opened in three namespaces and read here on
 * the host gives three values.
 */
/*
 * The host at 1, a container at 2 and a namespace nested in it at 3; @path
 * opened for reading on the host (*hfd), in the container (*cfd) and in the
 * nested namespace (*nfd).
 */
static void open_in_three(struct fixture *f, const char *path,
			  struct agent **c, struct agent **n,
			  int *hfd, int *cfd, int *nfd)
{
	set_host_level(1);
	*c = fixture_add(f, container_new());
	*n = fixture_add(f, nested_new(*c));
	set_level(*c, 2);
	set_level(*n, 3);

	*hfd = fixture_fd(f, open(path, O_RDONLY | O_CLOEXEC));
	assert_ret(open_path_as(*c, AS_ROOT, path, O_RDONLY, cfd), 0);
	fixture_fd(f, *cfd);
	assert_ret(open_path_as(*n, AS_ROOT, path, O_RDONLY, nfd), 0);
	fixture_fd(f, *nfd);
}

static void user_file_shows_level_of_ns_it_was_opened_in(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n;
	int hfd, cfd, nfd;

	open_in_three(f, USER_PATH, &c, &n, &hfd, &cfd, &nfd);
	assert_ret(fd_read_level(hfd), 1);
	assert_ret(fd_read_level(cfd), 2);
	assert_ret(fd_read_level(nfd), 3);
	/* Read anywhere else, each still shows its namespace's level. */
	assert_ret(read_fd_as(n, AS_ROOT, hfd), 1);
	assert_ret(read_fd_as(c, AS_ROOT, nfd), 3);
}

/*
 * kernel.perf_event_paranoid shows the level in force in the namespace of
 * whoever reads it, whatever namespace it was opened in: opened in a
 * container at 2 and in a namespace nested in it at 3, read on the host
 * both show the host's 1; read in the nested namespace, 3; the host's own
 * descriptor read in the container, 2.
 */
static void kernel_file_shows_level_of_its_reader(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n;
	int hfd, cfd, nfd;

	open_in_three(f, PARANOID_PATH, &c, &n, &hfd, &cfd, &nfd);
	assert_ret(fd_read_level(hfd), 1);
	assert_ret(fd_read_level(cfd), 1);
	assert_ret(fd_read_level(nfd), 1);
	assert_ret(read_fd_as(n, AS_ROOT, cfd), 3);
	assert_ret(read_fd_as(c, AS_NOBODY, hfd), 2);
	assert_ret(read_fd_as(c, AS_ROOT, nfd), 2);
}

/*
 * user.perf_event_paranoid shows the level in force within -1 to 3, the
 * values it takes; kernel.perf_event_paranoid read in the same namespace
 * shows it as it is. The host at 7: 3 and 7; at -9: -1 and -9. (Where the
 * host counts for 2 at most, a host above 2 shows as 2.)
 */
static void user_file_shows_the_level_within_minus_1_to_3(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	int reach = host_reach_max();

	set_host_level(7);
	assert_ret(read_path_as(c, AS_ROOT, USER_PATH), reach);
	assert_ret(read_path_as(c, AS_ROOT, PARANOID_PATH), 7);
	assert_ret(path_read_level(USER_PATH), reach);
	set_host_level(-9);
	assert_ret(read_path_as(c, AS_ROOT, USER_PATH), -1);
	assert_ret(read_path_as(c, AS_ROOT, PARANOID_PATH), -9);
	assert_ret(path_read_level(USER_PATH), -1);
	set_host_level(INT_MIN);
	assert_ret(read_path_as(c, AS_NOBODY, USER_PATH), -1);
	assert_ret(read_path_as(c, AS_NOBODY, PARANOID_PATH), INT_MIN);
	set_host_level(INT_MAX);
	assert_ret(read_path_as(c, AS_NOBODY, USER_PATH), reach);
	assert_ret(read_path_as(c, AS_NOBODY, PARANOID_PATH), INT_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(initial_ns_starts_at_level_2),
		TEST(new_ns_reads_its_parents_level),
		TEST(ns_that_set_nothing_follows_its_parent_down),
		TEST(running_container_follows_host_raise),
		TEST(container_stays_locked_when_host_lowers),
		TEST(ns_created_while_host_at_3_follows_it_down),
		TEST(ns_that_set_nothing_reads_the_host_level),
		TEST(effective_level_is_max_along_the_chain),
		TEST(sibling_containers_are_independent),
		TEST(user_file_shows_level_of_ns_it_was_opened_in),
		TEST(kernel_file_shows_level_of_its_reader),
		TEST(user_file_shows_the_level_within_minus_1_to_3),
	};

	return RUN_TESTS("paranoid_levels", tests);
}
