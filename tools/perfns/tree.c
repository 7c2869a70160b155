// SPDX-License-Identifier: GPL-2.0
/*
 * perfns tree [--json] - every user namespace with its level.
 *
 * Namespaces come from /proc/PID/ns/user of every process the caller may
 * inspect, and from their parents (NS_GET_PARENT) up to the top of what the
 * caller may see, so that namespaces without processes of their own show up
 * too. Levels are read by entering each namespace (level_read()).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "perfns.h"

/* PROC_USER_INIT_INO: the initial user namespace's inode, fixed. */
#define INIT_USERNS_INO	0xEFFFFFFDU

#define PF_KTHREAD	0x00200000	/* in /proc/PID/stat's flags */

#define TEXT_PROCS	3	/* processes shown per namespace */
#define JSON_PROCS	10

struct proc_ent {
	pid_t pid;
	char comm[32];
};

struct node {
	struct userns ns;
	long parent;		/* index in the nodes array, or -1 */
	bool have_owner;
	uid_t owner;
	int depth;
	struct lvl_result lvl;
	struct proc_ent *procs;
	size_t nprocs;
	long *kids;
	size_t nkids;
};

struct forest {
	struct node *nodes;
	size_t n;
	ino_t self;
	unsigned int hidden;	/* processes whose namespace we may not see */
};

static const char tree_usage[] =
	"Usage: perfns tree [--json]\n"
	"\n"
	"Show every user namespace on the system as a tree: its id (the\n"
	"inode of /proc/PID/ns/user), the uid owning it, its depth, the\n"
	"perf_event_paranoid level in force in it and a few of its processes.\n"
	"Namespaces that have no process are found through the parents of\n"
	"those that have. Reading a level takes CAP_SYS_ADMIN over the\n"
	"namespace; where that is missing the row says so.\n"
	"\n"
	"Options:\n"
	"  -j, --json   print JSON instead (see perfns(1) for its fields)\n"
	"  -h, --help   show this help\n"
	"\n"
	"Exit status: 0 ok, 1 failed, 2 usage error.\n";

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		msg("out of memory");
		exit(EXIT_FAIL);
	}
	return p;
}

static long find_node(const struct forest *f, ino_t ino)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->nodes[i].ns.ino == ino)
			return i;
	return -1;
}

/* The node for the namespace open at @fd, taking @fd or closing it. */
static long node_for_fd(struct forest *f, int fd)
{
	struct node *nd;
	struct stat st;
	long i;

	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	i = find_node(f, st.st_ino);
	if (i >= 0) {
		close(fd);
		return i;
	}
	f->nodes = xrealloc(f->nodes, (f->n + 1) * sizeof(*f->nodes));
	nd = &f->nodes[f->n];
	memset(nd, 0, sizeof(*nd));
	nd->ns.fd = fd;
	nd->ns.ino = st.st_ino;
	snprintf(nd->ns.name, sizeof(nd->ns.name), "user namespace %lu",
		 (unsigned long)st.st_ino);
	nd->parent = -1;
	return f->n++;
}

static void read_comm(pid_t pid, char *comm, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, comm, len - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = snprintf(comm, len, "?");
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

/* Kernel threads all sit in the initial namespace and only add noise. */
static bool is_kernel_thread(pid_t pid)
{
	char path[64], buf[512], *p;
	unsigned long flags;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* pid (comm) state ppid pgrp session tty_nr tpgid flags ... */
	p = strrchr(buf, ')');
	for (i = 0; p && i < 7; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, "%lu", &flags) != 1)
		return false;
	return flags & PF_KTHREAD;
}

static int collect_processes(struct forest *f)
{
	struct dirent *de;
	struct node *nd;
	char path[300];
	pid_t pid;
	long i;
	DIR *d;
	int fd;

	d = opendir("/proc");
	if (!d) {
		msg("cannot read /proc: %s", strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (parse_pid(de->d_name, &pid) || is_kernel_thread(pid))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/user", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == EACCES || errno == EPERM)
				f->hidden++;
			continue;
		}
		i = node_for_fd(f, fd);
		if (i < 0)
			continue;
		nd = &f->nodes[i];
		nd->procs = xrealloc(nd->procs,
				     (nd->nprocs + 1) * sizeof(*nd->procs));
		nd->procs[nd->nprocs].pid = pid;
		read_comm(pid, nd->procs[nd->nprocs].comm,
			  sizeof(nd->procs[0].comm));
		nd->nprocs++;
	}
	closedir(d);
	return 0;
}

/* Parents, up to where NS_GET_PARENT says EPERM; owners; depths. */
static void link_parents(struct forest *f)
{
	size_t i;
	long p;
	int pfd;

	/* f->n grows while parents without processes are added. */
	for (i = 0; i < f->n; i++) {
		uid_t uid;

		if (!ioctl(f->nodes[i].ns.fd, NS_GET_OWNER_UID, &uid)) {
			f->nodes[i].owner = uid;
			f->nodes[i].have_owner = true;
		}
		pfd = ioctl(f->nodes[i].ns.fd, NS_GET_PARENT);
		if (pfd < 0)
			continue;
		p = node_for_fd(f, pfd);
		f->nodes[i].parent = p;
	}
	for (i = 0; i < f->n; i++) {
		struct node *nd = &f->nodes[i];

		for (p = nd->parent; p >= 0; p = f->nodes[p].parent)
			nd->depth++;
		if (nd->parent >= 0) {
			struct node *pa = &f->nodes[nd->parent];

			pa->kids = xrealloc(pa->kids,
					    (pa->nkids + 1) * sizeof(long));
			pa->kids[pa->nkids++] = i;
		}
	}
}

static struct forest *sort_forest;

static int cmp_ino(const void *a, const void *b)
{
	ino_t x = sort_forest->nodes[*(const long *)a].ns.ino;
	ino_t y = sort_forest->nodes[*(const long *)b].ns.ino;

	return x < y ? -1 : x > y;
}

static int cmp_pid(const void *a, const void *b)
{
	return ((const struct proc_ent *)a)->pid -
	       ((const struct proc_ent *)b)->pid;
}

static void sort_all(struct forest *f, long *roots, size_t nroots)
{
	size_t i;

	sort_forest = f;
	qsort(roots, nroots, sizeof(long), cmp_ino);
	for (i = 0; i < f->n; i++) {
		qsort(f->nodes[i].kids, f->nodes[i].nkids, sizeof(long),
		      cmp_ino);
		qsort(f->nodes[i].procs, f->nodes[i].nprocs,
		      sizeof(struct proc_ent), cmp_pid);
	}
}

/* Why a level could not be read, as a row says it. */
static void level_problem(const struct lvl_result *r, char *buf, size_t len)
{
	if (r->stage == LVL_SETNS && r->err == EPERM)
		snprintf(buf, len, "not visible (need CAP_SYS_ADMIN over it)");
	else if (r->stage == LVL_SETNS)
		snprintf(buf, len, "not visible (setns: %s)",
			 strerror(r->err));
	else
		snprintf(buf, len, "unknown (%s)", strerror(r->err));
}

static void print_node(const struct forest *f, long i, const char *prefix,
		       bool last, bool top)
{
	const struct node *nd = &f->nodes[i];
	char sub[512], why[128];
	bool init = nd->ns.ino == INIT_USERNS_INO;
	bool self = nd->ns.ino == f->self;
	size_t k;

	printf("%s%s%lu", prefix, top ? "" : last ? "`- " : "|- ",
	       (unsigned long)nd->ns.ino);
	if (init || self)
		printf(" (%s%s%s)", init ? "initial" : "",
		       init && self ? ", " : "", self ? "yours" : "");
	if (nd->have_owner)
		printf("  owner: %u", (unsigned int)nd->owner);
	else
		printf("  owner: ?");
	printf("  depth: %d", nd->depth);
	if (nd->lvl.stage == LVL_OK) {
		printf("  level: %d", nd->lvl.level);
	} else {
		level_problem(&nd->lvl, why, sizeof(why));
		printf("  level: %s", why);
	}
	if (!nd->nprocs)
		printf("  processes: none");
	for (k = 0; k < nd->nprocs && k < TEXT_PROCS; k++)
		printf("%s%d (%s)", k ? ", " : "  processes: ",
		       (int)nd->procs[k].pid, nd->procs[k].comm);
	if (nd->nprocs > TEXT_PROCS)
		printf(" and %zu more", nd->nprocs - TEXT_PROCS);
	putchar('\n');

	snprintf(sub, sizeof(sub), "%s%s", prefix,
		 top ? "" : last ? "   " : "|  ");
	for (k = 0; k < nd->nkids; k++)
		print_node(f, nd->kids[k], sub, k + 1 == nd->nkids, false);
}

static json_t *json_node(const struct forest *f, long i)
{
	const struct node *nd = &f->nodes[i];
	json_t *o, *procs, *kids;
	char why[128];
	size_t k;

	procs = json_array();
	for (k = 0; k < nd->nprocs && k < JSON_PROCS; k++)
		json_array_append_new(procs,
			json_pack("{s:i, s:s}", "pid", (int)nd->procs[k].pid,
				  "comm", nd->procs[k].comm));
	kids = json_array();
	for (k = 0; k < nd->nkids; k++)
		json_array_append_new(kids, json_node(f, nd->kids[k]));

	o = json_pack("{s:I, s:o, s:o, s:i, s:b, s:b}",
		      "id", (json_int_t)nd->ns.ino,
		      "parent", nd->parent < 0 ? json_null() :
			json_integer(f->nodes[nd->parent].ns.ino),
		      "owner_uid", nd->have_owner ?
			json_integer(nd->owner) : json_null(),
		      "depth", nd->depth,
		      "initial", nd->ns.ino == INIT_USERNS_INO,
		      "self", nd->ns.ino == f->self);
	if (!o)
		return NULL;
	if (nd->lvl.stage == LVL_OK) {
		json_object_set_new(o, "level", json_integer(nd->lvl.level));
		json_object_set_new(o, "level_error", json_null());
	} else {
		level_problem(&nd->lvl, why, sizeof(why));
		json_object_set_new(o, "level", json_null());
		json_object_set_new(o, "level_error", json_string(why));
	}
	json_object_set_new(o, "process_count", json_integer(nd->nprocs));
	json_object_set_new(o, "processes", procs);
	json_object_set_new(o, "children", kids);
	return o;
}

static int print_json(const struct forest *f, const long *roots,
		      size_t nroots, int per_ns)
{
	json_t *doc, *arr;
	bool bad = false;
	size_t i;
	int ret;

	arr = json_array();
	for (i = 0; i < nroots; i++)
		bad |= json_array_append_new(arr, json_node(f, roots[i])) != 0;
	if (bad) {
		json_decref(arr);
		arr = NULL;
	}
	doc = json_pack("{s:o, s:i, s:o}",
			"per_namespace", per_ns < 0 ? json_null() :
				json_boolean(per_ns),
			"hidden_processes", (int)f->hidden,
			"namespaces", arr);
	if (!doc) {
		msg("cannot build the JSON document");
		return EXIT_FAIL;
	}
	ret = json_dumpf(doc, stdout, JSON_INDENT(2));
	json_decref(doc);
	if (ret || putchar('\n') == EOF || fflush(stdout)) {
		msg("cannot write the JSON document");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_tree(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct forest f = { 0 };
	bool json = false;
	size_t i, nroots = 0;
	int c, per_ns, ret;
	long *roots;

	optind = 1;
	while ((c = subcmd_getopt("tree", tree_usage, ":jh", opts,
				  argc, argv, &ret)) > 0)
		json = true;	/* 'j' */
	if (!c)
		return ret;
	if (optind < argc)
		return usage_error("tree", "unexpected argument '%s'",
				   argv[optind]);

	ret = self_userns_ino(&f.self);
	if (ret) {
		msg("cannot find your user namespace: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	if (collect_processes(&f))
		return EXIT_FAIL;
	link_parents(&f);

	for (i = 0; i < f.n; i++)
		level_read(&f.nodes[i].ns, &f.nodes[i].lvl);
	per_ns = kernel_per_ns(NULL);

	roots = xrealloc(NULL, (f.n + 1) * sizeof(long));
	for (i = 0; i < f.n; i++)
		if (f.nodes[i].parent < 0)
			roots[nroots++] = i;
	sort_all(&f, roots, nroots);

	if (json) {
		ret = print_json(&f, roots, nroots, per_ns);
	} else {
		if (!per_ns)
			printf("note: this kernel has no per-namespace perf_event_paranoid: every level is the global one\n");
		for (i = 0; i < nroots; i++)
			print_node(&f, roots[i], "", true, true);
		if (f.hidden)
			printf("(%u process%s not shown: no access to %s user namespace)\n",
			       f.hidden, f.hidden == 1 ? "" : "es",
			       f.hidden == 1 ? "its" : "their");
		ret = fflush(stdout) ? EXIT_FAIL : EXIT_OK;
	}

	for (i = 0; i < f.n; i++) {
		userns_close(&f.nodes[i].ns);
		free(f.nodes[i].procs);
		free(f.nodes[i].kids);
	}
	free(f.nodes);
	free(roots);
	return ret;
}
