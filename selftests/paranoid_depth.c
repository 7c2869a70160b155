// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_depth - a chain of 31 nested user namespaces under random writes
 * at random depths while the host changes its level. After every step each
 * namespace must read exactly the level the contract predicts,
 * max(own levels along its chain), which also means that no namespace ever
 * reads lower than its parent. SELFTESTS_SEED repeats a run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "harness.h"

#define DEPTH	31
#define STEPS	300

struct chain {
	struct agent *ns[DEPTH + 1];	/* [0] is the host */
	int fd[DEPTH + 1];		/* opened in each namespace */
	long own[DEPTH + 1];		/* the model: each one's own level */
};

static long effective(const struct chain *c, int depth)
{
	long level = c->own[0];
	int d;

	for (d = 1; d <= depth; d++)
		if (c->own[d] > level)
			level = c->own[d];
	return level;
}

static void check_chain(const struct chain *c, int step)
{
	long prev = c->own[0], level;
	int d;

	for (d = 0; d <= DEPTH; d++) {
		level = fd_read_level(c->fd[d]);
		if (level < prev) {
			diag("step %d: depth %d reads %ld below its parent's "
			     "%ld", step, d, level, prev);
			fail();
		}
		if (level != effective(c, d)) {
			diag("step %d: depth %d reads %ld, the model says %ld",
			     step, d, level, effective(c, d));
			fail();
		}
		prev = level;
	}
}

static void chain_of_31_stays_monotonic_under_random_writes(void **state)
{
	struct fixture *f = *state;
	struct chain c = { .own = { 2 } };
	int d, step, v, ret, ok = 0, eperm = 0, host = 0, top;
	char s[16];

	rand_init();
	c.fd[0] = fixture_fd(f, open(PARANOID_PATH, O_RDWR | O_CLOEXEC));
	for (d = 1; d <= DEPTH; d++) {
		c.ns[d] = fixture_add(f, d == 1 ? container_new()
					      : nested_new(c.ns[d - 1]));
		assert_ret(open_level_as(c.ns[d], AS_ROOT, O_RDONLY,
					 &c.fd[d]), 0);
		fixture_fd(f, c.fd[d]);
		c.own[d] = 2;
	}
	assert_int_equal(c.ns[DEPTH]->depth, DEPTH);
	check_chain(&c, 0);

	for (step = 1; step <= STEPS; step++) {
		top = effective(&c, DEPTH);
		if (rand_below(6) == 0) {
			/* The host: anything from -1 to just above the top. */
			v = (int)rand_below(top + 3) - 1;
			set_host_level(v);
			c.own[0] = v;
			host++;
		} else {
			/* Around the level in force there, half below it. */
			d = 1 + rand_below(DEPTH);
			v = effective(&c, d) - 2 + rand_below(4);
			snprintf(s, sizeof(s), "%d", v);
			ret = write_level(c.ns[d], s);
			if (v < effective(&c, d)) {
				if (ret != -EPERM)
					diag("step %d: writing %d at depth %d "
					     "(at %ld)", step, v, d,
					     effective(&c, d));
				assert_ret(ret, -EPERM);
				eperm++;
			} else {
				if (ret)
					diag("step %d: writing %d at depth %d "
					     "(at %ld)", step, v, d,
					     effective(&c, d));
				assert_ret(ret, 0);
				c.own[d] = v;
				ok++;
			}
		}
		check_chain(&c, step);
		/* Now and then, a fresh open inside agrees with the fd. */
		if (step % 20 == 0) {
			d = 1 + rand_below(DEPTH);
			assert_ret(read_level(c.ns[d]), effective(&c, d));
		}
	}
	diag("%d raises, %d refused lowerings, %d host changes; top level %ld",
	     ok, eperm, host, effective(&c, DEPTH));
	assert_true(ok > STEPS / 5 && eperm > STEPS / 5 && host > 10);

	/* The host back to 2 leaves every namespace at its own levels. */
	set_host_level(2);
	c.own[0] = 2;
	check_chain(&c, STEPS + 1);
}

/* The deepest namespace of the chain follows a host raise at once. */
static void deepest_of_31_follows_host_raise(void **state)
{
	struct fixture *f = *state;
	struct agent *a = NULL;
	int d;

	for (d = 1; d <= DEPTH; d++)
		a = fixture_add(f, d == 1 ? container_new() : nested_new(a));
	assert_level(a, 2);
	set_host_level(3);
	assert_level(a, 3);
	assert_ret(perf_open_as(a, AS_ROOT,
				&(struct perf_req){ .kind = PERF_TASK }),
		   -EACCES);
	set_host_level(2);
	assert_level(a, 2);
	assert_ret(perf_open_as(a, AS_ROOT,
				&(struct perf_req){ .kind = PERF_TASK }), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(chain_of_31_stays_monotonic_under_random_writes),
		TEST(deepest_of_31_follows_host_raise),
	};

	return RUN_TESTS("paranoid_depth", tests);
}
