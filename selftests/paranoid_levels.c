// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_levels - the level of each user namespace: its starting value,
 * inheritance at creation and the effective level along the chain of
 * ancestors (contract points 1 to 4), as user.perf_event_paranoid and
 * kernel.perf_event_paranoid show it.
 *
 * In a namespace other than the initial one, read_level() reads both files
 * and fails the test when they differ; set_level() writes
 * user.perf_event_paranoid.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

/* Rule 1: the initial namespace boots at 2 (no PERF_EVENTS_RESTRICT). */
static void initial_ns_starts_at_level_2(void **state)
{
	const char *boot = getenv("SELFTESTS_BOOT_LEVEL");

	(void)state;
	/* selftests/run reads the level before any test can change it. */
	if (boot)
		assert_ret(atoi(boot), 2);
	assert_level(NULL, 2);
	assert_ret(host_level(), 2);
	/* The initial namespace's user.perf_event_paranoid shows it too. */
	assert_ret(path_read_level(USER_PATH), 2);
	assert_ret(read_path_as(NULL, AS_NOBODY, USER_PATH), 2);
}

/* Rule 3: a new namespace starts at its parent's level. */
static void new_ns_starts_at_its_parents_level(void **state)
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
 * Rule 3: the starting level is the parent's effective level, not its
 * own one. A is created at 2; the host goes to 3, so A is at 3 without
 * having a level of 3 of its own; B is created in A then. When the host goes
 * back to 2, A follows it down but B stays at 3.
 */
static void new_ns_inherits_effective_not_own_level(void **state)
{
	struct fixture *f = *state;
	struct agent *a, *b;

	a = fixture_add(f, container_new());
	assert_level(a, 2);
	set_host_level(3);
	assert_level(a, 3);
	b = fixture_add(f, nested_new(a));
	assert_level(b, 3);

	set_host_level(2);
	assert_level(a, 2);
	assert_level(b, 3);
}

/* Rule 2: raising the host reaches running namespaces at once. */
static void running_container_follows_host_raise(void **state)
{
	struct fixture *f = *state;
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
	assert_ret(fd_read_level(cfd), 3);
	assert_ret(fd_read_level(nfd), 3);
	assert_level(c, 3);
	assert_level(n, 3);

	set_host_level(5);
	assert_level(c, 5);
	assert_level(n, 5);
	/* The initial namespace's user.perf_event_paranoid follows the host. */
	assert_ret(path_read_level(USER_PATH), 5);
}

/* Rules 2, 3: lowering the host never takes a namespace below its level. */
static void container_stays_locked_when_host_lowers(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n;

	c = fixture_add(f, container_new());
	set_level(c, 3);
	n = fixture_add(f, nested_new(c));

	set_host_level(4);
	assert_level(c, 4);
	assert_level(n, 4);
	set_host_level(-1);
	assert_level(c, 3);
	assert_level(n, 3);
	assert_ret(host_level(), -1);
}

/* Rule 3: a namespace created while the host was at 3 stays at 3. */
static void ns_created_while_host_at_3_stays_3(void **state)
{
	struct fixture *f = *state;
	struct agent *c;

	set_host_level(3);
	c = fixture_add(f, container_new());
	assert_level(c, 3);
	set_host_level(2);
	assert_level(c, 3);
	set_host_level(-1);
	assert_level(c, 3);
}

/* Rules 2, 3: one made at 2 follows the host up and back to 2, no lower. */
static void ns_created_at_2_follows_host_up_and_down(void **state)
{
	struct fixture *f = *state;
	struct agent *c;

	c = fixture_add(f, container_new());
	assert_level(c, 2);
	set_host_level(3);
	assert_level(c, 3);
	set_host_level(2);
	assert_level(c, 2);
	set_host_level(1);
	assert_level(c, 2);
	set_host_level(-1);
	assert_level(c, 2);
}

/* Rule 2: effective = max(own, parent's effective) at every depth. */
static void effective_level_is_max_along_the_chain(void **state)
{
	struct fixture *f = *state;
	struct agent *a, *b, *c;

	a = fixture_add(f, container_new());
	b = fixture_add(f, nested_new(a));
	c = fixture_add(f, nested_new(b));
	set_level(b, 4);
	assert_level(a, 2);
	assert_level(c, 4);
	set_level(a, 3);
	assert_level(b, 4);
	assert_level(c, 4);
	set_host_level(6);
	assert_level(a, 6);
	assert_level(b, 6);
	assert_level(c, 6);
	set_host_level(2);
	assert_level(a, 3);
	assert_level(b, 4);
	assert_level(c, 4);
}

/* Sibling namespaces do not see each other's levels. */
static void sibling_containers_are_independent(void **state)
{
	struct fixture *f = *state;
	struct agent *c1, *c2, *n1, *n2;

	c1 = fixture_add(f, container_new());
	c2 = fixture_add(f, container_new());
	n1 = fixture_add(f, nested_new(c1));
	n2 = fixture_add(f, nested_new(c1));
	set_level(c1, 3);
	set_level(n1, 5);
	assert_level(c2, 2);
	assert_level(n2, 3);
	assert_ret(host_level(), 2);
}

/*
 * Rule 4: user.perf_event_paranoid shows the level of the namespace it
 * was opened in: the same path opened in three namespaces and read here on
 * the host gives three values.
 */
/*
 * A container at 3 and a namespace nested in it at 4; @path opened for
 * reading on the host (*hfd), in the container (*cfd) and in the nested
 * namespace (*nfd).
 */
static void open_in_three(struct fixture *f, const char *path,
			  struct agent **c, struct agent **n,
			  int *hfd, int *cfd, int *nfd)
{
	*c = fixture_add(f, container_new());
	*n = fixture_add(f, nested_new(*c));
	set_level(*c, 3);
	set_level(*n, 4);

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
	assert_ret(fd_read_level(hfd), 2);
	assert_ret(fd_read_level(cfd), 3);
	assert_ret(fd_read_level(nfd), 4);
}

/*
 * kernel.perf_event_paranoid shows the level in force in the namespace of
 * whoever reads it, whatever namespace it was opened in: opened in a
 * container at 3 and in a namespace nested in it at 4, read on the host
 * both show 2; read in the nested namespace, 4; the host's own descriptor
 * read in the container, 3.
 */
static void kernel_file_shows_level_of_its_reader(void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n;
	int hfd, cfd, nfd;

	open_in_three(f, PARANOID_PATH, &c, &n, &hfd, &cfd, &nfd);
	assert_ret(fd_read_level(hfd), 2);
	assert_ret(fd_read_level(cfd), 2);
	assert_ret(fd_read_level(nfd), 2);
	assert_ret(read_fd_as(n, AS_ROOT, cfd), 4);
	assert_ret(read_fd_as(c, AS_NOBODY, hfd), 3);
	assert_ret(read_fd_as(c, AS_ROOT, nfd), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(initial_ns_starts_at_level_2),
		TEST(new_ns_starts_at_its_parents_level),
		TEST(new_ns_inherits_effective_not_own_level),
		TEST(running_container_follows_host_raise),
		TEST(container_stays_locked_when_host_lowers),
		TEST(ns_created_while_host_at_3_stays_3),
		TEST(ns_created_at_2_follows_host_up_and_down),
		TEST(effective_level_is_max_along_the_chain),
		TEST(sibling_containers_are_independent),
		TEST(user_file_shows_level_of_ns_it_was_opened_in),
		TEST(kernel_file_shows_level_of_its_reader),
	};

	return RUN_TESTS("paranoid_levels", tests);
}
