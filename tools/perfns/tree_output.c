// SPDX-License-Identifier: GPL-2.0
/*
 * What perfns tree prints: each namespace as a row of an indented tree,
 * or as a JSON document (see perfns(1) for its fields).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "tree.h"

#define TEXT_PROCS	3	/* processes shown per namespace */
#define JSON_PROCS	10

/* Why a level could not be read, as a row says it; NULL if it was. */
static const char *node_level_error(const struct node *nd, char *buf,
				    size_t len)
{
	static const struct lvl_result not_read = { .stage = LVL_SKIPPED };
	const struct lvl_result *r = &nd->lvl;

	switch (nd->state) {
	case NODE_SKIPPED:
		return level_error_text(&not_read, NULL, NULL, buf, len);
	case NODE_GONE:
		return "unknown (its processes exited while listing)";
	case NODE_ERROR:
		snprintf(buf, len, "unknown (cannot reach it again: %s)",
			 strerror(nd->err));
		return buf;
	case NODE_READ:
		break;
	}
	/* The level is known (the floor may not be). */
	if (r->stage == LVL_OK || (r->on_floor && r->have_level))
		return NULL;
	return level_error_text(r, NULL, NULL, buf, len);
}

/* The kernel said that the host granted @nd a level. */
static bool node_anchored(const struct node *nd)
{
	return !nd->perf_err && (nd->perf.flags & NS_PERF_PARANOID_ANCHORED);
}

/*
 * Node @i as a row under @prefix (the last of its siblings, with @last; a
 * root, with @top), then its children's rows below it.
 */
static void print_subtree(const struct forest *f, long i, const char *prefix,
			  bool last, bool top, int has_floor)
{
	const struct node *nd = &f->nodes[i];
	bool init = nd->ino == INIT_USERNS_INO;
	bool self = nd->ino == f->self->ino;
	char child_prefix[512], why[160];
	const char *problem;
	size_t k;

	printf("%s%s%lu", prefix, top ? "" : last ? "`- " : "|- ",
	       (unsigned long)nd->ino);
	if (init || self)
		printf(" (%s%s%s)", init ? "initial" : "",
		       init && self ? ", " : "", self ? "yours" : "");
	if (nd->have_owner)
		printf("  owner: %u", (unsigned int)nd->owner);
	else
		printf("  owner: ?");
	printf("  depth: %d", nd->depth);
	problem = node_level_error(nd, why, sizeof(why));
	if (!problem) {
		printf("  level: %d%s", nd->lvl.level,
		       node_anchored(nd) ? " (granted)" : "");
		/* The host's level as written, where it counts for less. */
		if (init && self && f->have_host &&
		    f->host_level != nd->lvl.level)
			printf("  host: %d", f->host_level);
		/* The initial namespace's own level is the host's. */
		if (!init && !nd->perf_err &&
		    (nd->perf.flags & NS_PERF_PARANOID_OWN))
			printf("  own: %d", nd->perf.own);
		else if (!init && !nd->perf_err)
			printf("  own: none");
		else if (!init && nd->perf_err != ENOTTY)
			printf("  own: ?");
		if (node_anchored(nd))
			printf("  grant: %d", nd->perf.granted);
		if (init && self && has_floor > 0 && nd->lvl.have_floor &&
		    nd->lvl.floor == NO_FLOOR)
			printf("  floor: none");
		else if (init && self && has_floor > 0 && nd->lvl.have_floor)
			printf("  floor: %d", nd->lvl.floor);
		else if (init && self && has_floor > 0)
			printf("  floor: ?");
	} else {
		printf("  level: %s", problem);
	}
	if (!nd->nprocs)
		printf("  processes: none");
	for (k = 0; k < nd->nprocs && k < TEXT_PROCS; k++)
		printf("%s%d (%s)", k ? ", " : "  processes: ",
		       (int)nd->procs[k].pid, nd->procs[k].comm);
	if (nd->nprocs > TEXT_PROCS)
		printf(" and %zu more", nd->nprocs - TEXT_PROCS);
	putchar('\n');

	snprintf(child_prefix, sizeof(child_prefix), "%s%s", prefix,
		 top ? "" : last ? "   " : "|  ");
	for (k = 0; k < nd->nkids; k++)
		print_subtree(f, nd->kids[k], child_prefix,
			      k + 1 == nd->nkids, false, has_floor);
}

/*
 * The tree as text under @roots, with notes on what the kernel lacks
 * (@per_ns, @has_floor: 1, 0, or -1 unknown) and on hidden processes.
 * EXIT_OK, or EXIT_FAIL when it could not be written.
 */
int print_tree_text(const struct forest *f, const long *roots, size_t nroots,
		    int per_ns, int has_floor)
{
	size_t i;

	if (!per_ns)
		printf("note: this kernel has no per-namespace perf_event_paranoid: every level is the global one\n");
	if (!has_floor)
		printf("note: this kernel has no kernel.perf_event_paranoid_userns: no floor column\n");
	for (i = 0; i < nroots; i++)
		print_subtree(f, roots[i], "", true, true, has_floor);
	if (f->hidden)
		printf("(%u process%s not shown: no access to %s user namespace)\n",
		       f->hidden, f->hidden == 1 ? "" : "es",
		       f->hidden == 1 ? "its" : "their");
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}

/* Node @i and its children as a JSON object, or NULL (out of memory). */
static json_t *json_subtree(const struct forest *f, long i)
{
	const struct node *nd = &f->nodes[i];
	json_t *o, *procs, *kids, *p, *kid;
	const char *problem;
	bool perf, own;
	char why[160];
	size_t k;

	procs = json_array();
	kids = json_array();
	o = json_object();
	if (!procs || !kids || !o)
		goto bad;
	for (k = 0; k < nd->nprocs && k < JSON_PROCS; k++) {
		p = json_pack("{s:i, s:s}", "pid", (int)nd->procs[k].pid,
			      "comm", nd->procs[k].comm);
		if (!p || json_array_append_new(procs, p))
			goto bad;
	}
	for (k = 0; k < nd->nkids; k++) {
		kid = json_subtree(f, nd->kids[k]);
		if (!kid || json_array_append_new(kids, kid))
			goto bad;
	}
	problem = node_level_error(nd, why, sizeof(why));
	/* The own level, as the text shows it: none on the initial row. */
	perf = !nd->perf_err && nd->ino != INIT_USERNS_INO;
	own = nd->perf.flags & NS_PERF_PARANOID_OWN;
	if (json_object_set_new(o, "id", json_integer(nd->ino)) ||
	    json_object_set_new(o, "parent", nd->parent < 0 ? json_null() :
				json_integer(f->nodes[nd->parent].ino)) ||
	    json_object_set_new(o, "owner_uid", nd->have_owner ?
				json_integer(nd->owner) : json_null()) ||
	    json_object_set_new(o, "depth", json_integer(nd->depth)) ||
	    json_object_set_new(o, "initial",
				json_boolean(nd->ino == INIT_USERNS_INO)) ||
	    json_object_set_new(o, "self",
				json_boolean(nd->ino == f->self->ino)) ||
	    json_object_set_new(o, "level", problem ? json_null() :
				json_integer(nd->lvl.level)) ||
	    json_object_set_new(o, "has_own_level", !perf ? json_null() :
				json_boolean(own)) ||
	    json_object_set_new(o, "own_level", perf && own ?
				json_integer(nd->perf.own) : json_null()) ||
	    json_object_set_new(o, "granted", nd->perf_err ? json_null() :
				json_boolean(node_anchored(nd))) ||
	    json_object_set_new(o, "granted_level", node_anchored(nd) ?
				json_integer(nd->perf.granted) :
				json_null()) ||
	    json_object_set_new(o, "level_error", problem ?
				json_string(problem) : json_null()) ||
	    json_object_set_new(o, "floor", !problem && nd->lvl.have_floor ?
				json_integer(nd->lvl.floor) : json_null()) ||
	    json_object_set_new(o, "process_count",
				json_integer(nd->nprocs)) ||
	    json_object_set_new(o, "processes", procs) ||
	    json_object_set_new(o, "children", kids))
		goto bad_o;
	return o;
bad:
	json_decref(procs);
	json_decref(kids);
bad_o:
	json_decref(o);
	return NULL;
}

/* The tree as a JSON document; EXIT_OK, or EXIT_FAIL after a message. */
int print_tree_json(const struct forest *f, const long *roots,
		    size_t nroots, int per_ns, int has_floor)
{
	json_t *doc = NULL, *arr, *r;
	size_t i;
	int ret;

	arr = json_array();
	for (i = 0; arr && i < nroots; i++) {
		r = json_subtree(f, roots[i]);
		if (!r || json_array_append_new(arr, r)) {
			json_decref(arr);
			arr = NULL;
		}
	}
	if (arr)
		doc = json_pack("{s:o, s:o, s:o, s:i, s:o}",
				"per_namespace", per_ns < 0 ? json_null() :
					json_boolean(per_ns),
				"has_floor", has_floor < 0 ? json_null() :
					json_boolean(has_floor),
				"host_level", f->have_host ?
					json_integer(f->host_level) :
					json_null(),
				"hidden_processes", (int)f->hidden,
				"namespaces", arr);
	if (!doc) {
		msg("cannot build the JSON document (out of memory?)");
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
