/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfns.h - helpers shared by the kernel.perf_event_paranoid selftests
 *
 * The test programs run as root in the initial user namespace of a guest
 * booted by vm/guest/run. They create user namespaces through "agents": an agent
 * is a process that created a user namespace (unshare(CLONE_NEWUSER)),
 * became uid 0 inside it and then waits on a socket for calls. Each call runs
 * a function of the test program in a fresh fork of the agent, so inside the
 * namespace, with the agent's credentials, and sends back an int, a few
 * values, a message and optionally a file descriptor (SCM_RIGHTS). A call
 * with no agent (NULL) runs in a fork of the test program itself, on the
 * host. Calls never use cmocka: only the test program asserts.
 */
#ifndef PERFNS_H
#define PERFNS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stdio.h>
#include <cmocka.h>

#define PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"
#define KPTR_PATH	"/proc/sys/kernel/kptr_restrict"
#define HOST_LEVEL	2	/* the boot default, restored after each test */

/*
 * Levels can be negative, so failures that come with a level are told
 * apart: -(EOPEN + e) when open() failed with e, -(EREAD + e) when read()
 * failed with e (or EBADMSG when what it read was not a level). Writes
 * return 0 or -errno, or OPEN_ERR(e).
 */
#define EOPEN		1000
#define EREAD		2000
#define OPEN_ERR(e)	(-(EOPEN + (e)))
#define READ_ERR(e)	(-(EREAD + (e)))

/* Rootless containers map their uid/gid 0..65535 to 100000..165535. */
#define ROOTLESS_BASE	100000
#define ROOTLESS_COUNT	65536
#define NOBODY		65534

#define CAP_BIT(c)	(1ULL << (c))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define CAPS_ALL	(~0ULL)

/* Who runs a call: a uid in the caller's namespace and the caps it keeps. */
struct who {
	int uid;		/* -1: the agent's own (0 in its namespace) */
	/* Kept in the effective, permitted and bounding sets; CAPS_ALL: all. */
	uint64_t caps;
};

#define AS_ROOT		((struct who){ .uid = -1, .caps = CAPS_ALL })
#define AS_NOBODY	((struct who){ .uid = NOBODY, .caps = 0 })

/* What a call sends back besides its int result. */
struct out {
	int fd;			/* sent to the caller when >= 0 */
	long val[4];
	char msg[256];
};

typedef int (*call_fn)(const void *arg, int in_fd, struct out *out);

struct agent {
	pid_t pid;
	int sock;
	int pidfd;
	bool child;		/* our own child: reap it with waitpid() */
	int depth;		/* user namespace nesting level, host = 0 */
};

/* --- the test program's side ------------------------------------------ */

/* TAP diagnostics ("# ..."). */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *ret_str(long ret);

/* assert_ret(x, y): like assert_int_equal() but prints errnos by name. */
#define assert_ret(actual, expected) \
	_assert_ret((actual), (expected), #actual, __FILE__, __LINE__)
void _assert_ret(long actual, long expected, const char *expr,
		 const char *file, int line);

/* Read the level through a descriptor: the level, or READ_ERR(e). */
int read_level_fd(int fd);
/* Write @s through a descriptor at offset 0: 0 or -errno. */
int write_level_fd(int fd, const char *s);

/* The level as the test program (host root) sees it. */
int host_level(void);
/* Write @s to @path in one write(2): 0 or -errno. */
int write_file(const char *path, const char *s);
/* unshare(CLONE_NEWUSER), mapping uid/gid 0 inside to ours, as unshare -r. */
int unshare_mapped(void);
/* Set the host level (as host root), asserting success. */
#define set_host_level(level) _set_host_level((level), __FILE__, __LINE__)
void _set_host_level(int level, const char *file, int line);

/*
 * Run @fn(@arg, @in_fd) in a fork of agent @a (NULL: on the host) as @w.
 * Returns @fn's result; *@out gets the rest (out->fd the received descriptor
 * or -1). A call that does not answer within 60 s fails the test.
 */
int call_as(struct agent *a, struct who w, call_fn fn, const void *arg,
	    size_t len, int in_fd, struct out *out);
int call(struct agent *a, call_fn fn, const void *arg, size_t len,
	 struct out *out);

/* The same, in two steps, for calls that run concurrently. */
void call_start(struct agent *a, struct who w, call_fn fn, const void *arg,
		size_t len);
int call_finish(struct agent *a, struct out *out, int timeout_ms);

/* An agent on the host: root in the initial namespace. */
struct agent *agent_host(void);

/*
 * A new user namespace whose uid and gid 0 map to @outside..@outside+@count-1
 * of the namespace of @parent (NULL: the host). The process that creates it
 * first becomes uid/gid @outside in @parent's namespace (when it is not
 * already), so the namespace is owned by the user its root maps to, like a
 * rootless container made with newuidmap.
 */
struct agent *agent_userns(struct agent *parent, uid_t outside,
			   unsigned int count);
/* A rootless container: 0..65535 -> 100000.. on the host. */
struct agent *container_new(void);
/* A namespace nested in @parent, its root mapped to @parent's root. */
struct agent *nested_new(struct agent *parent);
/* End the agent and wait for it. NULL is ignored. */
void agent_free(struct agent *a);
/* Open the agent's /proc/PID/ns/user from the host. */
int agent_userns_fd(struct agent *a);

/* In @a as @w: the level read by a fresh open, OPEN_ERR(e), READ_ERR(e). */
int read_level_as(struct agent *a, struct who w);
int read_level(struct agent *a);
/* In @a as @w: write @s by a fresh open: 0, -errno or OPEN_ERR(e). */
int write_level_as(struct agent *a, struct who w, const char *s);
int write_level(struct agent *a, const char *s);
/* In @a as @w: open the level file; *fd gets it here; 0 or -errno. */
int open_level_as(struct agent *a, struct who w, int flags, int *fd);

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

/* Capability mask of the caller, from /proc/self/status (CapEff etc). */
uint64_t proc_caps(const char *field);

/* Random numbers for the randomized tests: seeded from PERFNS_SEED. */
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
int fixture_setup(void **state);
/* Frees the agents and descriptors, restores and checks the host level. */
int fixture_teardown(void **state);
/* Group setup: checks that we are host root and the host is at 2. */
int group_setup(void **state);
/* Runs the tests with TAP output. */
int perfns_run(const char *name, const struct CMUnitTest *tests, size_t n);

#define RUN_TESTS(name, tests) perfns_run(name, tests, ARRAY_SIZE(tests))

#define TEST(f) \
	cmocka_unit_test_setup_teardown(f, fixture_setup, fixture_teardown)

#endif /* PERFNS_H */
