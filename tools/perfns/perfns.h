/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfns - kernel.perf_event_paranoid per user namespace, from user space.
 *
 * Shared declarations of the subcommands (one file each, perfns tree in
 * tree*.c) and of the helpers they share: user namespace handles
 * (userns.c) and those of processes (userns_pid.c), reading and writing
 * the level and floor in place (level_io.c) or in other namespaces through
 * a child that enters them (enter_chain.c, enter_child.c), what a failure
 * says (level_error.c), and messages, common options, strict number
 * parsing and escaping what tenants name (util.c).
 */
#ifndef PERFNS_H
#define PERFNS_H

#include <assert.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <sys/stat.h>
#include <sys/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define fallthrough	__attribute__((__fallthrough__))
#define __noreturn	noreturn
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))

/*
 * kernel.perf_event_paranoid: one global file. In the initial user namespace
 * the host's level, read and written as on a kernel without the series;
 * read from any other namespace, the level in force in the reader's, but
 * with the host's level in it as written: on the series' mainline form,
 * where the host's level counts for 2 at most, a namespace that follows a
 * host at 3 reads 3 there and is at 2. What perfns reports as the level in
 * force in a namespace other than the initial one is what
 * NS_PERF_PARANOID_GET says (userns_level_in_force()); the value read there
 * stands in for it only on a kernel without that ioctl.
 */
#define PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"
/*
 * user.perf_event_paranoid: each user namespace's own copy, where a namespace
 * other than the initial one is raised (read-only in the initial one). Its
 * presence is how perfns tells that the kernel has the series.
 */
#define USERNS_PARANOID_PATH	"/proc/sys/user/perf_event_paranoid"
/*
 * kernel.perf_event_paranoid_userns: the host's floor, the only one; it
 * reads back what was written, -1 (NO_FLOOR) when there is none.
 */
#define FLOOR_PATH	"/proc/sys/kernel/perf_event_paranoid_userns"

/*
 * kernel.perf_event_paranoid_grant_min: the lowest level the host may grant
 * a user namespace (perfns grant), and a floor for every granted one.
 */
#define GRANT_MIN_PATH	"/proc/sys/kernel/perf_event_paranoid_grant_min"

/* The perf_event_paranoid ioctls of a user namespace descriptor */
#include "../include/perf_paranoid_nsfs.h"

/*
 * The levels a user namespace other than the initial one takes
 * (user.perf_event_paranoid, a grant) and the floor: -1 to 3. The floor's
 * -1 is no floor. The host's own level takes any int.
 */
#define LEVEL_MIN	-1
#define LEVEL_MAX	3
#define NO_FLOOR	-1

/* PROC_USER_INIT_INO: the initial user namespace's inode, fixed. */
#define INIT_USERNS_INO	0xEFFFFFFDU

/* How long a child that enters a namespace may take, by default. */
#define DEFAULT_TIMEOUT_S	10

/* Exit statuses of every subcommand. */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* refused by the kernel, or failed */
#define EXIT_USAGE	2	/* bad command line or bad input */

#define NOT_PER_NS_MSG \
	"this kernel has no per-namespace perf_event_paranoid " \
	"(the level is global); refusing to change it"

#define HOST_FLOOR_MSG \
	"only the initial user namespace has a floor " \
	"(kernel.perf_event_paranoid_userns, the host's)"

#define NO_FLOOR_MSG \
	"this kernel has no kernel.perf_event_paranoid_userns " \
	"(no floor for the user namespaces: " FLOOR_PATH " does not exist)"

/* util.c */
struct option;

extern const char *prog;
extern int op_timeout_s;

__printf(1, 2) void msg(const char *fmt, ...);
void *xrealloc(void *p, size_t n);
__printf(2, 3) int usage_error(const char *cmd, const char *fmt, ...);
int subcmd_getopt(const char *cmd, const char *usage, const char *optstring,
		  const struct option *opts, int argc, char **argv,
		  int *status);
int parse_int(const char *s, int *out);
int read_proc_int(const char *path, int *out);
int parse_pid(const char *s, pid_t *out);
int parse_level_arg(const char *cmd, const char *s, int *level);
int check_ns_level(const char *cmd, int level);
int parse_ns_level_arg(const char *cmd, const char *s, int *level);
int parse_floor_arg(const char *cmd, const char *s, int *floor);
int parse_pid_arg(const char *cmd, const char *s, pid_t *pid);
int parse_timeout_arg(const char *cmd, const char *s);
bool is_level_word(const char *s);
size_t escape_bytes(char *dst, size_t size, const char *src, size_t len);

/* Where an attempt to read or write a level or floor stopped. */
enum lvl_stage {
	LVL_OK,
	LVL_SETNS,	/* setns() into the namespace failed */
	LVL_OPEN,	/* opening the file failed */
	LVL_READ,	/* reading or parsing the value failed */
	LVL_WRITE,	/* the kernel refused the write */
	LVL_GLOBAL,	/* the kernel has no series: the level is global */
	LVL_UNSURE,	/* cannot tell whether the kernel has the series */
	LVL_NOFLOOR,	/* a floor was to be written; the kernel has none */
	LVL_ASK,	/* NS_PERF_PARANOID_GET failed (not with ENOTTY) */
	LVL_TIMEOUT,	/* the child did not answer in time; killed */
	LVL_CHILD,	/* the child died or answered nonsense */
	LVL_SKIPPED,	/* not tried: one above it in the chain failed so */
	LVL_INTERNAL,	/* fork, pipe, ...: failed before the kernel */
	LVL_NSTAGES
};

/*
 * What to do in a namespace: the level is always read. The floor is only
 * ever read or written in the initial namespace, in place.
 */
struct lvl_op {
	bool write_level;
	int level;
	bool read_floor;
	bool write_floor;
	int floor;
};

struct lvl_result {
	enum lvl_stage stage;
	int err;		/* errno of the failed step, signal for CHILD */
	bool on_floor;		/* the failed step was on FLOOR_PATH */
	bool write;		/* the failed step was a write */
	int level;		/* see level_io_in(), or -1 (!have_level) */
	bool have_level;	/* level is valid (also after a failed write) */
	int ask_err;		/* why NS_PERF_PARANOID_GET failed, or 0 */
	int floor;		/* what FLOOR_PATH reads */
	bool have_floor;
	bool no_floor;		/* the kernel has no FLOOR_PATH */
	bool wrote_level;	/* the kernel took the level */
	bool wrote_floor;	/* the kernel took the floor */
	bool perf_asked;	/* level_io_in() asked NS_PERF_PARANOID_GET: */
	int perf_err;		/* why it failed (errno), or 0 and */
	struct ns_perf_paranoid perf;	/* what it said */
};

/* A user namespace named for messages, e.g. "user namespace of pid 42". */
struct userns {
	int fd;			/* nsfs descriptor, or -1 */
	dev_t dev;		/* with ino: the namespace's identity */
	ino_t ino;		/* its inode number, the namespace's id */
	char name[384];		/* escaped: printable ASCII only */
};

/* userns.c */
int userns_from_fd(int fd, struct userns *ns);
int userns_current(struct userns *ns);
const struct userns *userns_self(void);
bool userns_same(const struct userns *a, const struct userns *b);
bool userns_is_self(const struct userns *ns);
bool userns_is_initial(const struct userns *ns);
void userns_close(struct userns *ns);
int userns_perf_get(const struct userns *ns, struct ns_perf_paranoid *p);
void lvl_take_in_force(struct lvl_result *res,
		       const struct ns_perf_paranoid *p, int err);
void userns_level_in_force(const struct userns *ns, struct lvl_result *res);
const char *perf_ioctl_error(int err);
void print_perf_state(const struct ns_perf_paranoid *p,
		      const struct ns_perf_paranoid *b);
int userns_depth_below(const struct userns *ns, const struct userns *top,
		       struct userns *below);
bool have_cap_sys_admin(void);

/* userns_pid.c */
int proc_is_ours(void);
int pidfd_userns(int pidfd, pid_t pid);
int userns_of_pidfd(int pidfd, pid_t pid, struct userns *ns);
int userns_of_pid(pid_t pid, struct userns *ns);
int userns_container_of(const char *cmd, pid_t pid, bool exact,
			const struct userns *self, struct userns *target,
			char *what, size_t len);

/* level_io.c */
int level_io_here(const struct lvl_op *op, bool initial,
		  struct lvl_result *res);
int kernel_per_ns(int *err);
int kernel_has_floor(void);

/* enter_chain.c, enter_child.c */

/* The most namespaces one child enters in turn (the kernel nests 32). */
#define MAX_CHAIN	33

/* One record of a child's answer, authenticated by the nonce. */
struct chain_reply {
	uint64_t nonce;
	int index;		/* which namespace of the chain */
	struct lvl_result r;
};

/* A child reading or writing a chain of namespaces, for chain_*(). */
struct chain_run {
	struct lvl_result *res;	/* one per namespace */
	int n;			/* namespaces in the chain */
	int answered;		/* answers had */
	int done;		/* of them, LVL_OK */
	bool write, eof, exited;
	pid_t pid;
	int pidfd, rfd;		/* the child, its answer pipe */
	uint64_t nonce;
	long long deadline;	/* of the next answer, CLOCK_MONOTONIC ms */
	struct chain_reply got;	/* the answer being read */
	size_t have;		/* bytes of it read */
};

int chain_start(struct chain_run *c, const int *fds, int n,
		const struct lvl_op *op, struct lvl_result *res);
long long chain_pollfds(const struct chain_run *c, struct pollfd *pf);
bool chain_poll(struct chain_run *c, const struct pollfd *pf);
int chain_end(struct chain_run *c, bool defer);
void chain_reap_deferred(bool wait);
long long now_ms(void);
int level_io_in(const struct userns *ns, const struct lvl_op *op,
		struct lvl_result *res);
__noreturn void chain_child_main(int w, const int *fds, int n, pid_t parent,
				 const struct lvl_op *op, uint64_t nonce);

/* level_error.c */
const char *level_error_text(const struct lvl_result *res,
			     const struct lvl_op *op, const struct userns *ns,
			     char *buf, size_t len);
int report_level_error(const struct userns *ns,
		       const struct lvl_result *res, const struct lvl_op *op);

/* The subcommands: argc/argv start at the subcommand's name. */
int cmd_get(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_oci_hook(int argc, char **argv);
int cmd_grant(int argc, char **argv);
int grant_ns(const struct userns *ns, int level);
void grant_owner_note(const struct userns *ns);
int cmd_revoke(int argc, char **argv);

#endif /* PERFNS_H */
