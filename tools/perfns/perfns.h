/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfns - kernel.perf_event_paranoid per user namespace, from user space.
 *
 * Shared declarations of the subcommands (one file each) and of the helpers
 * in ns.c (entering a user namespace, reading and writing its level) and
 * util.c (messages, common options, strict number parsing).
 */
#ifndef PERFNS_H
#define PERFNS_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"

/* Exit statuses of every subcommand. */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* refused by the kernel, or failed */
#define EXIT_USAGE	2	/* bad command line or bad input */

#define NOT_PER_NS_MSG \
	"this kernel has no per-namespace perf_event_paranoid " \
	"(the level is global); refusing to change it"

/* util.c */
struct option;

extern const char *prog;

void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int subcmd_getopt(const char *cmd, const char *usage, const char *optstring,
		  const struct option *opts, int argc, char **argv,
		  int *status);
int parse_int(const char *s, int *out);
int parse_pid(const char *s, pid_t *out);
int parse_level_arg(const char *cmd, const char *s, int *level);
int parse_pid_arg(const char *cmd, const char *s, pid_t *pid);
bool is_level_word(const char *s);

/* ns.c */

/* Where an attempt to read or write a level stopped. */
enum lvl_stage {
	LVL_OK,
	LVL_SETNS,	/* setns() into the namespace failed */
	LVL_OPEN,	/* opening PARANOID_PATH failed */
	LVL_READ,	/* reading or parsing the level failed */
	LVL_WRITE,	/* the kernel refused the write */
	LVL_GLOBAL,	/* the namespace's file is the caller's: no series */
	LVL_UNSURE,	/* could not tell whether the kernel has the series */
	LVL_INTERNAL,	/* fork, pipe, ...: failed before reaching the kernel */
};

struct lvl_result {
	enum lvl_stage stage;
	int err;		/* errno of the failed step */
	int level;		/* the effective level read, or -1 with !have */
	bool have_level;	/* level is valid (also after a failed write) */
	bool global;		/* the file is the same object as the caller's */
	bool write;		/* it was an attempt to write */
};

/* A user namespace named for messages, e.g. "user namespace of pid 42". */
struct userns {
	int fd;			/* nsfs descriptor, or -1: the caller's own */
	ino_t ino;		/* its inode number, the namespace's id */
	char name[128];
};

int userns_of_pid(pid_t pid, struct userns *ns);
int userns_self(struct userns *ns);
bool userns_is_self(const struct userns *ns);
void userns_close(struct userns *ns);
int self_userns_ino(ino_t *ino);

int level_read(const struct userns *ns, struct lvl_result *res);
int level_write(const struct userns *ns, int level, struct lvl_result *res);
int level_io_here(bool wr, int level, const struct stat *other,
		  struct lvl_result *res);
int kernel_per_ns(int *err);
int report_level_error(const struct userns *ns,
		       const struct lvl_result *res, int wanted);
bool have_cap_sys_admin(void);

/* The subcommands: argc/argv start at the subcommand's name. */
int cmd_get(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_oci_hook(int argc, char **argv);

#endif /* PERFNS_H */
