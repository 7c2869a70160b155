// SPDX-License-Identifier: GPL-2.0
/*
 * perfns oci-hook --level LEVEL - OCI runtime hook that locks a container's
 * user namespace at LEVEL or above.
 *
 * The runtime passes the container's state (runtime-spec, "State") on
 * stdin; its "pid" is the container's process, in the container's
 * namespaces. Run as a createRuntime (or prestart) hook, this raises the
 * container's user namespace before the container's process runs the
 * user's program.
 *
 * Which namespace is decided by what raising it would do, from the hook's
 * own user namespace H (taken once, at start; the hook refuses when it
 * cannot be sure of it) and the container's C (from a pidfd):
 *  - C below H: the namespace directly below H on the way up from C, i.e.
 *    the container's, however deep its process has nested itself since;
 *  - C is H and H is not the initial namespace (a rootless runtime, e.g.
 *    podman, running containers and hooks in the user's one namespace):
 *    H, which is below the host's and holds only that user's containers;
 *  - C is H and H is the initial namespace, or C not below H: refused.
 * The initial user namespace is never written.
 *
 * LEVEL becomes the namespace's own level, so that lowering the host's
 * level or floor later does not take it below LEVEL. A namespace already
 * above LEVEL is left as it is when its own level is LEVEL or more, and
 * locked at its level in force when it is above only because it follows
 * the levels above it.
 *
 * With --grant LEVEL instead, the hook grants the container's namespace
 * LEVEL (perfns grant): for the one container the host's hook
 * configuration picks, e.g. a hooks.d entry matched on an annotation the
 * admin controls. A grant takes CAP_SYS_ADMIN in the initial namespace, so
 * a hook that does not run there refuses, and so does a container that
 * shares the hook's namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "perfns.h"

static const char hook_usage[] =
	"Usage: perfns oci-hook (--level LEVEL | --grant LEVEL)\n"
	"                       [--timeout SECONDS] < STATE\n"
	"\n"
	"OCI runtime hook (createRuntime, or prestart): read the container's\n"
	"state JSON on stdin and raise the container's user namespace to LEVEL:\n"
	"the one directly below the hook's own that the container's \"pid\" is\n"
	"in or nested under, or, when the container shares the hook's user\n"
	"namespace and that is not the initial one (rootless runtimes), that\n"
	"namespace. LEVEL becomes its own level: lowering the levels above it\n"
	"(a parent's, the host's, the floor) no longer takes it below LEVEL.\n"
	"A namespace already above LEVEL whose own level is LEVEL or more is\n"
	"left as it is; one that is above only because it follows the levels\n"
	"above it is locked where it is, at its level in force. Refused, and\n"
	"nothing changed, when the state is malformed or has no pid, the\n"
	"process is gone, the hook's own namespace cannot be told for sure, or\n"
	"raising would raise the initial user namespace (the host).\n"
	"\n"
	"With --grant LEVEL, grant the container's user namespace LEVEL instead\n"
	"(see perfns grant): the host's level and floor no longer apply to it.\n"
	"Only for a hook the host's configuration runs for chosen containers;\n"
	"it must run as root in the initial user namespace, and the container\n"
	"must have a user namespace of its own.\n"
	"\n"
	"Options:\n"
	"  -l, --level LEVEL    the level: -1, 0, 1, 2 or 3 (3: perf off)\n"
	"  -g, --grant LEVEL    grant LEVEL (grant_min to 3; 2 to 3 by default)\n"
	"  -t, --timeout SECS   give up on the namespace after SECS (default 10)\n"
	"  -h, --help           show this help\n"
	"\n"
	"Exit status: 0 ok, 1 refused or failed, 2 usage error.\n";

/* The pid and the id (escaped, for messages) from the state on @f. */
static int read_container_state(FILE *f, pid_t *pid, char *id,
				size_t idlen)
{
	json_error_t jerr;
	json_t *state, *v;
	json_int_t p;
	char text[4 * sizeof(jerr.text)];

	state = json_loadf(f, 0, &jerr);
	if (!state) {
		escape_bytes(text, sizeof(text), jerr.text,
			     strnlen(jerr.text, sizeof(jerr.text)));
		msg("malformed container state on stdin: %s (line %d, column %d)",
		    text, jerr.line, jerr.column);
		return -1;
	}
	if (!json_is_object(state)) {
		msg("malformed container state on stdin: not a JSON object");
		goto bad;
	}
	v = json_object_get(state, "id");
	if (json_is_string(v))
		escape_bytes(id, idlen, json_string_value(v),
			     json_string_length(v));
	else
		*id = '\0';
	v = json_object_get(state, "pid");
	if (!v) {
		msg("the container state has no pid%s%s: is this hook run at createRuntime or prestart?",
		    *id ? " for " : "", id);
		goto bad;
	}
	p = json_is_integer(v) ? json_integer_value(v) : 0;
	if (p <= 0 || p > INT_MAX) {
		msg("the container state's pid is not a positive integer");
		goto bad;
	}
	*pid = (pid_t)p;
	json_decref(state);
	return 0;
bad:
	json_decref(state);
	return -1;
}

/* The write of @level was refused because the level in force is above it. */
static bool above_level(const struct lvl_result *res, int level)
{
	return res->stage == LVL_WRITE && res->err == EPERM &&
	       !res->on_floor && res->have_level && level < res->level;
}

/*
 * The level in force in @ns is above the level @op asked for (@res says
 * so): the namespace is locked at that level or above if its own level is
 * (and no grant puts it aside). Otherwise it follows the levels above it,
 * which may come down below the level asked for later: it is locked where
 * it is by writing its level in force, which the kernel takes.
 */
static int lock_above(const struct userns *ns, const struct lvl_op *op,
		      struct lvl_result *res, const char *ctr,
		      const char *why)
{
	struct lvl_op lock = *op;
	struct ns_perf_paranoid p;
	int tries, was;

	if (!userns_perf_get(ns, &p) && (p.flags & NS_PERF_PARANOID_OWN) &&
	    !(p.flags & NS_PERF_PARANOID_ANCHORED) && p.own >= op->level) {
		msg("note: container %s: user namespace %lu is already at %d, above %d, and locked at its own level %d; left as it is (%s)",
		    ctr, (unsigned long)ns->ino, res->level, op->level, p.own,
		    why);
		return EXIT_OK;
	}
	/*
	 * A try is refused only when the level in force rose above what it
	 * read: bounded, as a namespace's level is at most LEVEL_MAX. On a
	 * kernel without NS_PERF_PARANOID_GET the level read is the host's
	 * as written, which may be higher, and acts as LEVEL_MAX.
	 */
	for (tries = 0; tries <= LEVEL_MAX - LEVEL_MIN; tries++) {
		was = res->level;
		lock.level = was < LEVEL_MAX ? was : LEVEL_MAX;
		level_io_in(ns, &lock, res);
		if (res->stage == LVL_OK) {
			msg("note: container %s: user namespace %lu was at %d, above %d, following the levels above it; locked it at %d, its own level now, so that lowering them does not take it below %d (%s)",
			    ctr, (unsigned long)ns->ino, was, op->level,
			    lock.level, op->level, why);
			return EXIT_OK;
		}
		if (!above_level(res, lock.level))
			break;
	}
	return report_level_error(ns, res, &lock);
}

int cmd_oci_hook(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "level", required_argument, NULL, 'l' },
		{ "grant", required_argument, NULL, 'g' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct userns proc_ns = { .fd = -1 }, target = { .fd = -1 };
	const struct userns *self;
	struct lvl_op op = { .write_level = true };
	bool have_level = false, grant = false;
	struct lvl_result res;
	char id[100], why[512];
	int c, ret, depth;
	const char *ctr;
	pid_t pid;

	optind = 1;
	while ((c = subcmd_getopt("oci-hook", hook_usage, ":l:g:t:h", opts,
				  argc, argv, &ret)) > 0) {
		ret = 0;
		switch (c) {
		case 'g':
			grant = true;
			fallthrough;
		case 'l':
			if (have_level)
				return usage_error("oci-hook",
						   "give one --level or --grant");
			ret = parse_ns_level_arg("oci-hook", optarg, &op.level);
			have_level = true;
			break;
		case 't':
			ret = parse_timeout_arg("oci-hook", optarg);
			break;
		default:
			ret = usage_error("oci-hook", "unknown option");
		}
		if (ret)
			return ret;
	}
	if (!c)
		return ret;
	if (optind < argc)
		return usage_error("oci-hook", "unexpected argument '%s'",
				   argv[optind]);
	if (!have_level)
		return usage_error("oci-hook", "no --level or --grant given");

	/* The hook's own namespace first: no guess later. */
	self = userns_self();
	if (!self)
		return EXIT_FAIL;
	if (grant && !userns_is_initial(self)) {
		msg("a grant takes CAP_SYS_ADMIN in the initial user namespace, and this hook runs in user namespace %lu; refusing",
		    (unsigned long)self->ino);
		return EXIT_FAIL;
	}
	if (read_container_state(stdin, &pid, id, sizeof(id)))
		return EXIT_FAIL;
	ctr = *id ? id : "?";
	if (*id)
		snprintf(proc_ns.name, sizeof(proc_ns.name),
			 "user namespace of pid %d (container %s)",
			 (int)pid, id);
	ret = userns_of_pid(pid, &proc_ns);
	if (ret)
		return ret;

	depth = userns_depth_below(&proc_ns, self, &target);
	if (depth == 0) {
		if (userns_is_initial(self)) {
			msg("container %s (pid %d) has no user namespace of its own: it shares the hook's, the initial user namespace (%lu), and raising that would raise the host's level; refusing",
			    ctr, (int)pid, (unsigned long)self->ino);
			ret = EXIT_FAIL;
			goto out;
		}
		target = *self;
		snprintf(target.name, sizeof(target.name),
			 "user namespace %lu (shared by container %s and this hook)",
			 (unsigned long)self->ino, ctr);
		snprintf(why, sizeof(why),
			 "the container shares the hook's own user namespace, which is not the initial one (a rootless runtime's): raising it locks every container in it and leaves the host as it is");
	} else if (depth > 0) {
		snprintf(target.name, sizeof(target.name),
			 "user namespace %lu (container %s)",
			 (unsigned long)target.ino, ctr);
		if (depth == 1)
			snprintf(why, sizeof(why),
				 "the container's own, directly below the hook's (%lu)",
				 (unsigned long)self->ino);
		else
			snprintf(why, sizeof(why),
				 "directly below the hook's (%lu), with the container's process (pid %d) nested %d levels below the hook's in %lu",
				 (unsigned long)self->ino, (int)pid, depth,
				 (unsigned long)proc_ns.ino);
	} else if (depth == -EPERM) {
		msg("container %s (pid %d): its user namespace (%lu) is not below the hook's (%lu); refusing",
		    ctr, (int)pid, (unsigned long)proc_ns.ino,
		    (unsigned long)self->ino);
		ret = EXIT_FAIL;
		goto out;
	} else {
		msg("container %s (pid %d): cannot walk up from its user namespace (%lu) to the hook's: %s; refusing",
		    ctr, (int)pid, (unsigned long)proc_ns.ino,
		    strerror(-depth));
		ret = EXIT_FAIL;
		goto out;
	}
	/* Never the host, whatever the walk said. */
	if (userns_is_initial(&target)) {
		msg("container %s (pid %d): the namespace to raise is the initial user namespace; refusing",
		    ctr, (int)pid);
		ret = EXIT_FAIL;
		goto out;
	}

	if (grant) {
		ret = grant_ns(&target, op.level);
		if (!ret) {
			msg("container %s: level %d granted to user namespace %lu: %s",
			    ctr, op.level, (unsigned long)target.ino, why);
			grant_owner_note(&target);
		}
		goto out;
	}

	level_io_in(&target, &op, &res);
	if (above_level(&res, op.level)) {
		ret = lock_above(&target, &op, &res, ctr, why);
	} else if (res.stage != LVL_OK) {
		ret = report_level_error(&target, &res, &op);
	} else {
		msg("container %s: level %d set on user namespace %lu: %s",
		    ctr, op.level, (unsigned long)target.ino, why);
		ret = EXIT_OK;
	}
out:
	userns_close(&target);
	userns_close(&proc_ns);
	return ret;
}
