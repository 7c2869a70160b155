/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfns tree: the forest of user namespaces its files share (tree.c, the
 * command; tree_collect.c, finding the namespaces; tree_sort.c; tree_reach.c,
 * reaching a namespace again; tree_read.c, reading the levels;
 * tree_output.c, the text and the JSON).
 */
#ifndef PERFNS_TREE_H
#define PERFNS_TREE_H

#include "perfns.h"

/* Why a node has no level beyond what level_io_in() said. */
enum node_state {
	NODE_READ,		/* lvl holds what level_io_in() said */
	NODE_SKIPPED,		/* an ancestor's child timed out */
	NODE_GONE,		/* every process that led to it exited */
	NODE_ERROR,		/* reaching it again failed: errno in err */
};

struct proc_ent {
	pid_t pid;
	char comm[72];		/* escaped */
};

struct node {
	ino_t ino;
	ino_t parent_ino;
	bool have_parent;
	long parent;		/* index in the nodes array, or -1 */
	bool have_owner;
	uid_t owner;
	int depth;
	pid_t rep_pid;		/* reached again from this process ... */
	int rep_hops;		/* ... this many parents up */
	enum node_state state;
	int err;
	struct lvl_result lvl;	/* lvl.level: the level in force */
	struct ns_perf_paranoid perf;	/* NS_PERF_PARANOID_GET's answer */
	int perf_err;		/* ... or why there is none (errno) */
	struct proc_ent *procs;
	size_t nprocs, procs_cap;
	long *kids;
	size_t nkids, kids_cap;
};

/* A chain to read: the namespace it starts at, and whether to skip it. */
struct chain_job {
	long start;
	bool skip;
};

struct forest {
	struct node *nodes;
	size_t n, cap;
	long *hash;		/* open addressing: node index, or -1 */
	size_t hash_size;	/* a power of two */
	dev_t dev;		/* nsfs */
	const struct userns *self;
	/* The host's level as written, read when we run in the initial one */
	int host_level;
	bool have_host;
	unsigned int hidden;	/* processes in namespaces we may not see */
	unsigned int timeouts, unreadable, gone;
	int chain_max;		/* namespaces one child enters in turn */
	int par;		/* children at work at once */
	struct chain_job *jobs;	/* chains waiting to be read (a stack) */
	size_t njobs, jobs_cap;
};

/* tree_collect.c */
void node_perf_get(struct node *nd, int fd);
int collect_processes(struct forest *f);
void link_parents(struct forest *f);
void set_depths(struct forest *f, long i, int depth);

/* tree_sort.c */
void sort_tree(struct forest *f, long *roots, size_t nroots);

/* tree_reach.c */
int open_chain(const struct forest *f, const long *chain, int n, int *fds,
	       int *err);

/* tree_read.c */
void set_chain_limits(struct forest *f);
void read_levels(struct forest *f, const long *roots, size_t nroots);

/* tree_output.c */
int print_tree_text(const struct forest *f, const long *roots, size_t nroots,
		    int per_ns, int has_floor);
int print_tree_json(const struct forest *f, const long *roots,
		    size_t nroots, int per_ns, int has_floor);

#endif /* PERFNS_TREE_H */
