/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - the cmocka side of the kernel.perf_event_paranoid selftests
 *
 * The test programs run as root in the initial user namespace of a guest
 * booted by vm/guest/run and make their user namespaces with the agents of
 * userns_agent.h. This adds what only tests want: assertions with errnos by
 * name, wrappers of the agent functions that fail the test instead of
 * returning an error, the level file and perf_event_open() as calls, a
 * seeded random generator and the per-test fixture. Functions that run in
 * an agent (call_fn) never assert: only the test program does.
 */
#ifndef SELFTESTS_HARNESS_H
#define SELFTESTS_HARNESS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stdio.h>
#include <cmocka.h>

#include "userns_agent.h"

/*
 * The level files: PARANOID_PATH, USER_PATH, FLOOR_PATH, GRANT_MIN_PATH
 * (userns_agent.h)
 */
#define KPTR_PATH	"/proc/sys/kernel/kptr_restrict"

#define HOST_LEVEL	2	/* the boot default, restored after each test */
#define GRANT_MIN	2	/* grant_min's boot value */

/* A level as user.perf_event_paranoid shows it: within -1 to 3. */
static inline int shown_level(int level)
{
	return level < LEVEL_MIN ? LEVEL_MIN :
	       level > LEVEL_MAX ? LEVEL_MAX : level;
}

/* TAP diagnostics ("# ..."). */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *ret_str(long ret);

/* assert_ret(x, y): like assert_int_equal() but prints errnos by name. */
#define assert_ret(actual, expected) \
	_assert_ret((actual), (expected), #actual, __FILE__, __LINE__)
void _assert_ret(long actual, long expected, const char *expr,
		 const char *file, int line);

/*
 * --- a level file: one of the files above ----------------------------
 *
 * Levels can be negative, so a level is never returned together with an
 * errno: the functions that return a level fail the test when it cannot be
 * read. A write returns 0 or the -errno of write(2), and fails the test
 * when the file cannot be opened for writing: a refusal at open is
 * asserted with open_path_as() (or open_level_as(), open_floor_as()).
 * Functions that run in an agent use read_int() and fd_write_str() of
 * userns_agent.h, which return -errno, and say what failed in out->msg.
 */

/* Read a level through a descriptor, here. */
int fd_read_level(int fd);
/* Open @path here and read it. */
int path_read_level(const char *path);
/* Open @path here and write @s: 0 or -errno of the write. */
int path_write_level(const char *path, const char *s);

/* The level as the test program (host root) sees it. */
int host_level(void);
/* Set the host level (as host root), asserting success. */
#define set_host_level(level) _set_host_level((level), __FILE__, __LINE__)
void _set_host_level(int level, const char *file, int line);

/**
 * host_reach_max() - the most the host's level counts for
 *
 * The series has two forms. On the Debian form the host's
 * kernel.perf_event_paranoid counts as it is, and a host at 3 refuses
 * unprivileged perf_event_open(), as Debian's kernel does. On the mainline
 * form it counts for 2 at most, in the host's own tasks and in every
 * namespace that set nothing, as on mainline, where 3 means 2: level 3
 * comes only from a namespace's own write, the floor or a grant.
 * kernel.perf_event_paranoid still reads what the host wrote, on the host
 * and in a namespace that set nothing; user.perf_event_paranoid shows the
 * level in force.
 *
 * Told once and cached (group_setup() asks first, before any test): the
 * host's level is saved, set to 3, user.perf_event_paranoid read in the
 * initial namespace, and the level restored. On a kernel without the
 * series, which has no user.perf_event_paranoid, an unprivileged host
 * user's perf_event_open() of task-clock at 3 tells instead (EACCES: 3).
 * Fails the test on any other reading.
 *
 * The level in force in a namespace that set nothing, as
 * user.perf_event_paranoid shows it, is therefore
 * min(shown_level(host), host_reach_max()); a host at 3 refuses only where
 * host_reach_max() is 3.
 *
 * Return: 3 on the Debian form (and on Debian's kernel), 2 on the mainline
 * form (and on mainline's).
 */
int host_reach_max(void);

/* --- agents, failing the test where userns_agent.c returns an error --- */

/*
 * Run @fn in agent @a (NULL: on the host) as @w (see agent_call()); shows
 * out->msg and returns @fn's result.
 */
int call_as(struct agent *a, struct who w, call_fn fn, const void *arg,
	    size_t len, int in_fd, struct out *out);
int call(struct agent *a, call_fn fn, const void *arg, size_t len,
	 struct out *out);
void call_start(struct agent *a, struct who w, call_fn fn, const void *arg,
		size_t len);
int call_finish(struct agent *a, struct out *out, int timeout_ms);

/* agent_new(), asserting. */
struct agent *agent_userns(struct agent *parent, uid_t outside,
			   unsigned int count);
/* An agent on the host: root in the initial namespace. */
struct agent *agent_host(void);
/* A rootless container: 0..65535 -> 100000.. on the host. */
struct agent *container_new(void);
/* A namespace nested in @parent, its root mapped to @parent's root. */
struct agent *nested_new(struct agent *parent);

/* --- the level file in an agent -------------------------------------- */

/* In @a as @w: @path read by a fresh open: the level. */
int read_path_as(struct agent *a, struct who w, const char *path);
/* In @a as @w: write @s to @path by a fresh open: 0 or -errno. */
int write_path_as(struct agent *a, struct who w, const char *path,
		  const char *s);
/*
 * In @a as @w: open @path; *fd gets it here (-1 if the open failed; @fd
 * NULL: it is closed); 0 or -errno.
 */
int open_path_as(struct agent *a, struct who w, const char *path, int flags,
		 int *fd);
/* In @a as @w: the level read through @fd. */
int read_fd_as(struct agent *a, struct who w, int fd);
/*
 * In @a as @w: read the level through @fd into *@before, then write @s
 * through it: 0 or -errno of the write.
 */
int write_fd_as(struct agent *a, struct who w, int fd, const char *s,
		int *before);

/*
 * The file that sets the level of @a's namespace: PARANOID_PATH on the host
 * (@a NULL or an agent in the initial namespace), USER_PATH in any other.
 */
const char *level_path(struct agent *a);

/*
 * The level in force in @a's namespace as @w reads it by fresh opens. In a
 * namespace other than the initial one both PARANOID_PATH and USER_PATH are
 * read, and USER_PATH must show what PARANOID_PATH shows within -1 to 3
 * (shown_level(); else the test fails, showing both values), or, where
 * host_reach_max() is 2, 2 when PARANOID_PATH reads 3 or more (the host's
 * level, which counts as 2 there): the level returned is PARANOID_PATH's.
 * On the host only PARANOID_PATH is read, so that the host's tests also
 * run on a kernel without the series.
 */
int read_level_as(struct agent *a, struct who w);
int read_level(struct agent *a);
/* Write @s to level_path(@a) in @a as @w. */
int write_level_as(struct agent *a, struct who w, const char *s);
int write_level(struct agent *a, const char *s);
/* Open level_path(@a) in @a as @w. */
int open_level_as(struct agent *a, struct who w, int flags, int *fd);

/*
 * In @a as @w: setns() into the user namespace @nsfd, then write @first and
 * @second to @path by fresh opens; val[0] and val[1] get what the writes
 * returned (0 or -errno), val[2] what PARANOID_PATH reads afterwards and
 * val[3] what USER_PATH reads. Returns 0, or -errno with out->msg saying
 * what failed: setns(), an open or a read.
 */
int setns_write_as(struct agent *a, struct who w, int nsfd, const char *path,
		   const char *first, const char *second, struct out *out);
/* In @a as @w: setns() into @nsfd, then open @path: 0 or -errno. */
int setns_open_as(struct agent *a, struct who w, int nsfd, const char *path,
		  int flags);

/*
 * The host's floor (FLOOR_PATH), as the level file above: read and written
 * in @a as @w by fresh opens, opened, or set on the host (asserting the
 * write and that the file reads @v back).
 */
int read_floor_as(struct agent *a, struct who w);
int read_floor(struct agent *a);
int write_floor_as(struct agent *a, struct who w, const char *s);
int write_floor(struct agent *a, const char *s);
int open_floor_as(struct agent *a, struct who w, int flags, int *fd);
void set_host_floor(int v);
#define assert_floor(a, v)	assert_ret(read_floor(a), (v))
/* Write -1, no floor (its boot value), on the host: 0 or -errno. */
int clear_host_floor(void);

enum perf_kind { PERF_TASK, PERF_CPU, PERF_TRACEPOINT };

struct perf_req {
	enum perf_kind kind;
	bool kernel;		/* exclude_kernel = 0 */
	int tp_id;		/* tracepoint id for PERF_TRACEPOINT */
};

/*
 * perf_event_open() in @a as @w: 0 if the event opened and counted, -errno
 * if perf_event_open() failed.
 */
int perf_open_as(struct agent *a, struct who w, const struct perf_req *p);

/*
 * The id of tracepoint @event ("sched/sched_switch") from tracefs, mounted
 * in a private mount namespace if it is not mounted: -1 if it has none.
 */
int tracepoint_id(const char *event);

/* Assert the level read by a fresh open in @a (NULL: the host). */
#define assert_level(a, level) assert_ret(read_level(a), (level))

/* Set the level of @a's namespace as its root, asserting success. */
#define set_level(a, level)						\
	do {								\
		char __s[16];						\
		snprintf(__s, sizeof(__s), "%d", (level));		\
		assert_ret(write_level((a), __s), 0);			\
		assert_ret(read_level(a), (level));			\
	} while (0)

/*
 * Run @script with /bin/sh as host root, stdout and stderr into sh_output.
 * Returns the exit status, 128 + signal, or -ETIMEDOUT after 120 s.
 */
int sh(const char *script);
extern char sh_output[16384];
/* Fail the test unless the last sh() printed @s. */
void assert_output_has(const char *s);

/* Random numbers for the randomized tests: seeded from SELFTESTS_SEED. */
void rand_init(void);
unsigned int rand_below(unsigned int n);

/* Common per-test fixture: a list of agents freed in reverse order. */
struct fixture {
	struct agent *agents[40];
	int n;
	int fds[40];
	int nfds;
	void *priv;
};

struct agent *fixture_add(struct fixture *f, struct agent *a);
int fixture_fd(struct fixture *f, int fd);
/*
 * level_path(@a) opened read-only by @a's root (asserting), the descriptor
 * closed by the fixture.
 */
int fixture_level_fd(struct fixture *f, struct agent *a);
int fixture_setup(void **state);
/* Frees the agents and descriptors, restores and checks the host level. */
int fixture_teardown(void **state);
/*
 * Group setup: checks that we are host root and the host is at 2, and asks
 * host_reach_max().
 */
int group_setup(void **state);
/*
 * Runs the tests with TAP output; with SELFTESTS_ONLY set, only those whose
 * name matches it (a cmocka pattern: * and ?). Tests named host_* are about
 * the host's own level and what it does, and hold on a kernel without the
 * series too: selftests/kernel/host-compat runs them on both kernels.
 */
int selftests_run(const char *name, const struct CMUnitTest *tests,
		  size_t n);

#define RUN_TESTS(name, tests) \
	selftests_run(name, tests, ARRAY_SIZE(tests))

#define TEST(f) \
	cmocka_unit_test_setup_teardown(f, fixture_setup, fixture_teardown)

#endif /* SELFTESTS_HARNESS_H */
