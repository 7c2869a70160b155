// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_depth - a chain of 31 nested user namespaces under random writes
 * at random depths while the host changes its level. After every step each
 * namespace must read exactly the level the contract predicts: the highest
 * of the host's level and of the levels written in it and its ancestors (a
 * namespace where nothing was written has none of its own and follows its
 * parent both ways), which also means that no namespace ever reads lower
 * than its parent; user.perf_event_paranoid shows it within -1 to 3 and
 * takes -1 to 3 only. kernel.perf_event_paranoid shows the host's level as
 * it is; in the level in force, which user.perf_event_paranoid shows and
 * writes are judged against, it counts for host_reach_max() at most.
 * SELFTESTS_SEED repeats a run.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "harness.h"

#define DEPTH	31
#define STEPS	300
#define UNSET	INT_MIN		/* no level of its own */

struct chain {
	struct agent *ns[DEPTH + 1];	/* [0] is the host */
	int fd[DEPTH + 1];		/* opened in each namespace */
	int own[DEPTH + 1];		/* the model: each one's own level */
};

/*
 * The highest of @host and the levels set down to @depth: with the host's
 * level (own[0]) as it is, what kernel.perf_event_paranoid reads there.
 */
static int chain_max(const struct chain *c, int depth, int host)
{
	int level = host;
	int d;

	for (d = 1; d <= depth; d++)
		if (c->own[d] != UNSET && c->own[d] > level)
			level = c->own[d];
	return level;
}

static int effective(const struct chain *c, int depth)
{
	return chain_max(c, depth, c->own[0]);
}

/*
 * The level in force at @depth, within -1 to 3: what a namespace's
 * user.perf_event_paranoid reads, the host's level counting for
 * host_reach_max() at most.
 */
static int in_force(const struct chain *c, int depth)
{
	int host = c->own[0];

	if (host > host_reach_max())
		host = host_reach_max();
	return shown_level(chain_max(c, depth, host));
}

/*
 * What the descriptor at @depth reads: the host's kernel.perf_event_paranoid
 * as it is, a namespace's user.perf_event_paranoid.
 */
static int shown(const struct chain *c, int depth)
{
	return depth ? in_force(c, depth) : effective(c, 0);
}

static void check_chain(const struct chain *c, int step)
{
	int prev = INT_MIN, level;
	int d;

	for (d = 0; d <= DEPTH; d++) {
		level = fd_read_level(c->fd[d]);
		if (level != shown(c, d)) {
			diag("step %d: depth %d reads %d, the model says %d",
			     step, d, level, shown(c, d));
			fail();
		}
		if (d && level < prev) {
			diag("step %d: depth %d reads %d below its parent's "
			     "%d", step, d, level, prev);
			fail();
		}
		prev = d ? level : in_force(c, 0);
	}
}

static void chain_of_31_stays_monotonic_under_random_writes(void **state)
{
	struct fixture *f = *state;
	struct chain c = { .own = { 2 } };
	int d, step, v, ret, want, ok = 0, eperm = 0, einval = 0, host = 0;
	int unset, top, r;
	char s[16];

	rand_init();
	c.fd[0] = fixture_fd(f, open(PARANOID_PATH, O_RDWR | O_CLOEXEC));
	for (d = 1; d <= DEPTH; d++) {
		c.ns[d] = fixture_add(f, d == 1 ? container_new()
					      : nested_new(c.ns[d - 1]));
		assert_ret(open_level_as(c.ns[d], AS_ROOT, O_RDONLY,
					 &c.fd[d]), 0);
		fixture_fd(f, c.fd[d]);
		c.own[d] = UNSET;
	}
	assert_int_equal(c.ns[DEPTH]->depth, DEPTH);
	check_chain(&c, 0);

	for (step = 1; step <= STEPS; step++) {
		top = shown(&c, DEPTH);
		if (rand_below(6) == 0) {
			/*
			 * The host: anything from -2 to just above the top,
			 * now and then far outside -1 to 3.
			 */
			v = (int)rand_below(top + 5) - 2;
			if (rand_below(10) == 0)
				v = rand_below(2) ? 7 : -7;
			set_host_level(v);
			c.own[0] = v;
			host++;
		} else {
			/*
			 * Half the time at or above the level shown there,
			 * else below it, now and then outside -1 to 3.
			 */
			d = 1 + rand_below(DEPTH);
			top = shown(&c, d);
			r = rand_below(8);
			if (r < 4)
				v = top + rand_below(LEVEL_MAX - top + 1);
			else if (r < 7)
				v = top - 1 - rand_below(3);
			else if (r == 7 && rand_below(2))
				v = LEVEL_MAX + 1 + rand_below(3);
			else
				v = LEVEL_MIN - 1 - rand_below(3);
			snprintf(s, sizeof(s), "%d", v);
			ret = write_level(c.ns[d], s);
			want = v < LEVEL_MIN || v > LEVEL_MAX ? -EINVAL :
			       v < shown(&c, d) ? -EPERM : 0;
			if (ret != want)
				diag("step %d: writing %d at depth %d "
				     "(at %d)", step, v, d, effective(&c, d));
			assert_ret(ret, want);
			if (!ret) {
				if (c.own[d] == UNSET || v > c.own[d])
					c.own[d] = v;
				ok++;
			} else if (ret == -EPERM) {
				eperm++;
			} else {
				einval++;
			}
		}
		check_chain(&c, step);
		/* Now and then, a fresh open inside agrees with the fd. */
		if (step % 20 == 0) {
			d = 1 + rand_below(DEPTH);
			assert_ret(read_level(c.ns[d]), effective(&c, d));
		}
	}
	for (d = 1, unset = 0; d <= DEPTH; d++)
		unset += c.own[d] == UNSET;
	diag("%d raises, %d refused lowerings, %d EINVAL, %d host changes; "
	     "top level %d; %d of %d namespaces set no level", ok, eperm,
	     einval, host, effective(&c, DEPTH), unset, DEPTH);
	assert_true(ok > STEPS / 5 && eperm > STEPS / 10 && einval > 0 &&
		    host > 10);

	/* The host back to 2 and to -1: each namespace at its own levels. */
	set_host_level(2);
	c.own[0] = 2;
	check_chain(&c, STEPS + 1);
	set_host_level(-1);
	c.own[0] = -1;
	check_chain(&c, STEPS + 2);
}

/*
 * The deepest namespace of the chain follows the host at once, up and back
 * down: made at 2, refused at 3 (where the host's 3 counts as it is; else
 * at 2 there, as user.perf_event_paranoid shows), profiling at 2 again and
 * kernel profiling at 1.
 */
static void deepest_of_31_follows_the_host(void **state)
{
	struct fixture *f = *state;
	struct agent *a = NULL;
	int d;

	for (d = 1; d <= DEPTH; d++)
		a = fixture_add(f, d == 1 ? container_new() : nested_new(a));
	assert_level(a, 2);
	set_host_level(3);
	assert_level(a, 3);
	assert_ret(read_path_as(a, AS_ROOT, USER_PATH), host_reach_max());
	assert_ret(perf_open_as(a, AS_ROOT,
				&(struct perf_req){ .kind = PERF_TASK }),
		   host_reach_max() == 3 ? -EACCES : 0);
	set_host_level(2);
	assert_level(a, 2);
	assert_ret(perf_open_as(a, AS_ROOT,
				&(struct perf_req){ .kind = PERF_TASK }), 0);
	set_host_level(1);
	assert_level(a, 1);
	assert_ret(perf_open_as(a, AS_ROOT,
				&(struct perf_req){ .kernel = true }), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(chain_of_31_stays_monotonic_under_random_writes),
		TEST(deepest_of_31_follows_the_host),
	};

	return RUN_TESTS("paranoid_depth", tests);
}
