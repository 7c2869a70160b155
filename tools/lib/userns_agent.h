/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userns_agent.h - agents in user namespaces, for programs that run as root
 * in the initial user namespace of a guest (the selftests, the churn of
 * selftests/kernel/kmemleak-check and vm/bench's paranoid-bench).
 *
 * An agent is a process that created a user namespace
 * (unshare(CLONE_NEWUSER)), had its uid and gid maps written by its parent
 * and became uid 0 inside; it then waits on a socket for calls. Each call
 * runs a function of the program in a fresh fork of the agent, so inside the
 * namespace, as a given uid with a given set of capabilities, and sends back
 * an int, a few values, a message and optionally a file descriptor
 * (SCM_RIGHTS). A call with no agent (NULL) runs in a fork of the caller, on
 * the host. Agents are forks of the program (never exec'ed), so a call names
 * its function by address.
 *
 * The rest is what those programs need around agents: descriptors over unix
 * sockets, writing and reading a file in one go, a user namespace with the
 * caller mapped to root as "unshare --map-root-user" makes it.
 *
 * Nothing here asserts or exits the caller: every function returns 0 (or a
 * descriptor, a length) or -errno, and agent_error() tells the details of the
 * last failure.
 *
 * The agents are in userns_agent.c (it needs libcap-ng), the rest in
 * userns_agent_io.c; both go into libuserns_agent.a, so that a static
 * program using only the rest does not pull in libcap-ng.
 */
#ifndef USERNS_AGENT_H
#define USERNS_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/ioctl.h>

/* The perf_event_paranoid ioctls of a user namespace descriptor */
#include "../include/perf_paranoid_nsfs.h"

/*
 * kernel.perf_event_paranoid: the host's level, written in the initial
 * namespace only; read elsewhere, the level in force in the reader's
 * namespace. user.perf_event_paranoid: in every user namespace, the level in
 * force in the namespace it was opened in, shown within -1 to 3; it sets the
 * level of a namespace other than the initial one (-1 to 3, raise only), and
 * is read-only in the initial one. kernel.perf_event_paranoid_userns: the
 * host's floor for every other user namespace, -1 to 3, -1 (the boot value)
 * for none; it reads what was written, wherever it is read.
 * kernel.perf_event_paranoid_grant_min: the lowest level a grant gives, 1 to
 * 3 (2 at boot), read the same way.
 */
#define PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"
#define USER_PATH	"/proc/sys/user/perf_event_paranoid"
#define FLOOR_PATH	"/proc/sys/kernel/perf_event_paranoid_userns"
#define GRANT_MIN_PATH	"/proc/sys/kernel/perf_event_paranoid_grant_min"

/* What the files of the series take and show: -1 to 3. */
#define LEVEL_MIN	(-1)
#define LEVEL_MAX	3
#define NO_FLOOR	(-1)	/* the floor's boot value: none */

/* Rootless containers map their uid/gid 0..65535 to 100000..165535. */
#define ROOTLESS_BASE	100000
#define ROOTLESS_COUNT	65536
#define NOBODY		65534

#define CAP_BIT(c)	(1ULL << (c))
#define CAPS_ALL	(~0ULL)
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* How long a call or an agent's start may take before it fails. */
#define AGENT_TIMEOUT_MS	60000
/* The largest argument a call takes (copied to the agent). */
#define AGENT_ARG_MAX		1024

/* Who runs a call: a uid in the agent's namespace and the caps it keeps. */
struct who {
	int uid;		/* -1: the agent's own (0 in its namespace) */
	/* Kept in the effective, permitted and bounding sets; CAPS_ALL: all. */
	uint64_t caps;
};

#define AS_ROOT		((struct who){ .uid = -1, .caps = CAPS_ALL })
#define AS_NOBODY	((struct who){ .uid = NOBODY, .caps = 0 })

/* What a call sends back. */
struct out {
	int ret;		/* what the function returned (set for it) */
	int fd;			/* sent to the caller when >= 0 */
	long val[4];
	char msg[256];		/* shown by the caller when not empty */
};

/*
 * A call's function: runs in a fork of the agent, as the call's struct who,
 * with @in_fd the descriptor the caller passed (or -1); what it returns is
 * out->ret on the caller's side.
 */
typedef int (*call_fn)(const void *arg, int in_fd, struct out *out);

struct agent {
	pid_t pid;
	int sock;		/* poll it for POLLIN: a call has answered */
	int pidfd;
	bool child;		/* the caller's own child: reaped on free */
	int depth;		/* user namespace nesting level, host = 0 */
};

/* --- agents ----------------------------------------------------------- */

/*
 * A new agent in a new user namespace whose uid and gid 0 map to
 * @outside..@outside+@count-1 of the namespace of @parent (NULL: the host),
 * created by @parent's agent. The process that creates it first becomes
 * uid/gid @outside in @parent's namespace (when it is not already), so the
 * namespace is owned by the user its root maps to, like a rootless
 * container made with newuidmap. @count 0: an agent in @parent's own
 * namespace (on the host: host root), no new namespace.
 * Returns 0 with *@ap the agent, or -errno.
 */
int agent_new(struct agent *parent, uid_t outside, unsigned int count,
	      struct agent **ap);
/*
 * End the agent and wait for it (killing it after 10 s). NULL is ignored.
 * Returns 0, or -ETIMEDOUT when it had to be killed.
 */
int agent_free(struct agent *a);
/* Open the agent's /proc/PID/ns/user: the descriptor or -errno. */
int agent_userns_fd(struct agent *a);

/*
 * Run @fn(@arg (@len bytes, copied), @in_fd, out) in a fresh fork of agent
 * @a (NULL: a fork of the caller, on the host) as @w. Returns 0 when the
 * call ran, with *@out filled (out->ret what @fn returned, out->fd the
 * descriptor it sent or -1); -errno when it could not be made or did not
 * answer within AGENT_TIMEOUT_MS (an agent is unusable after that).
 * Becoming @w is checked against /proc/self/status; when it fails, out->ret
 * is -ENOTRECOVERABLE and out->msg says why.
 */
int agent_call(struct agent *a, struct who w, call_fn fn, const void *arg,
	       size_t len, int in_fd, struct out *out);
/* The same in two steps, for calls of several agents that run at once. */
int agent_call_start(struct agent *a, struct who w, call_fn fn,
		     const void *arg, size_t len);
int agent_call_finish(struct agent *a, struct out *out, int timeout_ms);

/* What the last failing function of this library was doing. */
const char *agent_error(void);
/* Record what failed for agent_error() (printf format); returns @err. */
int agent_fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* --- descriptors over unix sockets ------------------------------------ */

/* Send @len bytes of @buf and, if @fd >= 0, @fd (SCM_RIGHTS): 0 or -errno. */
int send_msg(int sock, const void *buf, size_t len, int fd);
/*
 * Receive one message into @buf, waiting at most @timeout_ms (-1: for ever).
 * A descriptor that came with it goes to *@fd (-1 if none; closed when @fd
 * is NULL). Returns the length, 0 at EOF, or -errno (-ETIMEDOUT).
 */
ssize_t recv_msg(int sock, void *buf, size_t len, int *fd, int timeout_ms);
/* A descriptor alone (with one byte): 0 or -errno. */
int send_fd(int sock, int fd);
/* The descriptor, or -errno (-EBADMSG: a message without one). */
int recv_fd(int sock, int timeout_ms);

/* --- files and namespaces --------------------------------------------- */

/* Write @s to @path in one write(2): 0 or -errno. */
int write_file(const char *path, const char *s);
/* Read @path into @buf, NUL-terminated: the length or -errno. */
ssize_t read_file(const char *path, char *buf, size_t size);
/*
 * An int as /proc/sys and sysfs print one ("%d\n": a decimal number and a
 * newline, nothing else), read through @fd from offset 0 or from a fresh
 * open of @path into *@v: 0, or -errno (-EBADMSG: not such a number, *@v
 * unchanged).
 */
int fd_read_int(int fd, int *v);
int read_int(const char *path, int *v);
/* Write @v in decimal to @path in one write(2): 0 or -errno. */
int write_int(const char *path, int v);
/* Write @s through @fd at offset 0 in one pwrite(2): 0 or -errno (-EIO). */
int fd_write_str(int fd, const char *s);
/*
 * unshare(CLONE_NEWUSER) and map uid/gid 0 inside to the caller's euid and
 * egid, as "unshare --map-root-user" does: 0 or -errno.
 */
int unshare_mapped(void);
/* A capability set of the caller from /proc/self/status (CapEff etc). */
uint64_t proc_caps(const char *field);

#endif /* USERNS_AGENT_H */
