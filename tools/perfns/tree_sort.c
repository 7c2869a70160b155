// SPDX-License-Identifier: GPL-2.0
/*
 * The order perfns tree prints in: namespaces by inode number, under each
 * parent and at the top, and the processes of each by pid.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "tree.h"

/* Two node indices of the forest @f, by the inode number of their nodes. */
static int cmp_node_ino(const void *a, const void *b, void *f)
{
	const struct node *nodes = ((const struct forest *)f)->nodes;
	ino_t x = nodes[*(const long *)a].ino;
	ino_t y = nodes[*(const long *)b].ino;

	return x < y ? -1 : x > y;
}

static int cmp_pid(const void *a, const void *b)
{
	return ((const struct proc_ent *)a)->pid -
	       ((const struct proc_ent *)b)->pid;
}

/* Sort @roots, every node's children and every node's processes. */
void sort_tree(struct forest *f, long *roots, size_t nroots)
{
	size_t i;

	qsort_r(roots, nroots, sizeof(long), cmp_node_ino, f);
	for (i = 0; i < f->n; i++) {
		qsort_r(f->nodes[i].kids, f->nodes[i].nkids, sizeof(long),
			cmp_node_ino, f);
		qsort(f->nodes[i].procs, f->nodes[i].nprocs,
		      sizeof(struct proc_ent), cmp_pid);
	}
}
